/**
 * A replayed authorization code revokes its grant for as long as the grant can live, not only
 * for the code's own minute (RFC 6749 §4.1.2, RFC 9700 §4.14.2).
 *
 * oidc-provider detects replay from the consumed code's record: found and consumed, it revokes
 * the grant. But the record expired with the code's TTL (60 s), so a code replayed later met
 * nothing (or a record oidc-provider refused as expired before looking at `consumed`), and
 * the first redemption's tokens stayed valid.
 *
 * The rule, enforced by wrapping the storage of the `AuthorizationCode` model:
 * - Consuming a code keeps its record, consumed, for the grant's lifetime (`grantSeconds`);
 *   its `exp` is left as stored. With an adapter that offers `consumeAndKeep` (both of ours)
 *   that is one atomic step; otherwise consume, read and write again.
 * - A consumed code is found with an `exp` no earlier than now, so oidc-provider goes on from
 *   "expired" to "consumed", which revokes the grant. A consumed code is never redeemable, so
 *   this gives nothing to its holder; an unconsumed code past its `exp` stays expired.
 * - A code exchange answered 503 gives back the code it consumed ({@link CodeExchanges}).
 *   oidc-provider consumes the code before it stores the tokens; when storage fails in between
 *   (a refused write, a Cluster node failing over, a consume that timed out and was applied
 *   once Redis answered), the client is told to retry, and its retry was replay:
 *   `invalid_grant` and the member's new grant revoked. A 503 carries no token, so the code was
 *   not used (RFC 6749 §4.1.2 forbids a second use, not a second try): its consumed mark is
 *   removed, best effort, and the retry redeems it.
 * - Only a consume of this request is given back, never another's. Concurrent exchanges stay
 *   exclusive (the consume is the one atomic step that lets one of them through), and the one
 *   answered 503 may be the loser: its consume refused by storage, or (on a Cluster) its replay
 *   found but the grant's revocation failed. Giving the code back then cleared the winner's
 *   mark: the code was redeemed twice and nothing revoked. So a code is given back when this
 *   request's consume resolved, or when the record carries this request's own mark
 *   (`consumedBy`, written in the consume's step: `consumeAndKeep`'s `mark`), which tells a
 *   consume that failed but was applied (its answer lost) from someone else's; and the code is
 *   written back only over the record as read (`compareAndSet`, where the adapter has it). With
 *   an adapter that cannot write the mark, a failed consume gives nothing back: its retry is
 *   replay as before.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';

import Provider from 'oidc-provider';

import type { Adapter, AdapterFactory, AdapterPayload, CompareAndSet, ConsumeAndKeep } from '../../adapters/types.ts';
import { decorateModel, DelegatingAdapter } from '../storage/model-decorator.ts';
import type { AfterAnswer } from './provider-answer.ts';

export interface CodeReplayOptions {
  /** seconds the grant of a code can live (`options.ttl.grant`) */
  readonly grantSeconds: number;
  /** where the codes consumed by the requests being answered are kept, to give back after a 503 */
  readonly exchanges?: CodeExchanges;
  /** the request being served (oidc-provider's `Provider.ctx`); for tests */
  readonly request?: () => object | undefined;
  /** epoch seconds; for tests */
  readonly now?: () => number;
}

/** A request's consume of a code: what it may give back. */
interface CodeConsume {
  readonly codes: ReplayableCodes;
  readonly id: string;
  /** this consume's `consumedBy` on the record (written where the adapter can) */
  readonly mark: string;
  /** the consume resolved: the code's consumed mark is this request's */
  resolved: boolean;
}

/**
 * The code each code exchange being answered consumed, by request; its after-answer step gives
 * the code back when the answer is a 503 (see the module comment).
 */
export class CodeExchanges {
  readonly #byRequest = new WeakMap<object, CodeConsume>();

  /** `request` is consuming code `id` of `codes`, marking it `mark`; its note, for the outcome. */
  consuming(request: object, codes: ReplayableCodes, id: string, mark: string): CodeConsume {
    const consume: CodeConsume = { codes, id, mark, resolved: false };
    this.#byRequest.set(request, consume);
    return consume;
  }

