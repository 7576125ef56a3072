/**
 * A rate per client address (IPv6: per /64, as the sign-in throttle counts it), shared by
 * every instance through the adapter: the open-registration rate limit
 * (./registration-limits.ts) and the authorization-request rate limit
 * (./authorization-rate.ts) are each one of these, under a model of their own.
 *
 * A bucket of `perIp` units, refilled at `perIp` per `windowSeconds`: a burst of `perIp` is
 * served, then one unit every `windowSeconds / perIp` seconds; a request that would overdraw
 * it is refused with the seconds until it would be served (`Retry-After`). A request may cost
 * more than one unit (an authorization request costs by its size); it never costs more than
 * the whole bucket, so any request is served from a full one.
 *
 * The state is one timestamp per address (GCRA, the "generic cell rate algorithm" of ATM
 * networks); addresses are stored hashed (SHA-256).
 *
 * @module
 */
import { createHash } from 'node:crypto';

import type { Adapter, AdapterFactory, AdapterPayload, CompareAndSet } from '../../adapters/types.ts';
import { RecordUpdater } from '../storage/record-update.ts';
import { addressKeyOf } from './sign-in-throttle.ts';

/** A rate's settings (`{ perIp, windowSeconds }` of the options). */
export interface AddressRateSettings {
  /** units one address may spend at once; the bucket's size */
  readonly perIp: number;
  /** seconds in which a drained bucket is full again */
  readonly windowSeconds: number;
}

/**
 * One address's state: the "theoretical arrival time" of GCRA, epoch milliseconds. The
 * bucket is full when it is in the past; each unit spent moves it `window / perIp` later.
 */
export interface RateRecord {
  readonly tat: number;
}

export type Admission =
  | { readonly allowed: true; readonly next: RateRecord; /** seconds to keep `next` */ readonly keepFor: number }
  | { readonly allowed: false; /** whole seconds until the request would be served */ readonly retryAfter: number };

/**
 * A request costing `cost` units (at least 1, at most `perIp`) from an address in state
 * `record` at `now` (epoch ms): served, or how long to wait.
 */
export function admit(record: RateRecord | undefined, settings: AddressRateSettings, now: number, cost = 1): Admission {
  // whole milliseconds, so that a burst is exactly `perIp` (fractions would drift as they add up)
  const interval = Math.max(1, Math.floor((settings.windowSeconds * 1000) / settings.perIp));
  const units = Math.min(Math.max(1, Math.ceil(cost)), settings.perIp);
  // served while the bucket still holds `units`: the state may run at most `perIp - units` intervals ahead
  const tolerance = (settings.perIp - units) * interval;
  const tat = Math.max(record?.tat ?? now, now);
  if (tat - now > tolerance) return { allowed: false, retryAfter: Math.max(1, Math.ceil((tat - tolerance - now) / 1000)) };
  const next = tat + units * interval;
  return { allowed: true, next: { tat: next }, keepFor: Math.max(1, Math.ceil((next - now) / 1000)) };
}

/** The record key of an address: its budget's unit (IPv6 /64), hashed. */
export const addressRecordKey = (address: string) => `ip:${createHash('sha256').update(addressKeyOf(address)).digest('base64url')}`;

function asRecord(payload: AdapterPayload | undefined): RateRecord | undefined {
  return typeof payload?.tat === 'number' ? { tat: payload.tat } : undefined;
}

/** What a request may do. */
export type RateAdmission = { readonly allowed: true } | { readonly allowed: false; readonly retryAfter: number };

const ALLOWED: RateAdmission = Object.freeze({ allowed: true });

/** One rate per client address over the storage adapter, its state under `model`. */
export class AddressRateLimiter {
  readonly enabled: boolean;
  readonly #records: RecordUpdater | undefined;
  readonly #settings: AddressRateSettings;
  readonly #now: () => number;

  constructor(adapter: AdapterFactory, model: string, settings: AddressRateSettings | false, now: () => number = Date.now) {
    this.enabled = settings !== false;
    this.#records = settings === false ? undefined : new RecordUpdater(adapter(model) as Adapter & Partial<CompareAndSet>);
    this.#settings = settings || { perIp: 1, windowSeconds: 1 };
    this.#now = now;
  }

  /** Counts a request costing `cost` units from `address` (the client's IP), or refuses it. */
  async attempt(address: string, cost = 1): Promise<RateAdmission> {
    if (!this.#records) return ALLOWED;
    let outcome: Admission | undefined;
    const applied = await this.#records.update(addressRecordKey(address), (stored) => {
      outcome = admit(asRecord(stored), this.#settings, this.#now(), cost);
      return outcome.allowed ? { payload: { tat: outcome.next.tat }, expiresIn: outcome.keepFor } : undefined;
    });
    // a key that kept changing under us is being hammered: refusing is the safe side
    if (!applied || !outcome) return { allowed: false, retryAfter: 1 };
    return outcome.allowed ? ALLOWED : { allowed: false, retryAfter: outcome.retryAfter };
  }
}
