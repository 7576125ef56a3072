/**
 * The resolve-then-pin step against fake resolvers (special-use answers, a public answer
 * mixed with a loopback one, IPv4-mapped and NAT64 answers, the resolver asked once), the
 * request refused before connecting (a loopback listener sees no connection), and the
 * connect-time check, which refuses before a byte is written. The positive path, to a
 * public address, runs in a network namespace: test/cimd/public-host.test.ts.
 */
import { createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';

import {
  LookupsBusyError, SpecialUseAddressError, createPinnedRequest, lookupSlots, openPinnedSocket, pinAddress, rememberingResolver,
} from '../../lib/cimd/pinned-request.ts';
import type { ResolvedAddress, Resolver } from '../../lib/cimd/pinned-request.ts';

/** A resolver answering `answers` in turn (the last one again when they run out), counting calls. */
function fakeResolver(...answers: (readonly ResolvedAddress[])[]): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (hostname: string) => {
    calls.push(hostname);
    return answers[Math.min(calls.length, answers.length) - 1]!;
  };
  return Object.assign(resolve, { calls });
}

const v4 = (address: string): ResolvedAddress => ({ address, family: 4 });
const v6 = (address: string): ResolvedAddress => ({ address, family: 6 });
const PUBLIC = v4('93.184.215.14');

interface Listener {
  readonly port: number;
  readonly connections: number;
  readonly bytes: number;
  close(): Promise<void>;
}

