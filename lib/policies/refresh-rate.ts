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
 * So each refresh spends one unit of its grant's budget (./rate-budget.ts), and nothing of the
 * refresh is written until it is spent: a refused refresh leaves the token as it was, usable
 * once the budget is back ({@link RefreshRateGate}). A client refreshes once per access token's
 * lifetime (an hour by default); the default budget, a burst of 60 then one a minute, is
 * dozens of times that, and what one grant keeps stored stays bounded by it. A grant is one
 * client's sign-in in one browser session; a second grant costs a sign-in and an
 * authorization request, which their own limits bound (`authorizationRateLimit`).
 *
 * The refusal is 429 `temporarily_unavailable` (RFC 6749 §5.2 defines no code for "too many";
 * the registration and document-fetch limits answer alike) with `Retry-After`, a `token.failed`
 * event with the client and the account.
 *
 * @module
 */
import { createHash } from 'node:crypto';

import Provider, { errors } from 'oidc-provider';

import type { Adapter, AdapterFactory, AdapterPayload } from '../../adapters/types.ts';
import { decorateModel, DelegatingAdapter } from '../storage/model-decorator.ts';
import { RateBudget } from './rate-budget.ts';

/** The storage model of the per-grant refresh rate state. */
export const REFRESH_RATE_MODEL = 'RefreshRate';

/** The options' `{ perGrant, windowSeconds }`. */
export interface RefreshRateSettings {
  /** refreshes one grant may make at once; the bucket's size */
  readonly perGrant: number;
  /** seconds in which a grant's drained bucket is full again */
  readonly windowSeconds: number;
}

/** The record key of a grant's budget: its id, hashed, as the other budgets' keys are. */
export const grantRecordKey = (grantId: string) => `grant:${createHash('sha256').update(grantId).digest('base64url')}`;

/** Seconds between two refreshes a grant may make once its burst is spent. */
export function refreshInterval(settings: RefreshRateSettings): number {
  return settings.windowSeconds / settings.perGrant;
}

/** 429 `temporarily_unavailable` for a grant over its budget: a JSON answer of the token endpoint, never a page. */
export function refreshRateRefusal(retryAfter: number): Error {
  const err = new errors.TemporarilyUnavailable(`too many refreshes of this grant; try again in ${retryAfter} seconds`);
  Object.assign(err, { status: 429, statusCode: 429, expose: true, allow_redirect: false });
  return err;
}

/** What the gate reads of oidc-provider's request (`Provider.ctx`). */
interface TokenRequest {
  readonly oidc?: { readonly route?: string; readonly params?: Record<string, unknown>; readonly client?: { readonly clientId: string } };
  set(name: string, value: string): void;
}

/** One refresh request's count, and what waits for it. */
interface Held {
  /** settles when the count is back: rejects with the refusal (or a storage failure) */
  readonly gate: Promise<void>;
  /** the rotation's writes asked for before the count was back, run (in order) once it is */
  readonly writes: Promise<void>[];
  /** the count was back and allowed: writes go straight through */
  allowed: boolean;
}

const ignore = () => undefined;
const currentRequest = () => Provider.ctx as TokenRequest | undefined;

/**
 * Counts each refresh against its grant without a round trip of its own in the refresh's
 * path. The count is asked for as soon as oidc-provider has read the refresh token (its grant
 * is known then), and the refresh goes on meanwhile: its checks, and its reads of the grant
 * and its context, which the Redis adapter answered with the token's read in the same turn.
 * What the refresh writes (the rotation: consuming the token, its successor; the access
 * token) is held until the count is back, then asked for in one turn, so on a single Redis it
 * is still one script. Refused, none of it is written: the token is not rotated and stays
 * usable, and the access token's save, which oidc-provider waits for before it answers,
 * rejects with the refusal (429, `Retry-After`); a storage failure while counting rejects it
 * as a 503, with nothing written either. The save waits for the held writes too, so a write
 * that fails is a 503, as without the count (./refresh-issue.ts).
 */
class RefreshRateGate {
  readonly #budget: RateBudget;
  readonly #request: () => TokenRequest | undefined;
  readonly #held = new WeakMap<object, Held>();

