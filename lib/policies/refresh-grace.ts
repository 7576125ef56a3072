/**
 * Refresh-token rotation that survives storage faults and racing refreshes, without giving
 * up reuse detection (RFC 9700 §4.14.2).
 *
 * oidc-provider consumes the presented refresh token before it stores the new tokens. When
 * storage fails in between (a Redis failover, a connection dropped after the consume was
 * written), the client is told 503 "retry later", and its retry used to look like reuse: the
 * whole grant revoked, the member signed out. Racing refreshes of one token (two tabs, two
 * processes of one client) met the same fate.
 *
 * The rule, enforced by wrapping the storage of the `RefreshToken` model:
 * - Rotating a refresh token marks it `rotatedAt` (the first time only) instead of consuming
 *   it, and records that a successor of its predecessor was used.
 * - A rotated token presented again by its own client within `graceSeconds` of its first
 *   rotation, while no successor of its own has been used, is rotated again: the retry or the
 *   racing request gets a valid answer for the same grant.
 * - Otherwise it is presented to oidc-provider as consumed, which revokes the whole grant:
 *   reuse after the grace, or after the successor was itself used. A rotated token presented
 *   by another client revokes the grant too, and so does reuse that oidc-provider refuses for
 *   another reason before it looks at the token's state (`revokeMissedReuse`).
 * - `graceSeconds: 0` keeps oidc-provider's strict single use, and a token rotated while the
 *   grace was on (marked, never consumed) counts as consumed; a reused token is kept for its
 *   grant's revocation there too ({@link RotatedIsConsumed}).
 *
 * What the grace gives up: a token served again gets a successor of its own, so its two
 * holders (two racing tabs, or a thief within the window) go on with two chains of one grant,
 * which reuse detection links only when one presents a token the other rotated. Each racer
 * keeps the chain it was given; two chains that never cross live until the grant ends
 * (README "Refresh tokens: retries and races"). And a reused token is not deleted when its
 * grant is revoked (see destroy()), so a revocation lost to a fault is retried, not forgotten.
 *
 * Across instances and on a Redis Cluster this holds because every fact is in storage: the
 * mark on the token and one small record per rotation that a successor of a token was used
 * (`RefreshTokenUse`, keyed by that token's name, so writing it is idempotent and needs no
 * read-modify-write, one key on a Cluster, and kept for the grace and a minute:
 * `USE_RECORD_MARGIN_S`).
 *
 * "Its successor was used" is asked of the token itself, not of a position in its grant: a
 * token's name is the SHA-256 of its id (never the id, {@link nameOf}), every successor is
 * stamped with its predecessor's name (`parent`, since oidc-provider copies no field of ours
 * when it rotates), and rotating a token records that a successor of its `parent` was used.
 * One grant holds several chains (every code exchange starts one, and a later authorization
 * of the same client in the same browser session reuses the grant), and a token served again
 * within the grace forks its chain in two, each fork with tokens of the same generations.
 * Counted by generation, per grant, then per chain, one chain's or one fork's progress read
 * as "the successor was used" to another's retry of its own token: the grant revoked, every
 * holder signed out, and on the memory adapter, which kept only a chain's highest generation,
 * for longer than on Redis.
 *
 * One write per rotation: oidc-provider consumes the token, then stores its successor. The
 * rotation's records (the mark, and for a successor its use) are held back from `consume()`
 * and written with the successor of the same request (paired by `Provider.ctx`, so
 * overlapping refreshes never swap marks), and
 * that write goes out with the access token's, which waits for it (refresh-issue.ts). On a
 * single Redis the mark and the successor are one script: they exist together or not at all.
 * On a Cluster they are commands to several nodes; if one fails the access token's save
 * fails, so a successor stored without its mark was never delivered. A rotation whose
 * successor is not stored in the same turn of the event loop (an error in between) is
 * written on its own at the end of that turn, and the request's access token waits for that
 * write too. Whichever write is lost to a fault, a retry within the grace is still served and
 * a retry after it is still refused: a token left unmarked had no successor delivered, so
 * serving it again issues no second live chain. Storage whose writes take effect when asked
 * for (`SynchronousWrites`: the memory adapter) has no round trip to save and no fault to
 * fall between two writes: there consume() writes the rotation itself, as it would end up
 * written after an error, and nothing is held.
 *
 * @module
 */
