/**
 * Fail closed when storage is unreachable: a request that needs it is answered 503
 * `temporarily_unavailable` (RFC 6749 §5.2 JSON, or a short page for browsers) with
 * `Retry-After`, never a hang, a 500 or a crash, and the next request after storage is
 * back is served normally (adapters reconnect by themselves; nothing here keeps state).
 *
 * Adapters reject with `StorageUnavailableError` (adapters/types.ts), an oidc-provider
 * error with status 503, so the provider's own error handlers already answer it on its
 * endpoints. Two guards cover the rest:
 *
 * - `providerStorageOutageGuard`, the first `provider.use()` middleware: answers the error
 *   when it escapes those handlers (oidc-provider saves the session after its error
 *   handler has run), and puts the outage page and `Retry-After` on the provider's 503s.
 * - `storageOutageGuard`, first in the library's route chain: the same for the sign-in and
 *   consent pages, UserInfo, the Account API and whatever host route comes after them.
 *
 * Discovery, JWKS and the protected-resource metadata never touch storage and keep working.
 *
 * @module
 */
import type { Context, Middleware } from 'koa';

import { StorageUnavailableError } from '../../adapters/types.ts';
import { writeNoticePage } from '../pages/notice.ts';
import { exposeRetryAfter } from '../policies/cors.ts';
import type { Logger } from '../contracts.ts';
import { TemporarilyUnavailableError } from '../errors.ts';
import { isAuthorizationPath } from '../endpoints.ts';
import { diagnosticsOf } from '../events/diagnostics.ts';
import { writeError } from '../http/error-response.ts';
import { keepRequestIdOn, REQUEST_ID_HEADER } from '../http/request-id.ts';
import { outageLog } from './outage-log.ts';
import type { OutageLog } from './outage-log.ts';

/** Sent as `Retry-After`: about how long a Redis restart or failover takes to be noticed. */
export const RETRY_AFTER_SECONDS = 5;

/** `error` and the errors it was caused by, outermost first. */
function* causeChain(error: unknown): Generator<Error> {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; depth += 1) {
    yield e;
    e = e.cause;
  }
}

/** Whether `error`, or an error it was caused by, says that storage is unreachable. */
export function isStorageUnavailable(error: unknown): error is Error {
  for (const e of causeChain(error)) {
    if (e instanceof StorageUnavailableError || e instanceof TemporarilyUnavailableError) return true;
  }
  return false;
}

/** The adapter's short reason (an error code), when the error carries one. */
function reasonOf(error: unknown): string | undefined {
  for (const e of causeChain(error)) {
    if (e instanceof StorageUnavailableError) return e.error_detail;
  }
  return undefined;
}

/**
 * The reason of a storage failure answered 503 by whoever caught it (oidc-provider's error
 * handler, the bearer check of a protected endpoint), by request: the guards see only the
 * answer. Noted by {@link noteOutageReason}, read when the 503 is counted.
 */
const answeredReasons = new WeakMap<object, string>();

/** Notes the reason (the adapter's words, `redis: OOM`) of the storage failure `error` that `ctx` is answered 503 for. */
export function noteOutageReason(ctx: object | undefined, error: unknown): void {
  const reason = reasonOf(error);
  if (reason !== undefined && ctx) answeredReasons.set(ctx, reason);
}

/** A 503 someone further down already wrote (UserInfo's bearer check, a host route). */
function isOutageAnswer(ctx: Context): boolean {
  if (ctx.status !== 503) return false;
  const body = ctx.body as { error?: unknown } | string | undefined;
  return typeof body === 'object' && body !== null && body.error === 'temporarily_unavailable';
}

function setRetryHeaders(ctx: Context): void {
  ctx.set('Retry-After', String(RETRY_AFTER_SECONDS));
  ctx.set('Cache-Control', 'no-store');
}

function writeOutagePage(ctx: Context): void {
  writeNoticePage(ctx, 503, {
    title: 'Temporarily unavailable',
    message: 'This cannot be completed right now. Please try again in a moment.',
  });
}

/**
 * Answers 503 `temporarily_unavailable`: JSON, or the page when the client prefers HTML or
 * `page` says the endpoint is a browser's (the authorization endpoint answers pages whatever
 * `Accept` says, as oidc-provider's own error handler there does).
 */
export function answerStorageUnavailable(ctx: Context, page = false): void {
  // drop whatever a handler set before storage failed under it (a redirect, a cookie), as
  // Koa's own error handling does; but keep the CORS answer, so a browser client can read the
  // 503, and the request id
  ctx.res.getHeaderNames()
    .filter((name) => !name.startsWith('access-control-') && name !== 'vary' && name !== REQUEST_ID_HEADER)
    .forEach((name) => ctx.remove(name));
  // the same test as oidc-provider's error handler: JSON unless HTML is preferred
  if (page || ctx.accepts('json', 'html') === 'html') writeOutagePage(ctx);
  else writeError(ctx, new TemporarilyUnavailableError());
  setRetryHeaders(ctx);
}

/** One request answered 503: the outage log, and the `storage.unavailable` event. */
function refused(ctx: Context, log: OutageLog, reason: string | undefined): void {
  log.refused(reason);
  const diagnostics = diagnosticsOf(ctx);
  if (diagnostics?.wants('storage.unavailable')) diagnostics.emit({ name: 'storage.unavailable', ...(reason === undefined ? {} : { reason }) }, ctx);
}

