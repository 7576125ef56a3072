/**
 * The refresh rate per grant (`options.refreshTokenRateLimit`).
 *
 * Every refresh stores a new refresh token for `ttl.refreshToken` (14 days by default), and
 * keeps the one it rotated for as long again: reuse detection (RFC 9700 §4.14.2) needs to
 * recognise it when it is presented after the successor, which may be days later (a laptop
 * closed over a holiday). It stores an access token for `ttl.accessToken` too. Nothing else
 * bounded how often one grant may refresh, so any signed-in member's client (one the member
 * registered or described in a metadata document) refreshing in a loop grew storage by about
 * 0.9 KB per request for two weeks (measured on Redis: the token and its grant-index entries):
 * at the 1,400 refreshes a second the bench serves on Redis, some 4.5 GB an hour, until the
 * store was full and every member was refused.
 *
 * So each refresh spends one unit of its grant's budget (./rate-budget.ts) where oidc-provider
 * reads its token, before anything of the refresh is checked or written: a refused refresh
 * leaves the token as it was, usable once the budget is back ({@link CountedRefreshTokens}).
 * A client refreshes once per access token's lifetime (an hour by default); the default
 * budget, a burst of 60 then one a minute, is dozens of times that, and what one grant keeps
 * stored stays bounded by it. A grant is one
 * client's sign-in in one browser session; a second grant costs a sign-in and an
 * authorization request, which their own limits bound (`authorizationRateLimit`).
 *
 * The refusal is 429 `temporarily_unavailable` (RFC 6749 §5.2 defines no code for "too many";
 * the registration and document-fetch limits answer alike) with `Retry-After`, a `token.failed`
 * event with the client and the account.
 *
 * @module
 */
import Provider, { errors } from 'oidc-provider';

import { spendsFor } from '../../adapters/types.ts';
import type { Adapter, AdapterFactory, AdapterPayload, FindSpending } from '../../adapters/types.ts';
import { decorateModel, DelegatingAdapter } from '../storage/model-decorator.ts';
import { RateBudget } from './rate-budget.ts';
import type { RateAdmission } from './rate-budget.ts';
import { withinGrace } from './refresh-grace.ts';

/** A budget's refusal. */
type RateRefusal = Extract<RateAdmission, { allowed: false }>;

/** The storage model of the per-grant refresh rate state. */
export const REFRESH_RATE_MODEL = 'RefreshRate';

/** The options' `{ perGrant, windowSeconds }`. */
export interface RefreshRateSettings {
  /** refreshes one grant may make at once; the bucket's size */
  readonly perGrant: number;
  /** seconds in which a grant's drained bucket is full again */
  readonly windowSeconds: number;
}

/**
 * 429 `temporarily_unavailable` for a grant over its budget: a JSON answer of the token
 * endpoint, never a page. It is thrown where the token is read, before oidc-provider knows
 * the token's account, so the refusal carries it (`accountId`, never in the answer) for the
 * `token.failed` event.
 */
export function refreshRateRefusal(retryAfter: number, accountId?: string): Error {
  const err = new errors.TemporarilyUnavailable(`too many refreshes of this grant; try again in ${retryAfter} seconds`);
  Object.assign(err, { status: 429, statusCode: 429, expose: true, allow_redirect: false });
  if (accountId !== undefined) Object.defineProperty(err, 'accountId', { value: accountId, enumerable: false });
  return err;
}

/**
 * Refreshes beyond a grant's budget that a rotated token presented again within the refresh
 * grace may overdraw: a retry of a refresh whose answer was lost, or the second of two racing
 * tabs. Refused and told to wait for the budget (a minute at the defaults), such a client
 * would come back after the grace (30 s) and its token would be reuse, revoking the grant.
 * The reserve raises the burst, never the sustained rate: every unit overdrawn is waited
 * for by the next refresh.
 */
export const RETRY_RESERVE = 10;

/** What the count reads of oidc-provider's request (`Provider.ctx`). */
interface TokenRequest {
  readonly oidc?: { readonly route?: string; readonly params?: Record<string, unknown>; readonly client?: { readonly clientId: string } };
  set(name: string, value: string): void;
}

const currentRequest = () => Provider.ctx as TokenRequest | undefined;

/** The client of a `refresh_token` grant request, the one its token's grant is counted for. */
function refreshingClient(ctx: TokenRequest | undefined): string | undefined {
  const oidc = ctx?.oidc;
  if (oidc?.route !== 'token' || oidc.params?.grant_type !== 'refresh_token') return undefined;
  return oidc.client?.clientId;
}

interface RefreshPayload extends AdapterPayload {
  readonly grantId?: string;
  /** set by the refresh grace when the token was rotated (epoch seconds): ./refresh-grace.ts */
  readonly rotatedAt?: number;
}

