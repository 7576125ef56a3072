/**
 * A refresh's new tokens stored in one step: oidc-provider stores the successor refresh token,
 * then the access token, awaiting each, and answers only once both are saved. With the grace
 * rule on (lib/policies/refresh-grace.ts) the successor's save is confirmed at once, and its
 * write (with the rotation's records) goes out with the access token's, which waits for it. On
 * a single Redis that is one script for the rotation and both tokens when nothing between the
 * two saves waits for I/O (a host's account lookup for the token's claims may: then two
 * scripts, and the access token's save still waits); on a Cluster, commands to several nodes.
 *
 * What keeps this safe: the access token saved in the same request as a successor does not
 * settle before that successor's write has, and fails if it failed. oidc-provider writes the
 * refresh answer only after the access token's save (actions/grants/refresh_token.js), so a
 * client never receives a refresh token that was not stored: it gets a 503, and its retry is
 * the grace rule's. Writes are paired with their access token by request (`Provider.ctx`), so
 * overlapping refreshes of one grant never settle each other's saves, and a write nobody waits
 * for (an error between the two saves) is forgotten with its request.
 *
 * @module
 */
import type { Adapter, AdapterFactory, AdapterPayload } from '../../adapters/types.ts';
import { decorateModel, DelegatingAdapter } from '../storage/model-decorator.ts';

const ignore = () => undefined;

/** Successor refresh-token writes not yet waited for by the access token of their request. */
export class SuccessorWrites {
  readonly #byRequest = new WeakMap<object, Promise<void>>();

  /** Remembers `writing` for the next access token saved in `request`. */
  hold(request: object, writing: Promise<void>): void {
    const earlier = this.#byRequest.get(request);
    this.#byRequest.set(request, earlier ? Promise.all([earlier, writing]).then(ignore) : writing);
    // a failure nobody waits for (an error before the access token's save) is no unhandled rejection
    writing.catch(ignore);
  }

  /** What the next access token saved in `request` must wait for, if anything; forgotten here. */
  take(request: object): Promise<void> | undefined {
    const waiting = this.#byRequest.get(request);
    if (waiting) this.#byRequest.delete(request);
    return waiting;
  }
}

/** The `AccessToken` adapter whose save waits for its request's successor refresh-token write. */
class AccessTokensAfterRefresh extends DelegatingAdapter {
  readonly #successors: SuccessorWrites;
  readonly #request: () => object | undefined;

  constructor(inner: Adapter, successors: SuccessorWrites, request: () => object | undefined) {
    super(inner);
    this.#successors = successors;
    this.#request = request;
  }

  override upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    const request = this.#request();
    const waiting = request === undefined ? undefined : this.#successors.take(request);
    // asked for first, in this turn: on a single Redis the same script as the successor's
    const saving = this.inner.upsert(id, payload, expiresIn as number);
    return waiting ? Promise.all([saving, waiting]).then(ignore) : saving;
  }
}

/**
 * `factory` whose access tokens wait for `successors` written in the same request (see the
 * module comment); `request` names the request being served.
 */
export function withAccessTokensAfterRefresh<F extends AdapterFactory>(factory: F, successors: SuccessorWrites, request: () => object | undefined): F {
  return decorateModel(factory, 'AccessToken', (inner) => new AccessTokensAfterRefresh(inner, successors, request));
}