import { hash } from 'node:crypto';

import type { Context } from 'koa';
import Provider from 'oidc-provider';

import { REFRESH_USE_MODEL } from '../../adapters/types.ts';
import type { Adapter, AdapterFactory, AdapterPayload, PutRecords, RecordWrite, SynchronousWrites } from '../../adapters/types.ts';
import { decorateModel, DelegatingAdapter } from '../storage/model-decorator.ts';
import { revokeGrant } from './deleted-clients.ts';
import { memberClientSite } from './audience.ts';
import type { AfterAnswer } from './provider-answer.ts';
import { SuccessorWrites, withAccessTokensAfterRefresh } from './refresh-issue.ts';

/** The storage model of the records that a successor was used (their form: adapters/types.ts). */
export { REFRESH_USE_MODEL };

export interface RefreshGraceOptions {
  /** seconds a rotated token stays usable for a retry or a racing refresh; 0: strict single use */
  readonly graceSeconds: number;
  /** epoch seconds; for tests */
  readonly now?: () => number;
  /** called (inside the request) when a rotated token is served again within the grace, for `refresh.grace_used` */
  readonly onGraceUsed?: () => void;
  /**
   * The request being served (oidc-provider's `Provider.ctx`), which pairs a consume with its
   * successor's write and that write with the access token's; outside a request every write
   * goes out at once. For tests.
   */
  readonly request?: () => object | undefined;
}

/** A rotation's records, held until its successor is stored (see the module comment). */
interface PendingRotation {
  readonly grantId: string;
  /** the successor's generation */
  readonly next: number;
  readonly writes: readonly RecordWrite[];
}

const currentRequest = () => Provider.ctx as object | undefined;

interface RefreshPayload extends AdapterPayload {
  readonly grantId?: string;
  readonly rotations?: number;
  readonly exp?: number;
  readonly rotatedAt?: number;
  /** the name of the token this one succeeded ({@link nameOf}), stamped on every successor */
  readonly parent?: string;
}

const epoch = () => Math.floor(Date.now() / 1000);

/**
 * How much longer than the grace a use record is kept. It is read only while the token it
 * names (the predecessor) is within its grace, and it is written after that token's rotation, so
 * it is needed for at most the grace after it is written; the margin covers the clocks of
 * instances that disagree (README "Clocks, and a restart without persistence"). Kept for the
 * token's lifetime instead (14 days by default), it was one more key per rotation in Redis
 * for two weeks.
 */
export const USE_RECORD_MARGIN_S = 60;

/**
 * Whether a token rotated at `rotatedAt` may still be served again at `now` (both epoch
 * seconds, whole): the grace's one rule, which the refresh rate's reserve for retries
 * (./refresh-rate.ts) asks too, so the two never disagree about the last second.
 */
export function withinGrace(rotatedAt: number, now: number, graceSeconds: number): boolean {
  return now - rotatedAt <= graceSeconds;
}

function generationOf(payload: RefreshPayload): number {
  return typeof payload.rotations === 'number' ? payload.rotations : 0;
}

/**
 * The name of the token `id`, which its successors carry as `parent` and its use record is
 * keyed by: the SHA-256 of its id, shortened, so no key or record ever holds a token.
 */
function nameOf(id: string): string {
  return hash('sha256', id, 'base64url').slice(0, 22);
}