/**
 * The `RefreshToken` storage, under the refresh grace (./refresh-grace.ts), counting each
 * refresh where oidc-provider reads the token: on a single Redis in the same script as the
 * read (`findSpending`, adapters/types.ts), so a refresh costs no command and no round trip
 * more; elsewhere a read, then the count. Over the budget the read throws the refusal, before
 * oidc-provider has checked or written anything: the token is neither rotated nor taken for
 * reuse. A storage failure while counting fails the read, a 503, with nothing written either.
 */
class CountedRefreshTokens extends DelegatingAdapter {
  readonly #budget: RateBudget;
  readonly #request: () => TokenRequest | undefined;
  readonly #graceSeconds: number;
  /** the storage's read that spends, where it has one */
  readonly #findSpending: FindSpending['findSpending'] | undefined;
  /** requests counted: one count per refresh, whatever else reads its token */
  readonly #counted = new WeakSet<object>();

  constructor(inner: Adapter, budget: RateBudget, options: { readonly graceSeconds: number; readonly request: () => TokenRequest | undefined }) {
    super(inner);
    this.#budget = budget;
    this.#request = options.request;
    this.#graceSeconds = options.graceSeconds;
    const { findSpending } = inner as Partial<FindSpending>;
    this.#findSpending = typeof findSpending === 'function' ? findSpending.bind(inner) : undefined;
  }

  override find(id: string): ReturnType<Adapter['find']> {
    const ctx = this.#request();
    const clientId = refreshingClient(ctx);
    if (clientId === undefined || this.#counted.has(ctx!)) return this.inner.find(id);
    this.#counted.add(ctx!);
    if (!this.#findSpending) return this.inner.find(id).then((payload) => this.#countAfterRead(ctx!, clientId, payload ?? undefined));
    // the planned step and the spend in one object
    const spend = { model: REFRESH_RATE_MODEL, clientId, ...this.#budget.plan() };
    // no async frame on the way through: every refresh passes here
    return this.#findSpending(id, spend).then(({ payload, spent }) => {
      if (spent !== undefined) {
        if (spent.spent) return payload;
        return this.#refused(ctx!, payload as RefreshPayload, this.#budget.judge(spent, spend) as RateRefusal);
      }
      // nothing spent for a token that spends: the storage could not read the record as the
      // library does (Redis' cjson refuses a lone surrogate a host put in a claim), so counted here
      return spendsFor(payload, spend) ? this.#countAfterRead(ctx!, clientId, payload) : payload;
    });
  }

  /** Storage without `findSpending`: the count after the read. */
  async #countAfterRead(ctx: TokenRequest, clientId: string, payload: AdapterPayload | undefined): Promise<AdapterPayload | undefined> {
    if (!spendsFor(payload, { clientId })) return payload;
    const admission = await this.#budget.attempt(payload!.grantId as string);
    return admission.allowed ? payload : this.#refused(ctx, payload as RefreshPayload, admission);
  }

  /** Over the budget: served from the reserve if it is a retry within the grace, refused otherwise. */
  async #refused(ctx: TokenRequest, payload: RefreshPayload, refusal: RateRefusal): Promise<AdapterPayload> {
    let { retryAfter } = refusal;
    if (this.#graceSeconds > 0) {
      // a retry or a racing refresh of a token rotated within the grace: from the reserve, or
      // it would come back after the grace and be reuse (RETRY_RESERVE)
      if (payload.rotatedAt !== undefined && withinGrace(payload.rotatedAt, Math.floor(this.#budget.now() / 1000), this.#graceSeconds)) {
        const retry = await this.#budget.attempt(payload.grantId!, 1, RETRY_RESERVE);
        if (retry.allowed) return payload;
      }
      // the second of two racing refreshes may have been refused before the other rotated the
      // token: back within the grace, it draws on the reserve then
      retryAfter = Math.min(retryAfter, Math.max(1, Math.floor(this.#graceSeconds / 2)));
    }
    ctx.set('Retry-After', String(retryAfter));
    throw refreshRateRefusal(retryAfter, typeof payload.accountId === 'string' ? payload.accountId : undefined);
  }
}

/**
 * `factory` (the host's storage) with each refresh counted against its grant's budget, kept
 * in the same storage (model {@link REFRESH_RATE_MODEL}, one record per grant id); `false`:
 * `factory` as it is. Goes under the refresh grace, which reads the token through it.
 */
export function withRefreshRate<F extends AdapterFactory>(
  factory: F, settings: RefreshRateSettings | false,
  options: { readonly graceSeconds: number; readonly now?: () => number; readonly request?: () => TokenRequest | undefined },
): F {
  if (settings === false) return factory;
  const budget = new RateBudget(factory, REFRESH_RATE_MODEL, { size: settings.perGrant, windowSeconds: settings.windowSeconds }, options.now);
  const request = options.request ?? currentRequest;
  return decorateModel(factory, 'RefreshToken', (inner) => new CountedRefreshTokens(inner, budget, { graceSeconds: options.graceSeconds, request }));
}
