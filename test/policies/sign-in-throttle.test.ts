/**
 * The sign-in throttle rule without HTTP: the back-off, the window, what a success gives
 * back, the client address, and the throttle over the memory adapter (with and without
 * compare-and-set).
 */
import { createHash } from 'node:crypto';

import { createMemoryAdapter } from '../../adapters/memory.ts';
import type { AdapterFactory } from '../../adapters/types.ts';
import {
  RECENT_KEPT, SIGN_IN_THROTTLE_MODEL, SignInThrottler, addressKeyOf, clientAddress, delayAfter, normaliseEmail, release, reserve, retryAfterOf,
} from '../../lib/policies/sign-in-throttle.ts';
import type { SignInThrottleSettings, ThrottleBudget, ThrottleRecord } from '../../lib/policies/sign-in-throttle.ts';

const BUDGET: ThrottleBudget = { free: 5, windowSeconds: 900, maxDelaySeconds: 900 };
const SETTINGS: SignInThrottleSettings = { accountFailures: 5, ipFailures: 20, windowSeconds: 900, maxDelaySeconds: 900 };

describe('the back-off', () => {
  it('is free for the first failures, then doubles from 1 s up to the cap', () => {
    expect([0, 4].map((n) => delayAfter(n, BUDGET))).toEqual([0, 0]);
    expect([5, 6, 7, 8, 14, 15, 100, 5000].map((n) => delayAfter(n, BUDGET))).toEqual([1, 2, 4, 8, 512, 900, 900, 900]);
  });

  it('refuses an attempt during the wait with the seconds left, and counts nothing', () => {
    const record: ThrottleRecord = { failures: 7, last: 10_000 };
    expect(reserve(record, BUDGET, 10_000)).toEqual({ allowed: false, retryAfter: 4 });
    expect(reserve(record, BUDGET, 12_500)).toEqual({ allowed: false, retryAfter: 2 });
    expect(reserve(record, BUDGET, 14_000)).toEqual({ allowed: true, next: { failures: 8, last: 14_000, recent: [10_000, 14_000] } });
  });

  it('counts every attempt when it starts, and forgets a key after the window', () => {
    let record: ThrottleRecord | undefined;
    for (let i = 0; i < 5; i += 1) {
      const r = reserve(record, BUDGET, 1000);
      if (!r.allowed) throw new Error('refused within the free budget');
      record = r.next;
    }
    expect(record).toEqual({ failures: 5, last: 1000, recent: [1000, 1000, 1000, 1000, 1000] });
    expect(retryAfterOf(record, BUDGET, 1000)).toBe(1);
    // forgotten the window after its wait (1 s) ends
    expect(reserve(record, BUDGET, 1000 + 900_999)).toMatchObject({ allowed: true, next: { failures: 6, last: 901_999 } });
    expect(reserve(record, BUDGET, 1000 + 901_000)).toEqual({ allowed: true, next: { failures: 1, last: 902_000, recent: [902_000] } });
  });

  it('keeps a key at the cap through the window after its wait: the guess a wait lets through waits the cap again', () => {
    const capped: ThrottleRecord = { failures: 20, last: 0 }; // waits the cap, 900 s
    expect(reserve(capped, BUDGET, 899_000)).toEqual({ allowed: false, retryAfter: 1 });
    expect(reserve(capped, BUDGET, 900_000)).toMatchObject({ allowed: true, next: { failures: 21, last: 900_000 } });
    expect(reserve(capped, BUDGET, 1_799_999)).toMatchObject({ allowed: true, next: { failures: 21, last: 1_799_999 } });
    expect(reserve(capped, BUDGET, 1_800_000)).toMatchObject({ allowed: true, next: { failures: 1, last: 1_800_000 } });
  });

  it('at the defaults, a day of guessing one account at the earliest moments allowed gets 109 guesses', async () => {
    let now = 1_700_000_000_000;
    const throttler = new SignInThrottler(createMemoryAdapter(), SETTINGS, () => now);
    const end = now + 24 * 3600 * 1000;
    let allowed = 0;
    let address = 0;
    while (now < end) {
      // a new address per guess: the per-account limit is what this measures
      const attempt = await throttler.attempt('victim@example.com', `198.51.100.${(address++ % 250) + 1}`);
      if (attempt.allowed) allowed += 1;
      else now += attempt.retryAfter * 1000;
    }
    // 5 free, 10 backed off (1 s … 512 s, 1,023 s in all), then one per 900 s for the rest of
    // the day; forgotten when its wait ended, the key gave 675
    expect(allowed).toBe(15 + Math.floor((24 * 3600 - 1023) / 900));
  });

  it('keeps a key at least until its wait ends, even when the window is shorter', () => {
    const short: ThrottleBudget = { free: 1, windowSeconds: 2, maxDelaySeconds: 60 };
    const record: ThrottleRecord = { failures: 5, last: 0 }; // waits 16 s
    expect(retryAfterOf(record, short, 3000)).toBe(13);
  });

  it('gives an attempt back on release, and nothing is left after the last one', () => {
    expect(release({ failures: 6, last: 5 }, BUDGET, 5, 5)).toEqual({ failures: 5, last: 5 });
    expect(release({ failures: 1, last: 5 }, BUDGET, 5, 5)).toBeUndefined();
    expect(release(undefined, BUDGET, 5, 5)).toBeUndefined();
  });

  it('an attempt given back takes its own time with it: the wait runs from the latest attempt still counted', () => {
    const counted: ThrottleRecord = { failures: 6, last: 1000, recent: [500, 1000] };
    const started = reserve(counted, BUDGET, 9000);
    if (!started.allowed) throw new Error('refused');
    expect(started.next).toEqual({ failures: 7, last: 9000, recent: [500, 1000, 9000] });
    // it succeeded: as if it had never started
    expect(release(started.next, BUDGET, 9500, 9000)).toEqual({ failures: 6, last: 1000, recent: [500, 1000] });
    // within the free failures, two under way at once (one instant, a batch); both succeed:
    // back to where it was
    const few: ThrottleRecord = { failures: 2, last: 1000, recent: [500, 1000] };
    const a = reserve(few, BUDGET, 9000);
    if (!a.allowed) throw new Error('refused');
    const b = reserve(a.next, BUDGET, 9000);
    if (!b.allowed) throw new Error('refused');
    expect(release(release(b.next, BUDGET, 9100, 9000), BUDGET, 9200, 9000)).toEqual(few);
    // a later attempt still under way (or failed) keeps the wait from its own start
    const c = reserve(a.next, BUDGET, 9050);
    if (!c.allowed) throw new Error('refused');
    expect(release(c.next, BUDGET, 9100, 9000)).toEqual({ failures: 3, last: 9050, recent: [500, 1000, 9050] });
  });

  it('when the time of the attempt given back is not known, the wait keeps its start (the cautious side)', () => {
    // a record written before start times were kept
    expect(release({ failures: 6, last: 5000 }, BUDGET, 6000, 4000)).toEqual({ failures: 5, last: 5000 });
    // more attempts since than are kept
    const many = Array.from({ length: RECENT_KEPT }, (_, i) => 10_000 + i);
    expect(release({ failures: 40, last: many.at(-1)!, recent: many }, BUDGET, 20_000, 9_000)).toMatchObject({ failures: 39, last: many.at(-1) });
    // the only kept time given back, older attempts counted whose times are gone
    expect(release({ failures: 3, last: 7000, recent: [7000] }, BUDGET, 7500, 7000)).toEqual({ failures: 2, last: 7000, recent: [] });
  });
});