/**
 * Runs `next`, then `answered` on the answer; a storage failure under either is answered 503
 * (and `answered` is not called, or not finished), anything else is rethrown. Written with
 * `then`, not as an async function: this guard is on every request, and under oidc-provider's
 * AsyncLocalStorage each async frame and await adds promises that the runtime's promise hooks
 * then pay for. `answered` returns a promise only when it has storage work to wait for.
 */
function guard(
  ctx: Context, next: () => Promise<unknown>, log: OutageLog, answered: (ctx: Context) => Promise<void> | void, page?: (ctx: Context) => boolean,
): Promise<void> {
  let running: Promise<unknown>;
  try {
    running = next();
  } catch (error) {
    running = Promise.reject(error);
  }
  const failed = (error: unknown): void => {
    if (!isStorageUnavailable(error) || ctx.headerSent) {
      // whoever answers it (Koa's handler, the host's), the answer keeps its request id
      keepRequestIdOn(error, ctx.res);
      throw error;
    }
    refused(ctx, log, reasonOf(error));
    answerStorageUnavailable(ctx, page?.(ctx));
  };
  return running.then(() => {
    let pending: Promise<void> | void;
    try {
      pending = answered(ctx);
    } catch (error) {
      failed(error);
      return undefined;
    }
    return pending?.then(undefined, failed);
  }, failed);
}

/** Wraps the library's own routers (interactions, UserInfo, Account API, MCP) and the host's routes after them. */
export function storageOutageGuard(logger: Logger): Middleware {
  const log = outageLog(logger);
  // an answer written outside Koa (ctx.respond false) is not this guard's to count; the
  // provider's paths skip this guard, and the provider's own guard counts its 503s
  const answered = (ctx: Context) => {
    if (ctx.respond !== false && isOutageAnswer(ctx)) {
      refused(ctx, log, answeredReasons.get(ctx));
      setRetryHeaders(ctx);
    }
  };
  return function storageOutage(ctx, next) {
    return guard(ctx, next, log, answered);
  };
}

/**
 * oidc-provider's error events, one per endpoint (its lib/helpers/initialize_app.js and the
 * authorization endpoints' `authorization.error`): each carries the error its handler answered.
 */
const PROVIDER_ERROR_EVENTS = [
  'authorization.error', 'backchannel_authentication.error', 'challenge.error', 'code_verification.error',
  'credential.error', 'device_authorization.error', 'device_resume.error', 'discovery.error',
  'end_session.error', 'end_session_confirm.error', 'end_session_success.error', 'grant.error',
  'introspection.error', 'jwks.error', 'openid_credential_issuer.error', 'pushed_authorization_request.error',
  'registration_create.error', 'registration_delete.error', 'registration_read.error',
  'registration_update.error', 'revocation.error', 'userinfo.error',
] as const;

/** What {@link providerStorageOutageGuard} listens to: the provider's events. */
export interface ProviderEvents {
  on(event: string, listener: (ctx: Context, error: unknown) => void): unknown;
}

/**
 * Installed with `provider.use()`, before everything else: the same for the provider's own
 * endpoints. oidc-provider's error handler catches a storage failure and answers it itself,
 * so this guard sees only the status: the failure's reason (the adapter's words, `redis:
 * OOM`) is taken from the endpoint's error event, for the log and `storage.unavailable`. `onAnswer` is the policies' work on the provider's answer (lib/provider/after-answer.ts),
 * run inside this guard, so that a storage failure in it is a 503 too, and before the guard
 * looks at the status; one middleware for both, since each provider middleware is a frame and
 * a promise on every request the provider answers. `before` is a step in front of the
 * provider (the authorization-request rate, lib/provider/authorization-rate.ts), run inside
 * the guard for the same reasons: it calls `next` to let the provider answer.
 */
export function providerStorageOutageGuard(
  logger: Logger, onAnswer: (ctx: Context) => Promise<void> | undefined, events?: ProviderEvents, before?: Middleware,
): Middleware {
  const log = outageLog(logger);
  for (const event of PROVIDER_ERROR_EVENTS) events?.on(event, noteOutageReason);
  // oidc-provider answers no 503 of its own: these are StorageUnavailableError, rendered
  // by its error handlers as JSON or through renderError as a "this link does not work" page
  const outageAnswered = (ctx: Context) => {
    if (ctx.status !== 503) return;
    refused(ctx, log, answeredReasons.get(ctx));
    if (ctx.response.is('html')) writeOutagePage(ctx);
    setRetryHeaders(ctx);
  };
  const settled = (ctx: Context) => {
    outageAnswered(ctx);
    // a rate limit's 429 or the outage's 503: when to retry, readable to a browser client
    if (ctx.status === 429 || ctx.status === 503) exposeRetryAfter(ctx);
  };
  const answered = (ctx: Context) => {
    const pending = onAnswer(ctx);
    return pending ? pending.then(() => settled(ctx)) : settled(ctx);
  };
  if (!before) {
    return function providerStorageOutage(ctx, next) {
      return guard(ctx, next, log, answered);
    };
  }
  // what fails here before the provider answers is `before`'s: at the authorization endpoint, a page
  const authorization = (ctx: Context) => isAuthorizationPath(ctx.path);
  return function providerStorageOutage(ctx, next) {
    return guard(ctx, () => before(ctx, next), log, answered, authorization);
  };
}
