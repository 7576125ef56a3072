/**
 * A refresh's new tokens stored in one step: oidc-provider stores the successor refresh token,
 * then the access token, awaiting each, and answers only once both are saved. With the grace
 * rule on (lib/policies/refresh-grace.ts) the successor's save is confirmed at once, and its
 * write (with the rotation's records) is sent with the access token's, which waits for it: on
 * a single Redis one script for the rotation and both tokens, so a refresh is a read and one
 * write; on a Cluster one pipeline.
 *
 * What keeps this safe: the access token's save of the same grant does not settle before every
 * successor write asked for before it has, and fails if one of them failed. oidc-provider
 * writes the refresh answer only after the access token's save, so a client never receives a
 * refresh token that was not stored (a 503 instead, and its retry is the grace rule's). A
 * successor write that no access token waits for (an error between the two saves) answers
 * nobody; its outcome is kept, failed, until the grant's next access token or until
 * {@link MAX_WAITING} newer grants push it out.
 *
 * @module
 */
import type { AdapterFactory, AdapterPayload } from '../../adapters/types.ts';
import { decorateModel, DelegatingAdapter } from '../storage/model-decorator.ts';

/** Grants whose successor writes are remembered at once; the oldest goes first. */
const MAX_WAITING = 1000;

const ignore = () => undefined;

/** Successor refresh-token writes not yet waited for by their grant's access token. */
export class SuccessorWrites {
  readonly #byGrant = new Map<string, Promise<void>>();

  /** Remembers `writing` for the next access token of `grantId`. */
  hold(grantId: string, writing: Promise<void>): void {
    const earlier = this.#byGrant.get(grantId);
    const all = earlier ? Promise.all([earlier, writing]).then(ignore) : writing;
    if (!earlier && this.#byGrant.size >= MAX_WAITING) this.#byGrant.delete(this.#byGrant.keys().next().value!);
    this.#byGrant.set(grantId, all);
    // written: nothing left to wait for. Failed: kept for the access token to report (and
    // handled here, so a failure nobody waits for is no unhandled rejection)
    all.then(() => {
      if (this.#byGrant.get(grantId) === all) this.#byGrant.delete(grantId);
    }, ignore);
  }

  /** What the next access token of `grantId` must wait for, if anything; forgotten here. */
  take(grantId: string): Promise<void> | undefined {
    if (this.#byGrant.size === 0) return undefined;
    const waiting = this.#byGrant.get(grantId);
    if (waiting) this.#byGrant.delete(grantId);
    return waiting;
  }
}

/** The `AccessToken` adapter whose save waits for its grant's successor refresh-token writes. */
class AccessTokensAfterRefresh extends DelegatingAdapter {
  readonly #successors: SuccessorWrites;

  constructor(inner: ConstructorParameters<typeof DelegatingAdapter>[0], successors: SuccessorWrites) {
    super(inner);
    this.#successors = successors;
  }

  override upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    const { grantId } = payload;
    const waiting = typeof grantId === 'string' ? this.#successors.take(grantId) : undefined;
    // asked for first, in this turn: on a single Redis the same script as the successor's
    const saving = this.inner.upsert(id, payload, expiresIn as number);
    return waiting ? Promise.all([saving, waiting]).then(ignore) : saving;
  }
}

/** `factory` whose access tokens wait for `successors` (see the module comment). */
export function withAccessTokensAfterRefresh<F extends AdapterFactory>(factory: F, successors: SuccessorWrites): F {
  return decorateModel(factory, 'AccessToken', (inner) => new AccessTokensAfterRefresh(inner, successors));
}