describe('keys and addresses', () => {
  it('normalises the email: case, surrounding space, compatibility forms', () => {
    expect(normaliseEmail('  Student@Example.COM ')).toBe('student@example.com');
    expect(normaliseEmail('ｓtudent@example.com')).toBe('student@example.com');
  });

  it('counts IPv6 clients by /64 and IPv4-mapped addresses as IPv4', () => {
    expect(addressKeyOf('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressKeyOf('2001:0db8:0001:0002:ffff:0:0:9')).toBe('2001:db8:1:2::/64');
    expect(addressKeyOf('::1')).toBe('0:0:0:0::/64');
    expect(addressKeyOf('::ffff:10.0.0.7')).toBe('10.0.0.7');
    expect(addressKeyOf('10.0.0.7')).toBe('10.0.0.7');
  });

  it('counts an IPv4 client seen through a translator as its IPv4 address, in any spelling', () => {
    expect(addressKeyOf('::ffff:cb00:7109')).toBe('203.0.113.9');
    expect(addressKeyOf('0:0:0:0:0:FFFF:CB00:7109')).toBe('203.0.113.9');
    // IPv4-translated (RFC 6145) and the NAT64 well-known prefix (RFC 6052)
    expect(addressKeyOf('::ffff:0:cb00:7109')).toBe('203.0.113.9');
    expect(addressKeyOf('::ffff:0:203.0.113.9')).toBe('203.0.113.9');
    expect(addressKeyOf('64:ff9b::c633:6407')).toBe('198.51.100.7');
    expect(addressKeyOf('64:ff9b::198.51.100.7')).toBe('198.51.100.7');
    // not the same prefixes: counted by /64 as before
    expect(addressKeyOf('64:ff9b:1::c633:6407')).toBe('64:ff9b:1:0::/64');
    expect(addressKeyOf('::fffe:cb00:7109')).toBe('0:0:0:0::/64');
    expect(addressKeyOf('2001:db8::ffff:cb00:7109')).toBe('2001:db8:0:0::/64');
  });

  it('one IPv4 client behind a NAT64 gateway spends only its own address budget', async () => {
    const throttler = new SignInThrottler(createMemoryAdapter(), { ...SETTINGS, ipFailures: 3 });
    // failures on different accounts from 198.51.100.7 until its address is refused
    const refused = [];
    for (let i = 0; i < 5; i += 1) refused.push((await throttler.attempt(`victim${i}@example.com`, '64:ff9b::c633:6407')).allowed);
    expect(refused).toContain(false);
    // another IPv4 client of the same gateway (203.0.113.9) is still let in
    expect((await throttler.attempt('someone@example.com', '64:ff9b::cb00:7109')).allowed).toBe(true);
  });

  it('never reads X-Forwarded-For without proxy', () => {
    expect(clientAddress({ socketAddress: '10.0.0.1', forwardedFor: '203.0.113.9', proxy: false, hops: 1 })).toBe('10.0.0.1');
  });

  it('with proxy, takes the entry `hops` places from the right, as Koa with maxIpsCount', () => {
    const forwardedFor = '198.51.100.66, 203.0.113.9, 192.0.2.10';
    // the client wrote 198.51.100.66 itself; the nearest proxy appended 192.0.2.10
    expect(clientAddress({ socketAddress: '10.0.0.1', forwardedFor, proxy: true, hops: 1 })).toBe('192.0.2.10');
    expect(clientAddress({ socketAddress: '10.0.0.1', forwardedFor, proxy: true, hops: 2 })).toBe('203.0.113.9');
    expect(clientAddress({ socketAddress: '10.0.0.1', forwardedFor: '192.0.2.10', proxy: true, hops: 3 })).toBe('192.0.2.10');
    expect(clientAddress({ socketAddress: '::ffff:10.0.0.1', forwardedFor: undefined, proxy: true, hops: 1 })).toBe('10.0.0.1');
    expect(clientAddress({ socketAddress: '10.0.0.1', forwardedFor: ' , ', proxy: true, hops: 1 })).toBe('10.0.0.1');
  });

  it('reads a forwarded entry without the port a proxy wrote into it: a new source port is no new budget', () => {
    const at = (forwardedFor: string) => clientAddress({ socketAddress: '10.0.0.1', forwardedFor, proxy: true, hops: 1 });
    expect(at('203.0.113.7:40001')).toBe('203.0.113.7');
    expect(at('198.51.100.66, 203.0.113.7:40002')).toBe('203.0.113.7');
    expect(at('[2001:db8:9:9::1]:40001')).toBe('2001:db8:9:9::1');
    expect(at('[2001:db8:9:9::1]')).toBe('2001:db8:9:9::1');
    expect(addressKeyOf(at('[2001:db8:9:9::1]:1'))).toBe(addressKeyOf(at('[2001:db8:9:9::2]:2')));
    // anything else is kept as given (and counted as one address)
    expect(at('999.1.1.1:80')).toBe('999.1.1.1:80');
    expect(at('unknown')).toBe('unknown');
  });
});

/** A memory adapter without compareAndSet: the read-modify-write path. */
function withoutCompareAndSet(inner: AdapterFactory): AdapterFactory {
  return (model) => {
    const adapter = inner(model);
    return {
      upsert: adapter.upsert.bind(adapter),
      find: adapter.find.bind(adapter),
      findByUid: adapter.findByUid.bind(adapter),
      findByUserCode: adapter.findByUserCode.bind(adapter),
      consume: adapter.consume.bind(adapter),
      destroy: adapter.destroy.bind(adapter),
      revokeByGrantId: adapter.revokeByGrantId.bind(adapter),
    };
  };
}

describe.each([
  ['with compareAndSet', (f: AdapterFactory) => f],
  ['read-modify-write', withoutCompareAndSet],
])('SignInThrottler over the memory adapter (%s)', (_name, wrap) => {
  function setup(settings: SignInThrottleSettings | false = SETTINGS) {
    let now = 1_000_000;
    const adapter = createMemoryAdapter();
    const throttler = new SignInThrottler(wrap(adapter), settings, () => now);
    return { throttler, adapter, advance: (ms: number) => { now += ms; } };
  }

  it('allows 5 failures of an account, then makes the next wait, whatever address it comes from', async () => {
    const { throttler, advance } = setup();
    for (let i = 0; i < 5; i += 1) expect((await throttler.attempt('ada@example.com', `10.0.0.${i}`)).allowed).toBe(true);
    expect(await throttler.attempt('ADA@example.com ', '10.0.0.99')).toEqual({ allowed: false, retryAfter: 1 });
    advance(1000);
    expect((await throttler.attempt('ada@example.com', '10.0.0.99')).allowed).toBe(true);
    expect(await throttler.attempt('ada@example.com', '10.0.0.99')).toEqual({ allowed: false, retryAfter: 2 });
  });

  it('throttles one address guessing many accounts after its own budget', async () => {
    const { throttler } = setup();
    for (let i = 0; i < 20; i += 1) expect((await throttler.attempt(`user${i}@example.com`, '10.0.0.1')).allowed).toBe(true);
    expect(await throttler.attempt('someone@example.com', '10.0.0.1')).toEqual({ allowed: false, retryAfter: 1 });
    // the refused attempt was given back to the account
    expect((await throttler.attempt('someone@example.com', '10.0.0.2')).allowed).toBe(true);
  });

  it('a success forgets the account and gives the address its attempt back', async () => {
    const { throttler, adapter } = setup();
    for (let i = 0; i < 4; i += 1) await throttler.attempt('ada@example.com', '10.0.0.1');
    const ok = await throttler.attempt('ada@example.com', '10.0.0.1');
    if (!ok.allowed) throw new Error('refused');
    await ok.succeeded();
    expect((await throttler.attempt('ada@example.com', '10.0.0.1')).allowed).toBe(true);
    // one failure left on the account (the attempt just made), four on the address
    const store = adapter(SIGN_IN_THROTTLE_MODEL);
    const { createHash } = await import('node:crypto');
    const key = (kind: string, v: string) => `${kind}:${createHash('sha256').update(v).digest('base64url')}`;
    expect(await store.find(key('account', 'ada@example.com'))).toMatchObject({ failures: 1 });
    expect(await store.find(key('ip', '10.0.0.1'))).toMatchObject({ failures: 5 });
  });

  it('many signing in successfully from one address never throttle it', async () => {
    const { throttler } = setup();
    for (let i = 0; i < 200; i += 1) {
      const attempt = await throttler.attempt(`user${i % 7}@example.com`, '127.0.0.1');
      if (!attempt.allowed) throw new Error(`refused at ${i}`);
      await attempt.succeeded();
    }
  });

  it('a school address past its free failures: successes neither restart its wait nor keep it remembered', async () => {
    const { throttler, adapter, advance } = setup();
    // 20 typos through the school's one address: its free failures are spent, the next waits 1 s
    for (let i = 0; i < 20; i += 1) expect((await throttler.attempt(`typo${i}@example.com`, '10.0.0.1')).allowed).toBe(true);
    expect(await throttler.attempt('ada@example.com', '10.0.0.1')).toEqual({ allowed: false, retryAfter: 1 });
    advance(1000);
    // then only successes, one right after another, for longer than the wait and the window
    for (let i = 0; i < 20; i += 1) {
      const attempt = await throttler.attempt(`pupil${i % 3}@example.com`, '10.0.0.1');
      if (!attempt.allowed) throw new Error(`success ${i} refused for ${attempt.retryAfter} s`);
      await attempt.succeeded();
      advance(50_000);
    }
    // forgotten the window after the wait its last failure earned, whatever succeeded since
    const key = `ip:${createHash('sha256').update('10.0.0.1').digest('base64url')}`;
    expect(await adapter(SIGN_IN_THROTTLE_MODEL).find(key)).toBeUndefined();
  });

  it('counts concurrent attempts one by one: no more than the budget slip through together', async () => {
    const { throttler } = setup();
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => throttler.attempt('ada@example.com', `10.0.1.${i}`)));
    expect(results.filter((r) => r.allowed)).toHaveLength(5);
  });

  it('does nothing when off', async () => {
    const { throttler, adapter } = setup(false);
    expect(throttler.enabled).toBe(false);
    for (let i = 0; i < 100; i += 1) expect((await throttler.attempt('ada@example.com', '10.0.0.1')).allowed).toBe(true);
    expect(await adapter(SIGN_IN_THROTTLE_MODEL).find(`account:${'x'}`)).toBeUndefined();
  });
});