  /** The after-answer step: a 503 gives back the code its request consumed. */
  readonly afterAnswer: AfterAnswer = (ctx) => {
    const consumed = this.#byRequest.get(ctx);
    if (!consumed) return undefined;
    this.#byRequest.delete(ctx);
    if (ctx.status !== 503) return undefined;
    // best effort: storage may still be failing, and the retry is then replay as before
    return consumed.codes.release(consumed).catch(() => undefined);
  };
}

const currentRequest = () => Provider.ctx as object | undefined;

interface CodePayload extends AdapterPayload {
  readonly exp?: number;
  readonly consumed?: unknown;
  /** the mark of the consume that consumed it ({@link ConsumeAndKeep}) */
  readonly consumedBy?: unknown;
}

const epoch = () => Math.floor(Date.now() / 1000);

/** The `AuthorizationCode` adapter with the rule; every other call goes to `inner`. */
class ReplayableCodes extends DelegatingAdapter {
  readonly #grantSeconds: number;
  readonly #exchanges: CodeExchanges | undefined;
  readonly #request: () => object | undefined;
  readonly #now: () => number;

  constructor(inner: Adapter, options: CodeReplayOptions) {
    super(inner);
    this.#grantSeconds = options.grantSeconds;
    this.#exchanges = options.exchanges;
    this.#request = options.request ?? currentRequest;
    this.#now = options.now ?? epoch;
  }

  override async find(id: string): Promise<AdapterPayload | undefined> {
    const payload = (await this.inner.find(id) ?? undefined) as CodePayload | undefined;
    if (!payload?.consumed || typeof payload.exp !== 'number') return payload;
    const now = this.#now();
    return payload.exp > now ? payload : { ...payload, exp: now + 1 };
  }

  override async consume(id: string): Promise<void> {
    // noted before it is asked for: a consume that fails may still have been applied, which
    // only its mark on the record can tell (a replay, refused, writes none)
    const request = this.#exchanges && this.#request();
    const mark = randomUUID();
    const noted = request ? this.#exchanges!.consuming(request, this, id, mark) : undefined;
    // atomic in the inner adapter: a second consumer is refused (and revokes) there
    const { consumeAndKeep } = this.inner as Partial<ConsumeAndKeep>;
    if (typeof consumeAndKeep === 'function') {
      // both adapters: one step (on Redis one command instead of three round trips)
      await consumeAndKeep.call(this.inner, id, this.#grantSeconds, mark);
      if (noted) noted.resolved = true;
      return;
    }
    await this.inner.consume(id);
    if (noted) noted.resolved = true;
    const payload = await this.inner.find(id);
    if (payload?.consumed) await this.inner.upsert(id, payload, this.#grantSeconds);
  }

  /**
   * Makes the code of `consume` redeemable again, with its own lifetime, if it is consumed by
   * that consume (see the module comment) and not expired.
   */
  async release(consume: Pick<CodeConsume, 'id' | 'mark' | 'resolved'>): Promise<void> {
    const { id } = consume;
    const payload = (await this.inner.find(id) ?? undefined) as CodePayload | undefined;
    if (!payload?.consumed || typeof payload.exp !== 'number') return;
    // another request's consume, or (no mark written) a consume not known to be this one's
    if (payload.consumedBy !== undefined ? payload.consumedBy !== consume.mark : !consume.resolved) return;
    const left = payload.exp - this.#now();
    if (left <= 0) return;
    const { consumed: _consumed, consumedBy: _consumedBy, ...unconsumed } = payload;
    const { compareAndSet } = this.inner as Partial<CompareAndSet>;
    // only over the record as read: a revocation in between stays a revocation
    if (typeof compareAndSet === 'function') await compareAndSet.call(this.inner, id, payload, unconsumed, left);
    else await this.inner.upsert(id, unconsumed, left);
  }
}

/**
 * The adapter factory with the rule on `AuthorizationCode`. Other models (and `close()`, if
 * any) are the inner factory's.
 */
export function withCodeReplay<F extends AdapterFactory>(factory: F, options: CodeReplayOptions): F {
  return decorateModel(factory, 'AuthorizationCode', (inner) => new ReplayableCodes(inner, options));
}
