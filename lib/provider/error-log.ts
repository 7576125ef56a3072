/**
 * oidc-provider's unexpected failures (`server_error`, answered 500 with no detail) are
 * written to the library's logger, so a host sees why a request failed: the route, the
 * request id (`X-Request-Id`, lib/http/request-id.ts), and the error's name and message. Never the
 * request's parameters, headers or body, so no code, token or secret reaches the log; nor a
 * resume's uid, which is the value of its interaction cookies: its path is written as the
 * endpoint table names it (`/oauth/authorize/:uid`).
 * Storage outages are not among them: they are 503s, logged by lib/storage/outage-log.ts.
 *
 * An error that escapes oidc-provider's error handlers (it saves the session after they have
 * run) reaches the provider's Koa application, which emits it as `error`; with no listener,
 * Koa printed its stack with `console.error`, past the logger. It is logged here the same way,
 * once: not again when the request already logged that line as a `server_error` (a session
 * save failing in the handler, then again after it).
 *
 * @module
 */
import type Koa from 'koa';
import type Provider from 'oidc-provider';

import type { Logger } from '../contracts.ts';
import { ENDPOINTS } from '../endpoints.ts';
import { isWellFormedRequestId, requestIdOf, requestTag } from '../http/request-id.ts';

interface ErrorContext {
  readonly method?: string;
  readonly path?: string;
  get?(header: string): string;
  readonly res?: { getHeader(name: string): unknown };
  readonly oidc?: { readonly route?: string };
}

const RESUME_PREFIX = `${ENDPOINTS.authorization.path}/`;

/** `path` as a log line may show it: a resume's uid (a cookie's value) replaced by `:uid`. */
function loggedPath(path: string | undefined): string {
  if (path === undefined) return '?';
  return path.startsWith(RESUME_PREFIX) ? `${RESUME_PREFIX}:uid` : path;
}

/** The log line of one provider `server_error`. */
export function serverErrorLine(ctx: ErrorContext, error: unknown): string {
  // the id the response carries (lib/http/request-id.ts); the request's own, if well-formed, when none was assigned
  const sent = ctx.get?.('x-request-id');
  const requestId = requestIdOf(ctx) ?? (isWellFormedRequestId(sent) ? sent : undefined);
  const where = `${ctx.method ?? '?'} ${loggedPath(ctx.path)}${ctx.oidc?.route ? ` (${ctx.oidc.route})` : ''}`;
  const what = error instanceof Error ? `${error.name}: ${error.message}` : 'a non-Error value was thrown';
  return `platform-auth: oidc-provider answered server_error to ${where}${requestTag(requestId)}: ${what}`;
}

/** What Koa's own `error` printer skips: not-found and client errors (`expose`), no failure of this server. */
function isClientError(error: unknown): boolean {
  const { status, expose } = (error ?? {}) as { status?: unknown; expose?: unknown };
  return status === 404 || Boolean(expose);
}

/** The socket errors of a client that went away (a reset, a closed tab). */
const CLIENT_GONE = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE']);

/**
 * Koa also emits `error` for the socket of a client that reset its connection mid-request
 * (on-finished hands it `read ECONNRESET`): no failure of this server, and any client could
 * write one error line per request that a host alerting on server errors would page on. Only
 * when the request's own socket is gone: the same codes from a storage connection are not.
 */
function isClientGone(error: unknown, ctx: ErrorContext | undefined): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  const socket = (ctx as { req?: { socket?: { destroyed?: boolean } } } | undefined)?.req?.socket;
  return typeof code === 'string' && CLIENT_GONE.has(code) && socket?.destroyed === true;
}

export function logProviderErrors(provider: Provider, logger: Logger): void {
  // the lines each request logged as server_error, so an escape of the same failure is not logged twice
  const logged = new WeakMap<object, Set<string>>();
  provider.on('server_error', (ctx: ErrorContext, error: unknown) => {
    const line = serverErrorLine(ctx, error);
    const lines = logged.get(ctx);
    if (lines) lines.add(line);
    else logged.set(ctx, new Set([line]));
    logger.error(line);
  });
  // the provider is a Koa application (oidc-provider's event types leave `error` out); Koa
  // attaches its console printer in `callback()` only when nothing listens to `error`, and
  // one attached by an earlier `callback()` is taken off
  const app: Koa = provider;
  app.off('error', app.onerror);
  app.on('error', (error: unknown, ctx: ErrorContext | undefined) => {
    if (isClientError(error) || isClientGone(error, ctx)) return;
    const line = serverErrorLine(ctx ?? {}, error);
    if (ctx && logged.get(ctx)?.has(line)) return;
    logger.error(line);
  });
}