/** The `RefreshToken` adapter with the grace rule; every other call goes to `inner`. */
/**
 * The rule both storages of refresh tokens share: oidc-provider answers reuse by destroying
 * the token and revoking its grant at once (`Promise.all`). Were the destroy written and the
 * revocation lost to a storage fault (a dropped connection, another Cluster node), the
 * client's retry of the 503 would find no token, get `invalid_grant`, and revoke nothing:
 * reuse detection failing open, the other chain alive. So a token a request found reused is
 * kept by that request's destroy(). The grant's revocation removes it with every other token
 * of the grant, and until then every presentation of it is reuse again, which retries the
 * revocation. It expires when the token would have.
 */
abstract class KeepsReusedTokens extends DelegatingAdapter {
  /** the token each request found reused, kept by destroy() */
  readonly #reused = new WeakMap<object, string>();
  /** the request being answered (oidc-provider's `Provider.ctx`), if any */
  protected readonly request: () => object | undefined;

  constructor(inner: Adapter, request: () => object | undefined) {
    super(inner);
    this.request = request;
  }

  /** The token this request found reused: its destroy() is left to the grant's revocation. */
  protected noteReused(id: string): void {
    const request = this.request();
    if (request !== undefined) this.#reused.set(request, id);
  }

  override destroy(id: string): Promise<void> {
    const request = this.request();
    if (request !== undefined && this.#reused.get(request) === id) return Promise.resolve();
    return this.inner.destroy(id);
  }
}

class GraceRefreshTokens extends KeepsReusedTokens {
  readonly #uses: Adapter;
  readonly #grace: number;
  readonly #now: () => number;
  readonly #onGraceUsed: (() => void) | undefined;
  /** the storage's write of several records in one step, when it has one */
  readonly #putRecords: PutRecords['putRecords'] | undefined;
  /**
   * what find() read, for the consume() of the same request that follows it: by request, so
   * a racing request's slower read can never stand in for this one's (outside a request,
   * consume() reads again)
   */
  readonly #read = new WeakMap<object, { readonly id: string; readonly payload: RefreshPayload }>();
  /** rotations waiting for their successor's write, by request */
  readonly #rotations = new Map<object, PendingRotation>();
  /** the parent each request's successor is to carry, by request (its successor's grant and generation) */
  readonly #parents = new WeakMap<object, { readonly grantId: string; readonly next: number; readonly parent: string }>();
  #leftovers: NodeJS.Immediate | undefined;
  /** the storage's writes take effect when asked for: nothing is held (see the module comment) */
  readonly #atOnce: boolean;

  /** the successors' writes, for the access token of the same request to wait for */
  readonly #successors: SuccessorWrites;

  constructor(
    inner: Adapter, uses: Adapter, successors: SuccessorWrites, options: RefreshGraceOptions,
    storage: { readonly putRecords?: PutRecords['putRecords']; readonly atOnce: boolean },
  ) {
    super(inner, options.request ?? currentRequest);
    this.#uses = uses;
    this.#successors = successors;
    this.#putRecords = storage.putRecords;
    this.#atOnce = storage.atOnce;
    this.#grace = options.graceSeconds;
    this.#now = options.now ?? epoch;
    this.#onGraceUsed = options.onGraceUsed;
  }

  override find(id: string): Promise<AdapterPayload | undefined> {
    // `then`, not an async frame: every refresh and every introspection without a hint reads here
    return this.inner.find(id).then((found) => {
      const payload = (found ?? undefined) as RefreshPayload | undefined;
      if (!payload) return undefined;
      this.#remember(id, payload);
      if (payload.rotatedAt !== undefined) return this.#findRotated(id, payload);
      // consumed by the storage itself (rotated where the grace was 0: an instance of a rolling
      // deploy, or before the grace was turned on): reuse, kept for its grant's revocation too
      if (payload.consumed) this.noteReused(id);
      return payload;
    });
  }

