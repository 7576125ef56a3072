/**
 * The rate per client address without HTTP: GCRA with a cost per request (what an
 * authorization request spends by its size), and the limiter over the memory adapter.
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import { AddressRateLimiter, admit } from '../../lib/policies/address-rate.ts';
import type { RateRecord } from '../../lib/policies/address-rate.ts';

// five units per minute: one every 12 s
const SETTINGS = { perIp: 5, windowSeconds: 60 };
const INTERVAL = 12_000;

function spend(costs: number[], now: number): { record: RateRecord | undefined; allowed: boolean[] } {
  let record: RateRecord | undefined;
  const allowed = costs.map((cost) => {
    const a = admit(record, SETTINGS, now, cost);
    if (a.allowed) record = a.next;
    return a.allowed;
  });
  return { record, allowed };
}

describe('admit with a cost', () => {
  it('a request of 3 units spends 3 of the bucket: two of 1 after it, then none', () => {
    expect(spend([3, 1, 1, 1], 0).allowed).toEqual([true, true, true, false]);
    // counted as one each, the fourth would pass: the cost is what bounds the bytes
    expect(spend([1, 1, 1, 1], 0).allowed).toEqual([true, true, true, true]);
  });

  it('says how long a request of its cost waits, which is longer for a larger one', () => {
    const { record } = spend([5], 0);
    expect(admit(record, SETTINGS, 0, 1)).toEqual({ allowed: false, retryAfter: 12 });
    expect(admit(record, SETTINGS, 0, 3)).toEqual({ allowed: false, retryAfter: 36 });
    // after 36 s three units are back
    expect(admit(record, SETTINGS, 3 * INTERVAL, 3)).toEqual({ allowed: true, next: { tat: 5 * INTERVAL + 3 * INTERVAL }, keepFor: 60 });
  });

  it('never costs more than the whole bucket, so any request passes on a full one', () => {
    expect(admit(undefined, SETTINGS, 0, 50)).toEqual({ allowed: true, next: { tat: 5 * INTERVAL }, keepFor: 60 });
    expect(admit({ tat: 1 }, SETTINGS, 0, 50)).toEqual({ allowed: false, retryAfter: 1 });
  });

  it('a cost below one, or a fraction, counts as whole units', () => {
    expect(admit(undefined, SETTINGS, 0, 0)).toEqual(admit(undefined, SETTINGS, 0, 1));
    expect(admit(undefined, SETTINGS, 0, 1.2)).toEqual(admit(undefined, SETTINGS, 0, 2));
  });
});

describe('AddressRateLimiter', () => {
  it('keeps each model\'s budget apart, and each address\'s', async () => {
    const adapter = createMemoryAdapter();
    let now = 1_000_000;
    const a = new AddressRateLimiter(adapter, 'ModelA', SETTINGS, () => now);
    const b = new AddressRateLimiter(adapter, 'ModelB', SETTINGS, () => now);
    expect(await a.attempt('203.0.113.1', 5)).toEqual({ allowed: true });
    expect(await a.attempt('203.0.113.1', 1)).toEqual({ allowed: false, retryAfter: 12 });
    expect(await b.attempt('203.0.113.1', 1)).toEqual({ allowed: true });
    expect(await a.attempt('203.0.113.2', 1)).toEqual({ allowed: true });
    now += INTERVAL;
    expect(await a.attempt('203.0.113.1', 1)).toEqual({ allowed: true });
  });

  it('false: every request allowed, nothing stored', async () => {
    const adapter = createMemoryAdapter();
    const off = new AddressRateLimiter(adapter, 'ModelA', false);
    expect(off.enabled).toBe(false);
    for (let i = 0; i < 20; i += 1) expect(await off.attempt('203.0.113.1', 8)).toEqual({ allowed: true });
  });
});
