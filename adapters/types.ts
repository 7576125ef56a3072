/**
 * The storage contract: oidc-provider's adapter interface (one adapter instance per model
 * name), plus the two rules this library adds on top of it.
 *
 * - `consume(id)` is atomic: exactly one caller consumes a stored artefact. A second
 *   consumer (two requests racing with one authorization code or one rotating refresh
 *   token) is treated as replay: every other artefact of the grant and the grant itself
 *   are removed (the replayed one stays, consumed, so every later racer is refused too),
 *   and the call rejects with oidc-provider's `InvalidGrant`, so the losing
 *   request answers `invalid_grant` and the winner's tokens die with the grant (RFC 6749
 *   §4.1.2, RFC 9700 §4.14.2).
 * - Records expire after `expiresIn` seconds and are never evicted before that.
 * - A call that cannot reach the storage (connection down, timed out, server loading or
 *   read-only) rejects with `StorageUnavailableError`, promptly: never a call that hangs.
 *   Requests that need storage then answer 503 `temporarily_unavailable` (lib/storage/outage.ts),
 *   and an adapter must serve again by itself once its storage is back. Any other error
 *   (corrupt record, a bug) stays what it is and is a 500.
 * - Optionally, `compareAndSet` ({@link CompareAndSet}): an atomic conditional write, which
 *   keeps what several instances change at once exact: the sign-in throttle's counters, the
 *   fetch budgets of metadata documents, the grant index, traces, and member clients (a
 *   rotation writes only over the record it read, so a delete in between stays a delete).
 *   Both adapters here have it; a custom adapter without it still works, with each of those
 *   reading and writing instead (a throttle may under-count by one attempt per instance when
 *   instances race; a member client's delete and rotation are then ordered within one
 *   instance only).
 *
 * @module
 */
import type { Adapter, AdapterPayload } from 'oidc-provider';
import { errors } from 'oidc-provider';

import { TEMPORARILY_UNAVAILABLE_DESCRIPTION } from '../lib/errors.ts';

export type { Adapter, AdapterPayload };

/** What oidc-provider's `adapter` option accepts: a factory called once per model name. */
export type AdapterFactory = (modelName: string) => Adapter;

/**
 * The optional atomic write of an adapter (one model), for small records of the library's
 * own (no `uid`, `userCode` or `grantId`: their indexes are not maintained here), and for a
 * record rewritten under the indexes it already has (the code-replay rule gives a consumed
 * code back with it, lib/policies/code-replay.ts).
 */
export interface CompareAndSet {
  /**
   * Replaces the record `id` by `next` (deletes it when `next` is `undefined`) only when it
   * is still `expected` (`undefined`: absent), compared as the JSON text this adapter
   * wrote, in one atomic step. Resolves `true` when written, `false` when the record had
   * changed (nothing is written then).
   */
  compareAndSet(id: string, expected: AdapterPayload | undefined, next: AdapterPayload | undefined, expiresIn?: number): Promise<boolean>;
}

/**
 * The optional consume that keeps what it consumed (the code-replay rule,
 * lib/policies/code-replay.ts): `consume(id)`, and a record it marks consumed now then expires
 * `keepSeconds` from now, its grant's index kept at least as long, in one atomic step. A
 * replayed record is refused (and its grant revoked) exactly as `consume` does.
 *
 * With `mark`, the record this call consumes also holds it as `consumedBy`, in the same step:
 * who consumed it, readable when the call's answer was lost (a timeout after the write was
 * applied). A replay leaves the record, and the mark of its first consumer, as they are.
 */
export interface ConsumeAndKeep {
  consumeAndKeep(id: string, keepSeconds: number, mark?: string): Promise<void>;
}

/**
 * The optional capped list of an adapter (one model), for an append-mostly log of the
 * library's own (the per-client trace, lib/trace/store.ts): items go in without reading what
 * is there, so an append moves only the new items and never has to be retried when another
 * instance appended meanwhile. Lists are kept apart from the model's records: the same `id`
 * may have both.
 */
