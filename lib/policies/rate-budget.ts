/**
 * A budget of units per key, shared by every instance through the adapter: the rates per
 * client address (./address-rate.ts: open registration, authorization requests) and the
 * refresh rate per grant (./refresh-rate.ts) are each one of these, under a model of their own.
 *
 * A bucket of `size` units, refilled at `size` per `windowSeconds`: a burst of `size` is
 * served, then one unit every `windowSeconds / size` seconds; a request that would overdraw
 * it is refused with the seconds until it would be served (`Retry-After`). A request may cost
 * more than one unit (an authorization request costs by its size); it never costs more than
 * the whole bucket, so any request is served from a full one.
 *
 * The state is one timestamp per key (GCRA, the "generic cell rate algorithm" of ATM
 * networks), spent in one atomic step where the adapter has `spendBudget` (both adapters
 * here: one round trip on Redis), otherwise read and written with its compare-and-set where
 * it has one, so instances counting one key at once do not lose each other's units.
 *
 * @module
 */
import { budgetKeptFor } from '../../adapters/types.ts';
import type { Adapter, AdapterFactory, AdapterPayload, BudgetSpent, CompareAndSet, SpendBudget } from '../../adapters/types.ts';
import { RecordUpdater } from '../storage/record-update.ts';

/** A budget's size and refill. */
export interface BudgetSettings {
  /** units one key may spend at once; the bucket's size */
  readonly size: number;
  /** seconds in which a drained bucket is full again */
  readonly windowSeconds: number;
}

/**
 * One key's state: the "theoretical arrival time" of GCRA, epoch milliseconds. The bucket is
 * full when it is in the past; each unit spent moves it `window / size` later.
 */
export interface RateRecord {
  readonly tat: number;
}

export type Admission =
  | { readonly allowed: true; readonly next: RateRecord; /** seconds to keep `next` */ readonly keepFor: number }
  | { readonly allowed: false; /** whole seconds until the request would be served */ readonly retryAfter: number };

/** One request's step of GCRA: how far the state may run ahead, and how far the request moves it. */
export interface Step {
  /** milliseconds the state may be ahead of now for the request to be served */
  readonly tolerance: number;
  /** milliseconds the request moves the state */
  readonly step: number;
}

/** A step planned at `now` (epoch ms), for an adapter to spend ({@link RateBudget.plan}). */
export interface PlannedStep extends Step {
  readonly now: number;
}

/**
 * The step of a request costing `cost` units; `reserve` units more may be overdrawn beyond the
 * bucket for it (a request that must not wait: the refresh rate's retries).
 */
function stepOf(budget: BudgetSettings, cost: number, reserve = 0): Step {
  // whole milliseconds, so that a burst is exactly `size` (fractions would drift as they add up)
  const interval = Math.max(1, Math.floor((budget.windowSeconds * 1000) / budget.size));
  const units = Math.min(Math.max(1, Math.ceil(cost)), budget.size);
  // served while the bucket still holds `units`: the state may run at most `size - units` intervals ahead
  return { tolerance: (budget.size - units + reserve) * interval, step: units * interval };
}

/** Whole seconds until a request of `step` is served from a budget at `tat`. */
function waitFrom(tat: number, now: number, { tolerance }: Step): number {
  return Math.max(1, Math.ceil((tat - tolerance - now) / 1000));
}

/**
 * A request costing `cost` units (at least 1, at most `size`) from a key in state `record` at
 * `now` (epoch ms): served, or how long to wait.
 */
export function admitWithin(record: RateRecord | undefined, budget: BudgetSettings, now: number, cost = 1, reserve = 0): Admission {
  const step = stepOf(budget, cost, reserve);
  const tat = Math.max(record?.tat ?? now, now);
  if (tat - now > step.tolerance) return { allowed: false, retryAfter: waitFrom(tat, now, step) };
  const next = tat + step.step;
  return { allowed: true, next: { tat: next }, keepFor: budgetKeptFor(next, now) };
}

function asRecord(payload: AdapterPayload | undefined): RateRecord | undefined {
  return typeof payload?.tat === 'number' ? { tat: payload.tat } : undefined;
}

/** What a request may do. */
export type RateAdmission = { readonly allowed: true } | { readonly allowed: false; readonly retryAfter: number };

const ALLOWED: RateAdmission = Object.freeze({ allowed: true });

/** One budget per key over the storage adapter, its state under `model`. */
export class RateBudget {
  readonly enabled: boolean;
  /** the adapter's one-step spend, where it has one */
  readonly #spend: SpendBudget | undefined;
  readonly #records: RecordUpdater | undefined;
  readonly #budget: BudgetSettings;
  /** the step of a request of one unit, the usual one */
  readonly #unit: Step;
  readonly #now: () => number;

  constructor(adapter: AdapterFactory, model: string, budget: BudgetSettings | false, now: () => number = Date.now) {
    this.enabled = budget !== false;
    const store = budget === false ? undefined : adapter(model) as Adapter & Partial<CompareAndSet & SpendBudget>;
    this.#spend = typeof store?.spendBudget === 'function' ? store as SpendBudget : undefined;
    this.#records = store === undefined || this.#spend ? undefined : new RecordUpdater(store);
    this.#budget = budget || { size: 1, windowSeconds: 1 };
    this.#unit = stepOf(this.#budget, 1);
    this.#now = now;
  }

  /**
   * Counts a request costing `cost` units against `key` (a record key: hashed, or an id that
   * is no secret and no person's data), or refuses it; `reserve`: units it may overdraw.
   */
  async attempt(key: string, cost = 1, reserve = 0): Promise<RateAdmission> {
    if (this.#spend) return this.#spendAtOnce(this.#spend, key, cost, reserve);
    if (!this.#records) return ALLOWED;
    let outcome: Admission | undefined;
    const applied = await this.#records.update(key, (stored) => {
      outcome = admitWithin(asRecord(stored), this.#budget, this.#now(), cost, reserve);
      return outcome.allowed ? { payload: { tat: outcome.next.tat }, expiresIn: outcome.keepFor } : undefined;
    });
    // a key that kept changing under us is being hammered: refusing is the safe side
    if (!applied || !outcome) return { allowed: false, retryAfter: 1 };
    return outcome.allowed ? ALLOWED : { allowed: false, retryAfter: outcome.retryAfter };
  }

  /** This budget's clock, epoch milliseconds. */
  now(): number {
    return this.#now();
  }

  /** A request's step at this moment, for an adapter that spends it with another operation (a token's read). */
  plan(cost = 1, reserve = 0): PlannedStep {
    const { tolerance, step } = cost === 1 && reserve === 0 ? this.#unit : stepOf(this.#budget, cost, reserve);
    return { now: this.#now(), tolerance, step };
  }

  /** What the adapter's spend of `planned` means for the request. */
  judge({ spent, tat }: BudgetSpent, planned: PlannedStep): RateAdmission {
    return spent ? ALLOWED : { allowed: false, retryAfter: waitFrom(tat, planned.now, planned) };
  }

  /** One round trip: the adapter reads, decides and writes in one step, by the same rule. */
  async #spendAtOnce(store: SpendBudget, key: string, cost: number, reserve: number): Promise<RateAdmission> {
    const planned = this.plan(cost, reserve);
    return this.judge(await store.spendBudget(key, planned.now, planned.tolerance, planned.step), planned);
  }
}
