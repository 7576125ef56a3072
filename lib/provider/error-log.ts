/**
 * oidc-provider's unexpected failures (`server_error`, answered 500 with no detail) are
 * written to the library's logger, so a host sees why a request failed: the route, the
 * request id (`X-Request-Id`, lib/http/request-id.ts), and the error's name and message. Never the
 * request's parameters, headers or body, so no code, token or secret reaches the log; nor a
 * resume's uid, which is the value of its interaction cookies: its path is written as the
 * endpoint table names it (`/oauth/authorize/:uid`).
 * Storage outages are not among them: they are 503s, logged by lib/storage/outage-log.ts.
 *
 * @module
 */
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

export function logProviderErrors(provider: Provider, logger: Logger): void {
  provider.on('server_error', (ctx: ErrorContext, error: unknown) => logger.error(serverErrorLine(ctx, error)));
}