  /** A rotated token: usable again only for a retry or a racing refresh (the rare path). */
  async #findRotated(id: string, payload: RefreshPayload): Promise<AdapterPayload> {
    const expired = !withinGrace(payload.rotatedAt!, this.#now(), this.#grace);
    // a successor of this very token, not any token of the next generation: another fork's or
    // another chain's progress is not this token's successor being used
    const successorUsed = !expired && payload.grantId !== undefined && await this.#uses.find(nameOf(id)) !== undefined;
    if (expired || successorUsed) {
      this.noteReused(id);
      return { ...payload, consumed: payload.rotatedAt };
    }
    const { rotatedAt: _rotatedAt, ...usable } = payload;
    this.#onGraceUsed?.();
    return usable;
  }

  override async consume(id: string): Promise<void> {
    const payload = this.#recall(id) ?? (await this.inner.find(id) ?? undefined) as RefreshPayload | undefined;
    if (!payload) return;
    const writes = this.#rotationWrites(id, payload);
    const request = this.request();
    // the successor this request stores carries this token's name, however its write goes out
    if (request !== undefined && payload.grantId !== undefined) {
      this.#parents.set(request, { grantId: payload.grantId, next: generationOf(payload) + 1, parent: nameOf(id) });
    }
    // storage that writes at once, outside a request, or one that already holds a rotation: written now
    if (this.#atOnce || payload.grantId === undefined || request === undefined || this.#rotations.has(request)) {
      await this.#write(writes);
      return;
    }
    // held for the successor's upsert in this request (see the module comment)
    this.#rotations.set(request, { grantId: payload.grantId, next: generationOf(payload) + 1, writes });
    this.#leftovers ??= setImmediate(() => this.#writeLeftovers());
  }