describe('compareAndSet under racing instances', () => {
  it('loses no attempt when two throttlers on one store race', async () => {
    const adapter = createMemoryAdapter();
    const a = new SignInThrottler(adapter, SETTINGS);
    const b = new SignInThrottler(adapter, SETTINGS);
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).attempt('ada@example.com', `10.0.2.${i}`)));
    expect(results.filter((r) => r.allowed)).toHaveLength(5);
  });
});

/** The stored key of an account (normalised email) or an address, as the throttle names it. */
function hashedKey(kind: 'account' | 'ip', value: string): string {
  return `${kind}:${createHash('sha256').update(value).digest('base64url')}`;
}

describe('what a sign-in costs the storage', () => {
  /** the memory adapter's SignInThrottle model, counting its calls */
  function counting() {
    const inner = createMemoryAdapter();
    const calls: string[] = [];
    /** the key of each call, beside `calls` */
    const keys: string[] = [];
    const factory = ((model: string) => {
      const adapter = inner(model) as ReturnType<typeof inner> & { compareAndSet: (...a: unknown[]) => Promise<boolean> };
      if (model !== SIGN_IN_THROTTLE_MODEL) return adapter;
      return new Proxy(adapter, {
        get(target, name, receiver) {
          const value = Reflect.get(target, name, receiver) as unknown;
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            calls.push(String(name));
            keys.push(String(args[0]));
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      });
    }) as AdapterFactory;
    return { factory, calls, keys, inner };
  }

  it('sign-ins from one address at once write its counter together, not one round trip each', async () => {
    const { factory, calls, keys } = counting();
    const throttler = new SignInThrottler(factory, SETTINGS);
    const address = hashedKey('ip', '10.0.6.1');
    const writesOf = (key: string) => calls.filter((call, i) => call === 'compareAndSet' && keys[i] === key).length;
    // ten people behind one school address: the first update goes out alone, the nine that
    // arrive while it is under way are written with one compare-and-set after it
    const attempts = await Promise.all(Array.from({ length: 10 }, (_, i) => throttler.attempt(`pupil${i}@example.com`, '10.0.6.1')));
    expect(attempts.every((a) => a.allowed)).toBe(true);
    expect(writesOf(address)).toBe(2);
    expect(await factory(SIGN_IN_THROTTLE_MODEL).find(address)).toMatchObject({ failures: 10 });
    calls.length = 0;
    keys.length = 0;
    await Promise.all(attempts.map((a) => (a.allowed ? a.succeeded() : undefined)));
    expect(writesOf(address)).toBe(2);
    // every attempt given back, as when written one by one
    expect(await factory(SIGN_IN_THROTTLE_MODEL).find(address)).toBeUndefined();
  });

  it('changes written together decide each attempt as if written one by one', async () => {
    const { factory } = counting();
    const throttler = new SignInThrottler(factory, SETTINGS);
    // 30 accounts guessed from one address at once: its budget of 20 lets exactly 20 through
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => throttler.attempt(`user${i}@example.com`, '10.0.7.1')));
    expect(results.filter((r) => r.allowed)).toHaveLength(20);
    expect(results.filter((r) => !r.allowed)).toEqual(Array.from({ length: 10 }, () => ({ allowed: false, retryAfter: 1 })));
    expect(await factory(SIGN_IN_THROTTLE_MODEL).find(hashedKey('ip', '10.0.7.1'))).toMatchObject({ failures: 20 });
    // the refused attempts were given back to their accounts
    const refusedAccount = `user${results.findIndex((r) => !r.allowed)}@example.com`;
    expect(await factory(SIGN_IN_THROTTLE_MODEL).find(hashedKey('account', refusedAccount))).toBeUndefined();
  });

  it('a returning account costs one compare-and-set per update and no read, once this process wrote the keys', async () => {
    const { factory, calls } = counting();
    const throttler = new SignInThrottler(factory, SETTINGS);
    const first = await throttler.attempt('ada@example.com', '10.0.3.1');
    if (first.allowed) await first.succeeded();
    calls.length = 0;
    const again = await throttler.attempt('ada@example.com', '10.0.3.1');
    expect(again.allowed).toBe(true);
    if (again.allowed) await again.succeeded();
    // two reservations, then forgetting the account and giving the address its attempt back
    expect(calls).toEqual(['compareAndSet', 'compareAndSet', 'compareAndSet', 'compareAndSet']);
  });

  it('reads the key again when another instance changed it since this one wrote it', async () => {
    const { factory } = counting();
    const here = new SignInThrottler(factory, SETTINGS);
    const there = new SignInThrottler(factory, SETTINGS);
    const warm = await here.attempt('ada@example.com', '10.0.4.1');
    if (warm.allowed) await warm.succeeded();
    // five failures counted on the other instance: this one's remembered "absent" is stale
    for (let i = 0; i < 5; i += 1) expect((await there.attempt('ada@example.com', `10.0.5.${i}`)).allowed).toBe(true);
    const refused = await here.attempt('ada@example.com', '10.0.4.1');
    expect(refused.allowed).toBe(false);
  });
});