export interface CappedList {
  /**
   * Puts `items` (oldest first) at the front of the list `id`, keeps its first `max` items
   * and makes it expire `expiresIn` seconds from now unless it already expires later (its
   * lifetime is extended, never shortened), in one atomic step.
   */
  pushCapped(id: string, items: readonly AdapterPayload[], max: number, expiresIn: number): Promise<void>;
  /** The list `id`, newest first (in the order pushed); `[]` when there is none. */
  readCapped(id: string): Promise<AdapterPayload[]>;
}

/** One member of {@link LatestByMember.putLatest}. */
export interface LatestEntry {
  readonly member: string;
  /** when, in epoch milliseconds: a member keeps its latest */
  readonly at: number;
  readonly payload: AdapterPayload;
}

/**
 * The optional index of the latest payload per member, for a small "most recent" list of the
 * library's own (the traced clients, lib/trace/store.ts): members go in without reading the
 * list, so a write moves only what changed and never has to be retried when another instance
 * wrote meanwhile. Kept apart from the model's records: the same `id` may have both.
 */
export interface LatestByMember {
  /**
   * Records `entries` in the index `id`, each replacing its member's payload only when newer
   * than the one kept; keeps the `max` most recent members and makes the index expire
   * `expiresIn` seconds from now, in one atomic step.
   */
  putLatest(id: string, entries: readonly LatestEntry[], max: number, expiresIn: number): Promise<void>;
  /** The payloads of the index `id`, the most recent member first; `[]` when there is none. */
  readLatest(id: string): Promise<AdapterPayload[]>;
}

/** What {@link SpendBudget.spendBudget} did. */
export interface BudgetSpent {
  /** whether the budget held the step, which is then spent */
  readonly spent: boolean;
  /** the budget's state after the call (epoch milliseconds): moved when spent, as it was otherwise */
  readonly tat: number;
}

/**
 * The optional budget step of an adapter (one model), for the library's rate limits
 * (lib/policies/rate-budget.ts holds the rule, GCRA): one record `{ tat }` per budget, read
 * and written in one atomic step, so instances spending one budget at once lose no unit, in
 * one round trip where a read and a compare-and-set take two. One key: atomic on a Cluster
 * too. Without it, the budgets read and compare-and-set.
 */
export interface SpendBudget {
  /**
   * At `now` (epoch milliseconds) the budget `id` stands at its record's `tat`, or at `now`
   * when it has none or it lies in the past. When that is at most `tolerance` milliseconds
   * ahead of `now`, moves it `step` milliseconds later and keeps the record until then (whole
   * seconds, at least one); otherwise writes nothing.
   */
  spendBudget(id: string, now: number, tolerance: number, step: number): Promise<BudgetSpent>;
}

/** A spend of a grant's budget asked for with a token's read ({@link FindSpending.findSpending}). */
export interface GrantSpend {
  /** the model of the budgets' records; a grant's record is the one with the grant's id */
  readonly model: string;
  /** only a token of this client spends */
  readonly clientId: string;
  /** as {@link SpendBudget.spendBudget}'s */
  readonly now: number;
  readonly tolerance: number;
  readonly step: number;
}

/** What {@link FindSpending.findSpending} read and spent. */
export interface FoundSpending {
  readonly payload: AdapterPayload | undefined;
  /** `undefined` when nothing was spent: no record, no grant, or another client's token */
  readonly spent: BudgetSpent | undefined;
}

/** Whether the token `payload` spends `spend`: it names a grant and is `spend`'s client's. */
export function spendsFor(payload: AdapterPayload | undefined, spend: Pick<GrantSpend, 'clientId'>): boolean {
  return typeof payload?.grantId === 'string' && payload.grantId !== '' && payload.clientId === spend.clientId;
}

/**
 * The optional read of a token that spends its grant's budget with it (the refresh rate per
 * grant, lib/policies/refresh-rate.ts): the record `id`, and, when it names a grant and
 * `spend.clientId` as its client, one step of that grant's budget spent as
 * {@link SpendBudget.spendBudget} spends it (the record of `spend.model` with the grant's id).
 * On a single Redis one script, the token's read with its grant; elsewhere a read, then the
 * spend. Without it, a read, then the spend (two round trips before the rest of the request).
 */
export interface FindSpending {
  findSpending(id: string, spend: GrantSpend): Promise<FoundSpending>;
}

