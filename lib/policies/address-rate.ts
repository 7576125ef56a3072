/**
 * A rate per client address (IPv6: per /64, as the sign-in throttle counts it): the
 * open-registration rate limit (./registration-limits.ts) and the authorization-request rate
 * limit (./authorization-rate.ts) are each one of these, under a model of their own. The
 * budget itself (GCRA, shared through the adapter) is ./rate-budget.ts; addresses are stored
 * hashed (SHA-256).
 *
 * @module
 */
import { createHash } from 'node:crypto';

import type { AdapterFactory } from '../../adapters/types.ts';
import { admitWithin, RateBudget } from './rate-budget.ts';
import type { Admission, RateAdmission, RateRecord } from './rate-budget.ts';
import { addressKeyOf } from './sign-in-throttle.ts';

export type { Admission, RateAdmission, RateRecord };

/** A rate's settings (`{ perIp, windowSeconds }` of the options). */
export interface AddressRateSettings {
  /** units one address may spend at once; the bucket's size */
  readonly perIp: number;
  /** seconds in which a drained bucket is full again */
  readonly windowSeconds: number;
}

const budgetOf = (settings: AddressRateSettings) => ({ size: settings.perIp, windowSeconds: settings.windowSeconds });

/**
 * A request costing `cost` units (at least 1, at most `perIp`) from an address in state
 * `record` at `now` (epoch ms): served, or how long to wait.
 */
export function admit(record: RateRecord | undefined, settings: AddressRateSettings, now: number, cost = 1): Admission {
  return admitWithin(record, budgetOf(settings), now, cost);
}

/** The record key of an address: its budget's unit (IPv6 /64), hashed. */
export const addressRecordKey = (address: string) => `ip:${createHash('sha256').update(addressKeyOf(address)).digest('base64url')}`;

/** One rate per client address over the storage adapter, its state under `model`. */
export class AddressRateLimiter {
  readonly enabled: boolean;
  readonly #budget: RateBudget;

  constructor(adapter: AdapterFactory, model: string, settings: AddressRateSettings | false, now: () => number = Date.now) {
    this.enabled = settings !== false;
    this.#budget = new RateBudget(adapter, model, settings === false ? false : budgetOf(settings), now);
  }

  /** Counts a request costing `cost` units from `address` (the client's IP), or refuses it. */
  attempt(address: string, cost = 1): Promise<RateAdmission> {
    return this.#budget.attempt(addressRecordKey(address), cost);
  }
}
