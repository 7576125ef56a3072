/**
 * `auth.events`: listeners by name and for every event, unsubscribing, and listeners that
 * fail without breaking anything (logged, rate-limited).
 */
import { EventHub, LISTENER_ERROR_QUIET_MS } from '../../lib/events/hub.ts';
import type { PlatformAuthEvent } from '../../lib/events/types.ts';

function recordingLogger() {
  const lines: string[] = [];
  return { lines, logger: { info: (m: string) => lines.push(`info ${m}`), warn: (m: string) => lines.push(`warn ${m}`), error: (m: string) => lines.push(`error ${m}`) } };
}

const refused = (clientId = 'app'): PlatformAuthEvent => Object.freeze({
  name: 'access.refused', at: 1, clientId, endpoint: 'mcp', status: 401, reason: 'revoked', error: 'invalid_token', description: 'x',
});
const rotated: PlatformAuthEvent = Object.freeze({ name: 'refresh.rotated', at: 2, clientId: 'app' });

it('calls the listeners of an event, then those of every event, in order', () => {
  const hub = new EventHub(recordingLogger().logger);
  const seen: string[] = [];
  hub.on('access.refused', (e) => { seen.push(`1 ${e.reason}`); });
  hub.on('*', (e) => { seen.push(`* ${e.name}`); });
  hub.on('access.refused', () => { seen.push('2'); });
  hub.emit(refused());
  hub.emit(rotated);
  expect(seen).toEqual(['1 revoked', '2', '* access.refused', '* refresh.rotated']);
});

it('says whether anyone listens, and stops calling a listener once unsubscribed', () => {
  const hub = new EventHub(recordingLogger().logger);
  expect(hub.wants('access.refused')).toBe(false);
  const seen: PlatformAuthEvent[] = [];
  const stop = hub.on('access.refused', (e) => { seen.push(e); });
  expect(hub.wants('access.refused')).toBe(true);
  expect(hub.wants('refresh.rotated')).toBe(false);
  hub.emit(refused('a'));
  stop();
  hub.emit(refused('b'));
  expect(seen.map((e) => e.clientId)).toEqual(['a']);
  expect(hub.wants('access.refused')).toBe(false);

  const all = (e: PlatformAuthEvent) => { seen.push(e); };
  hub.on('*', all);
  expect(hub.wants('refresh.rotated')).toBe(true);
  hub.off('*', all);
  hub.emit(rotated);
  expect(seen).toHaveLength(1);
});

it('refuses names that are no event, and listeners that are no function', () => {
  const hub = new EventHub(recordingLogger().logger);
  expect(() => hub.on('access.refuse' as never, () => {})).toThrow(/"access.refuse" is not an event; use one of .*access\.refused/);
  expect(() => hub.on('access.refused', 'nope' as never)).toThrow(/listener must be a function/);
});

it('logs a listener that throws or rejects, once a minute per event, and calls the others', async () => {
  let now = 0;
  const { lines, logger } = recordingLogger();
  const hub = new EventHub(logger, () => now);
  const seen: string[] = [];
  hub.on('access.refused', () => { throw new TypeError('boom'); });
  hub.on('access.refused', () => { seen.push('after'); });
  hub.on('refresh.rotated', async () => { throw new Error('later'); });
  expect(() => hub.emit(refused())).not.toThrow();
  hub.emit(refused());
  hub.emit(rotated);
  await new Promise((resolve) => setImmediate(resolve));
  expect(seen).toEqual(['after', 'after']);
  expect(lines).toEqual([
    'error platform-auth: a listener of the access.refused event failed (the request went on; further failures of this event\'s listeners are not logged for a minute): TypeError: boom',
    'error platform-auth: a listener of the refresh.rotated event failed (the request went on; further failures of this event\'s listeners are not logged for a minute): Error: later',
  ]);
  now += LISTENER_ERROR_QUIET_MS;
  hub.emit(refused());
  expect(lines).toHaveLength(3);
});

it('hands every listener the same frozen event', () => {
  const hub = new EventHub(recordingLogger().logger);
  const got: PlatformAuthEvent[] = [];
  hub.on('*', (e) => { got.push(e); });
  hub.on('access.refused', (e) => { got.push(e); });
  const event = refused();
  hub.emit(event);
  expect(got[0]).toBe(event);
  expect(got[1]).toBe(event);
  expect(Object.isFrozen(got[0])).toBe(true);
});