/** Seconds a budget's record at `tat` is kept at `now` (epoch ms): until it is past, at least one. */
export function budgetKeptFor(tat: number, now: number): number {
  return Math.max(1, Math.ceil((tat - now) / 1000));
}

/** One record of {@link PutRecords.putRecords}. */
export interface RecordWrite {
  readonly model: string;
  readonly id: string;
  readonly payload: AdapterPayload;
  /** seconds; the record does not expire when left out */
  readonly expiresIn?: number;
}

/**
 * The optional write of several records, of any models, in one step (on a single Redis, one
 * command with the other record writes asked for in the same turn). For records whose indexes
 * are already in place or that have none: a record rewritten under the same id keeps its
 * `uid`, `userCode` and grant index entries from its first write, and none are added here.
 * The refresh-token grace writes its two records of a rotation with it, beside the successor
 * token's upsert (lib/policies/refresh-grace.ts).
 */
export interface PutRecords {
  putRecords(writes: readonly RecordWrite[]): Promise<void>;
}

/**
 * Marks storage whose writes have taken effect when the call that asks for them returns (one
 * process's memory): holding a write back to send it with a later one saves no round trip,
 * and no fault can fall between two writes. The refresh grace then writes a rotation's
 * records when the token is consumed, instead of pairing them with the successor's write
 * (lib/policies/refresh-grace.ts).
 */
export interface SynchronousWrites {
  readonly writesSynchronously: true;
}

/**
 * The refresh grace's record that a successor of a refresh token was used
 * (lib/policies/refresh-grace.ts): id the token's name (the SHA-256 of its id, shortened: never
 * the token), payload `{ grantId }`, written when a successor of that token is rotated in its
 * turn, kept for the grace and a minute, and read only to ask whether it exists. Each record
 * answers for its own id only, as any record does: a token served again within the grace has
 * several successors, each going on with a chain of its own with tokens of the same
 * generations, so the use of one says nothing of another (storage that kept only the highest
 * generation used per chain took one fork's progress for another's reuse). Storage may keep
 * these records in a leaner form than other records, as the memory adapter does, but answers
 * exactly as for any record: present from its write until its lifetime ends or it is deleted.
 */
export const REFRESH_USE_MODEL = 'RefreshTokenUse';

/** Storage that can also be shut down (timers, connections). */
export interface ClosableAdapterFactory extends AdapterFactory {
  close(): Promise<void>;
}

/** The library's record of the site a grant was given for (lib/grant-context.ts), keyed by grant id. */
export const GRANT_CONTEXT_MODEL = 'GrantContext';

/** Models whose records belong to a grant and die with it (`revokeByGrantId`). */
export const GRANTABLE_MODELS: ReadonlySet<string> = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
  'PreAuthorizedCode',
  // this library's per-grant record (lib/grant-context.ts)
  GRANT_CONTEXT_MODEL,
]);

/**
 * Thrown by an adapter whose storage cannot be reached. An oidc-provider error (503
 * `temporarily_unavailable`, exposed), so the provider's own error handling answers it as
 * RFC 6749 §5.2 JSON and never redirects it to the client; the library's guards
 * (lib/storage/outage.ts) answer it for every other route.
 *
 * `error_detail` is a short reason for logs (an error code, never a key, token or secret);
 * the underlying error is kept as `cause`.
 *
 * @example
 * ```ts
 * // in a custom adapter
 * try { return await db.get(id); }
 * catch (cause) { throw new StorageUnavailableError('db: ECONNREFUSED', { cause }); }
 * ```
 */
export class StorageUnavailableError extends errors.OIDCProviderError {
  constructor(reason = 'storage unreachable', options?: { cause?: unknown }) {
    super(503, 'temporarily_unavailable', options?.cause === undefined ? { detail: reason } : { detail: reason, cause: options.cause });
    this.name = 'StorageUnavailableError';
    this.error_description = TEMPORARILY_UNAVAILABLE_DESCRIPTION;
    this.expose = true;
    // RFC 6749 §4.1.2.1 would allow redirecting this to the client; a page that says
    // "try again" keeps the user where a reload helps once storage is back
    this.allow_redirect = false;
  }
}