  constructor(budget: RateBudget, request: () => TokenRequest | undefined) {
    this.#budget = budget;
    this.#request = request;
  }

  /** A refresh token read: in a refresh by its own client, its grant's count is asked for. */
  read(payload: { readonly grantId?: unknown; readonly clientId?: unknown } | undefined): void {
    const ctx = this.#request();
    const oidc = ctx?.oidc;
    if (!ctx || oidc?.route !== 'token' || oidc.params?.grant_type !== 'refresh_token' || this.#held.has(ctx)) return;
    // another client's token is refused by oidc-provider: it spends nothing of the grant's budget
    if (typeof payload?.grantId !== 'string' || payload.clientId !== oidc.client?.clientId) return;
    const held: Held = {
      gate: this.#budget.attempt(grantRecordKey(payload.grantId)).then((admission) => {
        if (admission.allowed) {
          held.allowed = true;
          return;
        }
        ctx.set('Retry-After', String(admission.retryAfter));
        throw refreshRateRefusal(admission.retryAfter);
      }),
      writes: [],
      allowed: false,
    };
    // a refresh refused before it writes anything (another check) leaves the gate unawaited
    held.gate.catch(ignore);
    this.#held.set(ctx, held);
  }

  /** A write of the rotation: once the count allowed it, in the order asked; never when refused. */
  hold(write: () => Promise<void>): Promise<void> {
    const held = this.#pending();
    if (!held) return write();
    const writing = held.gate.then(write);
    writing.catch(ignore);
    held.writes.push(writing);
    // confirmed at once, as the grace rule confirms a successor: what the client is answered
    // waits for the access token's save, which waits for this
    return Promise.resolve();
  }

  /** The access token's save: after the count and the held writes, failing with either. */
  save(write: () => Promise<void>): Promise<void> {
    const held = this.#pending();
    if (!held) return write();
    return held.gate.then(() => {
      const saving = write();
      return Promise.all([saving, ...held.writes]).then(ignore);
    });
  }

  /** This request's count, while it is not back (or refused). */
  #pending(): Held | undefined {
    const ctx = this.#request();
    const held = ctx === undefined ? undefined : this.#held.get(ctx);
    return held === undefined || held.allowed ? undefined : held;
  }
}

class CountedRefreshTokens extends DelegatingAdapter {
  readonly #gate: RefreshRateGate;

  constructor(inner: Adapter, gate: RefreshRateGate) {
    super(inner);
    this.#gate = gate;
  }

  override find(id: string): ReturnType<Adapter['find']> {
    return this.inner.find(id).then((payload) => {
      this.#gate.read(payload ?? undefined);
      return payload;
    });
  }

  override consume(id: string): Promise<void> {
    return this.#gate.hold(() => this.inner.consume(id));
  }

  override upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    return this.#gate.hold(() => this.inner.upsert(id, payload, expiresIn as number));
  }
}

class CountedAccessTokens extends DelegatingAdapter {
  readonly #gate: RefreshRateGate;

  constructor(inner: Adapter, gate: RefreshRateGate) {
    super(inner);
    this.#gate = gate;
  }

  override upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    return this.#gate.save(() => this.inner.upsert(id, payload, expiresIn as number));
  }
}

/**
 * `factory` (the provider's storage, refresh grace included) with each refresh counted against
 * its grant's budget, whose state is kept in `budgets` (the host's adapter, model
 * {@link REFRESH_RATE_MODEL}); `false`: `factory` as it is.
 */
export function withRefreshRate<F extends AdapterFactory>(
  factory: F, budgets: AdapterFactory, settings: RefreshRateSettings | false,
  options: { readonly now?: () => number; readonly request?: () => TokenRequest | undefined } = {},
): F {
  if (settings === false) return factory;
  const budget = new RateBudget(budgets, REFRESH_RATE_MODEL, { size: settings.perGrant, windowSeconds: settings.windowSeconds }, options.now);
  const gate = new RefreshRateGate(budget, options.request ?? currentRequest);
  const counted = decorateModel(factory, 'RefreshToken', (inner) => new CountedRefreshTokens(inner, gate));
  return decorateModel(counted, 'AccessToken', (inner) => new CountedAccessTokens(inner, gate));
}