/** A TCP listener on 127.0.0.1 that counts connections and the bytes they send, and never answers. */
async function listen(): Promise<Listener> {
  let connections = 0;
  let bytes = 0;
  const server: Server = createServer((socket) => {
    connections += 1;
    socket.on('data', (chunk) => { bytes += chunk.length; });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    get connections() { return connections; },
    get bytes() { return bytes; },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('pinAddress', () => {
  it('pins a public literal address without asking the resolver', async () => {
    const resolve = fakeResolver([v4('127.0.0.1')]);
    expect(await pinAddress('8.8.8.8', resolve)).toEqual(v4('8.8.8.8'));
    expect(await pinAddress('[2606:4700:4700::1111]', resolve)).toEqual(v6('2606:4700:4700::1111'));
    expect(resolve.calls).toEqual([]);
  });

  it.each(['127.0.0.1', '0.0.0.0', '[::1]', '[::ffff:7f00:1]', '169.254.169.254', 'localhost', 'app.localhost', 'intranet'])(
    'refuses %s by itself, without asking the resolver', async (hostname) => {
      const resolve = fakeResolver([PUBLIC]);
      await expect(pinAddress(hostname, resolve)).rejects.toThrow(SpecialUseAddressError);
      expect(resolve.calls).toEqual([]);
    },
  );

  it.each([
    ['loopback', [v4('127.0.0.1')], /rebind\.example resolves to 127\.0\.0\.1, which is a special-use IP address or name: loopback/],
    ['a public and a loopback address', [PUBLIC, v4('127.0.0.1')], /resolves to 127\.0\.0\.1/],
    ['a loopback and a public address', [v4('127.0.0.1'), PUBLIC], /resolves to 127\.0\.0\.1/],
    ['cloud metadata', [v4('169.254.169.254')], /link-local/],
    ['a private address', [v4('10.0.0.5')], /private use/],
    ['IPv6 loopback', [v6('::1')], /loopback \(::1\/128\)/],
    ['IPv4-mapped loopback', [v6('::ffff:127.0.0.1')], /IPv4-mapped .* of 127\.0\.0\.1/],
    ['NAT64 of loopback', [v6('64:ff9b::7f00:1')], /NAT64 .* of 127\.0\.0\.1/],
    ['a unique-local address', [PUBLIC, v6('fd00::1')], /unique local/],
    ['a scoped link-local address', [v6('fe80::1%eth0')], /link-local/],
    ['the unspecified address', [v4('0.0.0.0')], /unspecified/],
  ])('refuses a name that resolves to %s', async (_what, answer, message) => {
    const resolve = fakeResolver(answer);
    const refused = pinAddress('rebind.example', resolve);
    await expect(refused).rejects.toThrow(SpecialUseAddressError);
    await expect(refused).rejects.toThrow(message);
    expect(resolve.calls).toEqual(['rebind.example']);
  });

  it('pins the first of several public addresses, asking the resolver once', async () => {
    const resolve = fakeResolver([PUBLIC, v6('2606:4700:4700::1111')], [v4('127.0.0.1')]);
    expect(await pinAddress('docs.example', resolve)).toEqual(PUBLIC);
    expect(resolve.calls).toEqual(['docs.example']);
  });

  it('passes NAT64 of a public address (DNS64)', async () => {
    expect(await pinAddress('docs.example', fakeResolver([v6('64:ff9b::808:808')]))).toEqual(v6('64:ff9b::808:808'));
  });

  it('fails for a name without addresses, or one the resolver cannot resolve', async () => {
    await expect(pinAddress('docs.example', fakeResolver([]))).rejects.toThrow('docs.example has no address');
    const failing: Resolver = async () => { throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }); };
    await expect(pinAddress('docs.example', failing)).rejects.toThrow('ENOTFOUND');
  });

  it('gives up on a slow resolver when the signal aborts', async () => {
    const slow: Resolver = () => new Promise(() => {});
    const started = Date.now();
    await expect(pinAddress('docs.example', slow, AbortSignal.timeout(50))).rejects.toThrow(/timeout|aborted/i);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('rememberingResolver', () => {
  it('answers a host from one lookup for its lifetime, then asks again', async () => {
    let now = 0;
    const base = fakeResolver([PUBLIC], [v4('127.0.0.1')]);
    const resolve = rememberingResolver(base, 10_000, () => now);
    expect(await resolve('docs.example')).toEqual([PUBLIC]);
    now = 9_999;
    expect(await resolve('DOCS.example')).toEqual([PUBLIC]);
    expect(base.calls).toEqual(['docs.example']);
    now = 10_000;
    expect(await resolve('docs.example')).toEqual([v4('127.0.0.1')]);
    expect(base.calls).toEqual(['docs.example', 'docs.example']);
  });

  it('keeps hosts apart and remembers no failure', async () => {
    let fail = true;
    const resolve = rememberingResolver(async (hostname) => {
      if (fail) throw new Error('ENOTFOUND');
      return [hostname === 'a.example' ? PUBLIC : v4('8.8.8.8')];
    });
    await expect(resolve('a.example')).rejects.toThrow('ENOTFOUND');
    fail = false;
    expect(await resolve('a.example')).toEqual([PUBLIC]);
    expect(await resolve('b.example')).toEqual([v4('8.8.8.8')]);
  });
});

describe('rememberingResolver: lookups under way', () => {
  /** A resolver whose lookups answer only when released, each call recorded. */
  function heldResolver() {
    const calls: string[] = [];
    const waiting = new Map<string, (answer: readonly ResolvedAddress[]) => void>();
    const resolver: Resolver = (hostname) => {
      calls.push(hostname);
      return new Promise((answer) => waiting.set(hostname, answer));
    };
    return { resolver, calls, answer: (hostname: string) => waiting.get(hostname)!([PUBLIC]) };
  }

  it('shares a lookup of a name under way: the guard\'s and the fetch\'s are one', async () => {
    const held = heldResolver();
    const resolve = rememberingResolver(held.resolver);
    const first = resolve('docs.example');
    const second = resolve('DOCS.example');
    held.answer('docs.example');
    expect(await Promise.all([first, second])).toEqual([[PUBLIC], [PUBLIC]]);
    expect(held.calls).toEqual(['docs.example']);
  });

  it('refuses another name at once while every slot is taken, counting a lookup given up on until it answers', async () => {
    const held = heldResolver();
    const resolve = rememberingResolver(held.resolver, 10_000, Date.now, 1);
    // the caller stops waiting (the guard's timeout); the lookup itself runs on
    await expect(pinAddress('slow.example', resolve, AbortSignal.timeout(20))).rejects.toThrow(/timeout|aborted/i);
    const busy = await resolve('other.example').then(() => undefined, (e: unknown) => e);
    expect(busy).toBeInstanceOf(LookupsBusyError);
    expect(busy).toMatchObject({ reason: 'network', message: 'other.example was not looked up: 1 host lookups for metadata documents are under way' });
    expect(held.calls).toEqual(['slow.example']);
    // once it answers, the slot is free again
    held.answer('slow.example');
    await new Promise((resolve) => setImmediate(resolve));
    const next = resolve('other.example');
    held.answer('other.example');
    expect(await next).toEqual([PUBLIC]);
  });

  it.each([[4, 1], [1, 1], [2, 1], [8, 3], [64, 31]])('with a thread pool of %i, %i lookup slot(s): one fewer than libuv runs such work on, at least one', (threads, slots) => {
    expect(lookupSlots(threads)).toBe(slots);
  });
});

describe('the pinned request', () => {
  let listener: Listener;
  beforeEach(async () => { listener = await listen(); });
  afterEach(async () => { await listener.close(); });

  it('opens no connection to a name that resolves to loopback, nor to any literal form of it', async () => {
    const resolve = fakeResolver([v4('127.0.0.1')]);
    const request = createPinnedRequest({ resolve });
    const hosts = ['rebind.example', '127.0.0.1', '127.1', '2130706433', '0x7f000001', '0177.0.0.1', '[::ffff:127.0.0.1]', 'localhost', '0.0.0.0'];
    for (const host of hosts) {
      await expect(request(`https://${host}:${listener.port}/client.json`, { method: 'GET', headers: {} })).rejects.toThrow(SpecialUseAddressError);
    }
    expect(resolve.calls).toEqual(['rebind.example']);
    expect(listener.connections).toBe(0);
  });

  it('refuses what it cannot fetch safely: http, credentials in the URL', async () => {
    const request = createPinnedRequest({ resolve: fakeResolver([PUBLIC]) });
    await expect(request(`http://docs.example:${listener.port}/c.json`, {})).rejects.toThrow(/only https/);
    await expect(request(`https://u:p@docs.example:${listener.port}/c.json`, {})).rejects.toThrow(/credentials/);
    expect(listener.connections).toBe(0);
  });
});

describe('the connect-time check (defence in depth)', () => {
  it('closes a connection whose peer is special-use before writing a byte', async () => {
    const listener = await listen();
    try {
      // as if a pinned address had slipped through: the check after connecting still holds
      await expect(openPinnedSocket(v4('127.0.0.1'), listener.port)).rejects.toThrow(/special-use IP address or name: loopback/);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(listener.connections).toBe(1);
      expect(listener.bytes).toBe(0);
    } finally {
      await listener.close();
    }
  });

  it('ends when the signal aborts', async () => {
    const controller = new AbortController();
    controller.abort(new Error('timed out'));
    await expect(openPinnedSocket(PUBLIC, 443, controller.signal)).rejects.toThrow('timed out');
  });
});