describe('what one instance remembers never outlives what another did', () => {
  it('a refusal is decided on a read: an account forgotten by another instance is not refused on a stale memory', async () => {
    const adapter = createMemoryAdapter();
    let now = 1_000_000;
    const clock = () => now;
    const here = new SignInThrottler(adapter, SETTINGS, clock);
    const there = new SignInThrottler(adapter, SETTINGS, clock);
    // five failures here (never succeeded), the sixth is refused here
    for (let i = 0; i < 5; i += 1) expect((await here.attempt('ada@example.com', `10.0.6.${i}`)).allowed).toBe(true);
    expect((await here.attempt('ada@example.com', '10.0.6.9')).allowed).toBe(false);
    // the wait passes; a success on the other instance forgets the account
    now += 2_000;
    const elsewhere = await there.attempt('ada@example.com', '10.0.7.1');
    expect(elsewhere.allowed).toBe(true);
    if (elsewhere.allowed) await elsewhere.succeeded();
    expect((await here.attempt('ada@example.com', '10.0.6.1')).allowed).toBe(true);
  });

  it('a success forgets the account even while another instance keeps changing it', async () => {
    const adapter = createMemoryAdapter();
    const a = new SignInThrottler(adapter, SETTINGS);
    const b = new SignInThrottler(adapter, SETTINGS);
    const attempts = await Promise.all(Array.from({ length: 4 }, (_, i) => (i % 2 ? a : b).attempt('bo@example.com', `10.0.8.${i}`)));
    await Promise.all(attempts.map((attempt) => (attempt.allowed ? attempt.succeeded() : undefined)));
    expect(await adapter(SIGN_IN_THROTTLE_MODEL).find('x')).toBeUndefined();
    // nothing left counted: five more failures are free again
    for (let i = 0; i < 5; i += 1) expect((await a.attempt('bo@example.com', `10.0.9.${i}`)).allowed).toBe(true);
  });
});
