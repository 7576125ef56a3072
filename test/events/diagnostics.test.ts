/**
 * Where events go: built only when someone would see them, stamped with the time and the
 * request's id, frozen, handed to the library's sinks and the listeners; a failing sink is
 * logged once; a request is bound to one instance's diagnostics and gets one id.
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';

import { Diagnostics, diagnosticsOf, emitFor } from '../../lib/events/diagnostics.ts';
import type { EventSink } from '../../lib/events/diagnostics.ts';
import { EventHub } from '../../lib/events/hub.ts';
import type { PlatformAuthEvent } from '../../lib/events/types.ts';

const silent = { info() {}, warn() {}, error() {} };

function request(headers: Record<string, string> = {}) {
  const req = new IncomingMessage(new Socket());
  Object.assign(req.headers, headers);
  const res = new ServerResponse(req);
  return { req, res };
}

it('builds nothing when events are off or nobody would see them', () => {
  const hub = new EventHub(silent);
  const off = new Diagnostics({ enabled: false, hub, sinks: [{ record: () => { throw new Error('no'); } }], logger: silent });
  hub.on('*', () => { throw new Error('no'); });
  expect(off.wants('access.refused')).toBe(false);
  off.emit({ name: 'refresh.rotated' });

  const quiet = new Diagnostics({ enabled: true, hub: new EventHub(silent), sinks: [], logger: silent });
  expect(quiet.wants('refresh.rotated')).toBe(false);
  const listened = new EventHub(silent);
  listened.on('refresh.rotated', () => {});
  expect(new Diagnostics({ enabled: true, hub: listened, sinks: [], logger: silent }).wants('refresh.rotated')).toBe(true);
});

it('stamps events with the time and the request id, and hands the same frozen event to sinks and listeners', () => {
  const hub = new EventHub(silent);
  const seen: PlatformAuthEvent[] = [];
  const sink: EventSink = { record: (e) => { seen.push(e); } };
  hub.on('*', (e) => { seen.push(e); });
  const diagnostics = new Diagnostics({ enabled: true, hub, sinks: [sink], logger: silent });
  const { req, res } = request({ 'x-request-id': 'req-7' });
  diagnostics.bindRequest(req, res);
  const before = Date.now();
  diagnostics.emit({ name: 'refresh.rotated', clientId: 'app' }, { req, res });
  expect(seen).toHaveLength(2);
  expect(seen[0]).toBe(seen[1]);
  expect(seen[0]).toEqual({ name: 'refresh.rotated', clientId: 'app', requestId: 'req-7', at: expect.any(Number) });
  expect(seen[0]!.at).toBeGreaterThanOrEqual(before);
  expect(Object.isFrozen(seen[0])).toBe(true);
  diagnostics.emit({ name: 'storage.unavailable' });
  expect(seen[2]).not.toHaveProperty('requestId');
});

it('freezes an event\'s lists too, copied: a listener changes neither what others see nor the list it came from', () => {
  const hub = new EventHub(silent);
  const seen: PlatformAuthEvent[] = [];
  hub.on('authorization.failed', (e) => {
    expect(() => (e.registeredRedirectUris as string[]).push('https://attacker.example/cb')).toThrow(TypeError);
  });
  hub.on('*', (e) => { seen.push(e); });
  const registered = ['http://127.0.0.1/cb'];
  new Diagnostics({ enabled: true, hub, sinks: [], logger: silent })
    .emit({ name: 'authorization.failed', error: 'invalid_redirect_uri', description: 'no match', clientId: 'app', registeredRedirectUris: registered });
  expect(seen[0]).toMatchObject({ registeredRedirectUris: ['http://127.0.0.1/cb'] });
  expect(Object.isFrozen((seen[0] as PlatformAuthEvent & { registeredRedirectUris: string[] }).registeredRedirectUris)).toBe(true);
  // the caller's own list stays its own
  expect(Object.isFrozen(registered)).toBe(false);
});

it('logs a failing sink once, naming the request, and still reaches the listeners', () => {
  const named: string[] = [];
  const failing = new Diagnostics({
    enabled: true, hub: new EventHub(silent), sinks: [{ record: () => { throw new Error('broken sink'); } }], logger: { ...silent, error: (m) => named.push(m) },
  });
  const { req, res } = request({ 'x-request-id': 'req-sink-1' });
  failing.bindRequest(req, res);
  failing.emit({ name: 'refresh.rotated' }, { req, res });
  expect(named).toEqual(['platform-auth: recording an event failed (logged once) [request req-sink-1]: Error: broken sink']);
});

it('logs a failing sink once and still reaches the listeners', () => {
  const errors: string[] = [];
  const hub = new EventHub(silent);
  let heard = 0;
  hub.on('refresh.rotated', () => { heard += 1; });
  const diagnostics = new Diagnostics({
    enabled: true, hub, sinks: [{ record: () => { throw new Error('broken sink'); } }], logger: { ...silent, error: (m) => errors.push(m) },
  });
  diagnostics.emit({ name: 'refresh.rotated' });
  diagnostics.emit({ name: 'refresh.rotated' });
  expect(heard).toBe(2);
  expect(errors).toEqual(['platform-auth: recording an event failed (logged once): Error: broken sink']);
});

it('binds a request to the first instance that sees it, and gives it one id', () => {
  const first = new Diagnostics({ enabled: true, hub: new EventHub(silent), sinks: [], logger: silent });
  const second = new Diagnostics({ enabled: true, hub: new EventHub(silent), sinks: [], logger: silent });
  const { req, res } = request();
  expect(diagnosticsOf({ req })).toBeUndefined();
  expect(first.bindRequest(req, res)).toBe(true);
  const id = res.getHeader('x-request-id');
  expect(second.bindRequest(req, res)).toBe(false);
  expect(diagnosticsOf({ req })).toBe(first);
  expect(res.getHeader('x-request-id')).toBe(id);
});

it('still gives requests an id with events off', () => {
  const off = new Diagnostics({ enabled: false, hub: new EventHub(silent), sinks: [], logger: silent });
  const { req, res } = request();
  off.bindRequest(req, res);
  expect(res.getHeader('x-request-id')).toEqual(expect.any(String));
});

it('emits for a request from anywhere that holds its context, and does nothing for a request no instance handles', () => {
  const hub = new EventHub(silent);
  const seen: PlatformAuthEvent[] = [];
  hub.on('signin.throttled', (e) => { seen.push(e); });
  const diagnostics = new Diagnostics({ enabled: true, hub, sinks: [], logger: silent });
  const bound = request({ 'x-request-id': 'req-9' });
  diagnostics.bindRequest(bound.req, bound.res);
  emitFor(bound, { name: 'signin.throttled', clientId: 'app', retryAfter: 4 });
  emitFor(request(), { name: 'signin.throttled', clientId: 'other', retryAfter: 4 });
  emitFor(undefined, { name: 'signin.throttled', clientId: 'none', retryAfter: 4 });
  expect(seen).toEqual([{ name: 'signin.throttled', clientId: 'app', retryAfter: 4, requestId: 'req-9', at: expect.any(Number) }]);
});
