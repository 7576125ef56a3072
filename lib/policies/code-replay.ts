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
 *
 * @module
 */
import type { Adapter, AdapterFactory, AdapterPayload, ConsumeAndKeep } from '../../adapters/types.ts';
import { decorateModel, DelegatingAdapter } from '../storage/model-decorator.ts';

export interface CodeReplayOptions {
  /** seconds the grant of a code can live (`options.ttl.grant`) */
  readonly grantSeconds: number;
  /** epoch seconds; for tests */
  readonly now?: () => number;
}

interface CodePayload extends AdapterPayload {
  readonly exp?: number;
  readonly consumed?: unknown;
}

const epoch = () => Math.floor(Date.now() / 1000);

/** The `AuthorizationCode` adapter with the rule; every other call goes to `inner`. */
class ReplayableCodes extends DelegatingAdapter {
  readonly #grantSeconds: number;
  readonly #now: () => number;

  constructor(inner: Adapter, options: CodeReplayOptions) {
    super(inner);
    this.#grantSeconds = options.grantSeconds;
    this.#now = options.now ?? epoch;
  }

  override async find(id: string): Promise<AdapterPayload | undefined> {
    const payload = (await this.inner.find(id) ?? undefined) as CodePayload | undefined;
    if (!payload?.consumed || typeof payload.exp !== 'number') return payload;
    const now = this.#now();
    return payload.exp > now ? payload : { ...payload, exp: now + 1 };
  }

  override async consume(id: string): Promise<void> {
    // atomic in the inner adapter: a second consumer is refused (and revokes) there
    const { consumeAndKeep } = this.inner as Partial<ConsumeAndKeep>;
    if (typeof consumeAndKeep === 'function') {
      // both adapters: one step (on Redis one command instead of three round trips)
      await consumeAndKeep.call(this.inner, id, this.#grantSeconds);
      return;
    }
    await this.inner.consume(id);
    const payload = await this.inner.find(id);
    if (payload?.consumed) await this.inner.upsert(id, payload, this.#grantSeconds);
  }
}

/**
 * The adapter factory with the rule on `AuthorizationCode`. Other models (and `close()`, if
 * any) are the inner factory's.
 */
export function withCodeReplay<F extends AdapterFactory>(factory: F, options: CodeReplayOptions): F {
  return decorateModel(factory, 'AuthorizationCode', (inner) => new ReplayableCodes(inner, options));
}