  override upsert(id: string, stored: AdapterPayload, expiresIn?: number): Promise<void> {
    const request = this.request();
    const { grantId, rotations } = stored as RefreshPayload;
    const parent = request === undefined ? undefined : this.#parents.get(request);
    let payload = stored;
    if (parent && parent.grantId === grantId && parent.next === rotations) {
      this.#parents.delete(request!);
      payload = { ...stored, parent: parent.parent };
    }
    const pending = request === undefined || this.#rotations.size === 0 ? undefined : this.#rotations.get(request);
    // only the successor of the token this request consumed
    if (!pending || pending.grantId !== grantId || pending.next !== rotations) return this.inner.upsert(id, payload, expiresIn as number);
    this.#rotations.delete(request!);
    if (this.#rotations.size === 0) {
      clearImmediate(this.#leftovers);
      this.#leftovers = undefined;
    }
    // asked for in one synchronous step: the same script (or pipeline) carries both, and the
    // access token's write that follows in this turn. Confirmed now; the access token's save
    // in this request waits for it, and the refresh answer for that save (refresh-issue.ts)
    const writing = Promise.all([this.inner.upsert(id, payload, expiresIn as number), this.#write(pending.writes)]).then(() => undefined);
    this.#successors.hold(request!, writing);
    return Promise.resolve();
  }

  /**
   * The rotation's records: the mark on the token (first rotation only) and, for a successor,
   * that a successor of its predecessor was used. The first token of a chain (a code
   * exchange's) has no predecessor to answer for.
   */
  #rotationWrites(id: string, payload: RefreshPayload): RecordWrite[] {
    const now = this.#now();
    const ttl = typeof payload.exp === 'number' ? Math.max(payload.exp - now, 1) : undefined;
    const writes: RecordWrite[] = [];
    if (payload.rotatedAt === undefined) {
      // the same record under the same id: its grant index entry is already in place. One
      // copy (a rest pattern excluding `consumed` costs a second, slower one on every refresh)
      const marked: { -readonly [K in keyof RefreshPayload]: RefreshPayload[K] } = { ...payload, rotatedAt: now };
      if (marked.consumed !== undefined) delete marked.consumed;
      writes.push({ model: 'RefreshToken', id, payload: marked, ...(ttl === undefined ? {} : { expiresIn: ttl }) });
    }
    if (payload.grantId !== undefined && typeof payload.parent === 'string') {
      const kept = Math.min(ttl ?? Infinity, this.#grace + USE_RECORD_MARGIN_S);
      writes.push({ model: REFRESH_USE_MODEL, id: payload.parent, payload: { grantId: payload.grantId }, expiresIn: kept });
    }
    return writes;
  }

  /** One command on a single Redis; otherwise the writes go out together. */
  #write(writes: readonly RecordWrite[]): Promise<unknown> {
    if (writes.length === 0) return Promise.resolve();
    if (this.#putRecords) return this.#putRecords(writes);
    return Promise.all(writes.map((w) => (w.model === REFRESH_USE_MODEL ? this.#uses : this.inner).upsert(w.id, w.payload, w.expiresIn as number)));
  }

  /**
   * Rotations no successor was stored for in their turn, written on their own. The access
   * token saved later in the same request, if any, waits for that write and fails with it:
   * were a successor still stored and delivered, its predecessor is marked (or the answer is
   * a 503), never a second live chain.
   */
  #writeLeftovers(): void {
    this.#leftovers = undefined;
    for (const [request, { writes }] of this.#rotations) {
      this.#successors.hold(request, this.#write(writes).then(() => undefined));
    }
    this.#rotations.clear();
  }

  #remember(id: string, payload: RefreshPayload): void {
    const request = this.request();
    if (request !== undefined) this.#read.set(request, { id, payload });
  }

  /** What this request's find() read for `id`, forgotten here. */
  #recall(id: string): RefreshPayload | undefined {
    const request = this.request();
    const read = request === undefined ? undefined : this.#read.get(request);
    if (read?.id !== id) return undefined;
    this.#read.delete(request!);
    return read.payload;
  }
}

/**
 * The `RefreshToken` adapter with the grace off. A rotation under the grace marks the token
 * `rotatedAt` and leaves `consumed` unset (only the grace's own find reads the mark), so a
 * token rotated before the grace was turned off, or by another instance of a deployment still
 * running with it (a rolling deploy), would look unused to oidc-provider and to the storage's
 * consume: served again, a second live chain, nothing revoked. Read here as consumed, its
 * reuse revokes the grant as strict single use should. One property read per token read.
 *
 * A consumed token found by a request is kept by that request's destroy(), as the grace keeps
 * a reused one ({@link KeepsReusedTokens}).
 */
class RotatedIsConsumed extends KeepsReusedTokens {
  override find(id: string): Promise<AdapterPayload | undefined> {
    return this.inner.find(id).then((found) => {
      const payload = (found ?? undefined) as RefreshPayload | undefined;
      if (payload === undefined || (payload.rotatedAt === undefined && !payload.consumed)) return payload;
      this.noteReused(id);
      return payload.rotatedAt === undefined ? payload : { ...payload, consumed: payload.consumed ?? payload.rotatedAt };
    });
  }
}

/**
 * The adapter factory with the grace rule on `RefreshToken`, and `AccessToken` saves that wait
 * for the rotation and successor refresh token written in their request. When `graceSeconds`
 * is 0, only tokens rotated under a grace are read as consumed, and a consumed token is left
 * to its grant's revocation ({@link RotatedIsConsumed}).
 * Other models (and `close()`, if any) are the inner factory's.
 */
export function withRefreshGrace<F extends AdapterFactory>(factory: F, options: RefreshGraceOptions): F {
  if (options.graceSeconds <= 0) return decorateModel(factory, 'RefreshToken', (inner) => new RotatedIsConsumed(inner, options.request ?? currentRequest));
  const uses = factory(REFRESH_USE_MODEL);
  const { putRecords, writesSynchronously } = factory as Partial<PutRecords & SynchronousWrites>;
  const storage = { putRecords: typeof putRecords === 'function' ? putRecords.bind(factory) : undefined, atOnce: writesSynchronously === true };
  const successors = new SuccessorWrites();
  const refreshTokens = decorateModel(factory, 'RefreshToken', (inner) => new GraceRefreshTokens(inner, uses, successors, options, storage));
  // with nothing held, no access token has a successor's write to wait for
  return storage.atOnce ? refreshTokens : withAccessTokensAfterRefresh(refreshTokens, successors, options.request ?? currentRequest);
}

/** How a reuse came to light, for `refresh.reuse_detected` (the provider's own refusal is `after_grace`). */
export type MissedReuse = 'other_client' | 'other_refusal';

/**
 * On the provider's answer (lib/provider/after-answer.ts): reuse that oidc-provider refuses
 * without revoking the grant, revoked here (RFC 9700 §4.14.2).
 * - A rotated refresh token presented by another client than its own: reuse by someone who
 *   should not hold it. oidc-provider only answers `invalid_grant "client mismatch"`.
 * - A reused token presented by its own client in a request refused for another reason
 *   first: oidc-provider looks at the token's consumed state last, after the grant, the
 *   `scope` (a scope the token does not hold is `invalid_scope`) and proof-of-possession
 *   checks, so such a request revoked nothing. Whether the token is reused is the grace's own
 *   decision (the provider's find through it), so a retry within the grace stays a retry.
 * A request that reached the consumed check was answered by oidc-provider itself: it revoked
 * the grant if the token was reused. The provider sets its `Account` entity right before that
 * check, after the account lookup: its `RefreshToken` entity is set earlier, so a reused token
 * refused because its account was not found (a member the host's store does not answer for
 * a moment) revoked nothing by either.
 */
export function revokeMissedReuse(
  provider: () => Provider,
  adapter: AdapterFactory,
  /** told of each grant revoked so, for `refresh.reuse_detected` */
  onReuse?: (ctx: Context, owner: { clientId?: string; accountId?: string; site?: string }, reason: MissedReuse) => void,
): AfterAnswer {
  const refreshTokens = adapter('RefreshToken');

  async function revokeIfReused(ctx: Context, value: string, presenter: string): Promise<void> {
    // the raw record: the provider's find hides a rotation within the grace, and oidc-provider
    // answers only "grant request is invalid" for a client mismatch
    const stored = (await refreshTokens.find(value) ?? undefined) as (RefreshPayload & { clientId?: string }) | undefined;
    if (!stored?.grantId || (stored.rotatedAt === undefined && !stored.consumed)) return;
    const reason: MissedReuse = stored.clientId === presenter ? 'other_refusal' : 'other_client';
    if (reason === 'other_refusal') {
      // its own client: reuse only when the grace would not serve it again (after the grace,
      // after its successor was used; with the grace off, once consumed)
      const token = await provider().RefreshToken.find(value, { ignoreExpiration: true });
      if (!token?.consumed) return;
    }
    // not best effort: a revocation lost to a storage fault rejects, the provider's outage
    // guard answers 503, and the retry finds the same rotated token and revokes again
    await revokeGrant(provider(), stored.grantId);
    if (!onReuse) return;
    // the site of the token's own client (a member client's), not the presenter's: rare
    // enough for a lookup, and a failed one leaves only the site out of the event
    const owner = stored.clientId === undefined ? undefined : await provider().Client.find(stored.clientId).catch(() => undefined);
    const site = owner ? memberClientSite(owner) : undefined;
    onReuse(ctx, { clientId: stored.clientId, accountId: (stored as { accountId?: string }).accountId, ...(site ? { site } : {}) }, reason);
  }

  return function missedRefreshReuse(ctx) {
    const oidc = (ctx as { oidc?: { route?: string; params?: Record<string, unknown>; client?: { clientId: string }; entities?: { Account?: unknown } } }).oidc;
    if (oidc?.route !== 'token' || oidc.params?.grant_type !== 'refresh_token' || ctx.status < 400 || ctx.status >= 500) return undefined;
    if (oidc.entities?.Account !== undefined) return undefined;
    const value = oidc.params.refresh_token;
    const presenter = oidc.client?.clientId;
    if (typeof value !== 'string' || presenter === undefined) return undefined;
    return revokeIfReused(ctx, value, presenter);
  };
}
