/**
 * The library reads request bodies itself (oidc-provider, the sign-in forms, the Account API,
 * `/mcp`), so `auth.routes()` must be mounted before any body parser of the host. A parser
 * mounted first consumes the body, and the token endpoint would then answer a misleading
 * `invalid_request "no client authentication mechanism provided"`. This guard notices it on
 * the library's own paths and answers a clear configuration error instead, logged once.
 *
 * The same for middleware that only listens to the body as it passes (a `data` listener on
 * `ctx.req` counting bytes, `resume()`, a `pipe()`): the stream then flows, and whatever
 * arrived with the headers is emitted before the library's reader is attached, after its
 * first `await`. Whether a body is lost depends on how the client's packets fell (measured:
 * `/mcp` answered a JSON-RPC "Parse error" while the token endpoint happened to read its
 * body), so such a mount is refused every time rather than failing now and then under load.
 *
 * @module
 */
import type { Context, Middleware } from 'koa';

import type { Logger } from '../contracts.ts';
import { ConfigurationError, PlatformAuthError } from '../errors.ts';
import { writeError } from './error-response.ts';

export const MOUNT_ORDER_MESSAGE = 'platform-auth: a body parser ran before auth.routes(), so the library cannot read request bodies (the token, revocation and introspection endpoints, the sign-in forms, the Account API and /mcp would fail). Mount app.use(auth.routes()) before any body parser; the library never needs the host\'s parser.';

export const FLOWING_BODY_MESSAGE = 'platform-auth: middleware before auth.routes() reads the request stream as it arrives (a \'data\' listener on ctx.req, resume() or pipe()), so the library would lose the start of request bodies (the token, revocation and introspection endpoints, the sign-in forms, the Account API and /mcp would fail now and then). Mount app.use(auth.routes()) before that middleware, or have it read only requests outside the library\'s paths.';

const WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

/** What something before the library did with this request's body, if anything. */
function bodyTaken(ctx: Context): 'parsed' | 'flowing' | undefined {
  if (!WITH_BODY.has(ctx.method)) return undefined;
  const { req } = ctx;
  if (req.readableEnded || (ctx.request as { body?: unknown }).body !== undefined) return 'parsed';
  // flowing: a `data` listener, resume() or pipe(); nothing of the library's own reads it before this
  return req.readableFlowing === true ? 'flowing' : undefined;
}

/**
 * Refuses a request whose body something before the library has already read, parsed or
 * started reading: 500 `server_error` to the caller (no detail), the fix to the log, once per
 * kind. `true` when it answered; every other request is left alone (`false`).
 */
export function createMountOrderGuard(logger: Logger): (ctx: Context) => boolean {
  const logged = new Set<string>();
  const messages = { parsed: MOUNT_ORDER_MESSAGE, flowing: FLOWING_BODY_MESSAGE } as const;
  return function refuseMisMounted(ctx) {
    const kind = bodyTaken(ctx);
    if (kind === undefined) return false;
    if (!logged.has(kind)) {
      logged.add(kind);
      logger.error(messages[kind]);
    }
    writeError(ctx, new PlatformAuthError('server_error', 500, 'the authorization server is misconfigured', { cause: new ConfigurationError(messages[kind]), expose: true }));
    return true;
  };
}

/** The router mis-mount's log line: `mounted` inside a router, and what then answers 404. */
function routerMountMessage(mounted: string, unanswered: string): string {
  return `platform-auth: ${mounted} is mounted inside a @koa/router router (router.use(${mounted})). A router runs such middleware only for paths that one of its own routes matches, so ${unanswered} answer 404. Mount it on the app instead: app.use(${mounted}), before the host's routers and body parsers.`;
}

export const ROUTER_MOUNT_MESSAGE = routerMountMessage('auth.routes()', 'the discovery documents, the OAuth endpoints, the sign-in pages, /account/graphql and /mcp');

/** What @koa/router (and koa-router) leave on the context of a request they route: the router, with its layers. */
interface RouterLike {
  readonly stack?: readonly { readonly methods?: readonly unknown[]; readonly stack?: readonly unknown[] }[];
}

/**
 * Notices `router.use(auth.routes())`, which looks right and serves the host's own paths, but
 * leaves every path of the library unanswered: @koa/router runs a `use()` middleware only on a
 * path one of the router's routes matches, and none of its routes match the library's. Nothing
 * reaches the library on those paths, so it can only be noticed on the requests that do reach
 * it (the host's routes through that router), and is logged once with the fix.
 *
 * `ctx.router` alone would not do: a router mounted on the app before `auth.routes()` sets it
 * too when it passes a request on. The router must hold `routes` itself as middleware
 * (a `use()` layer: no methods); one mounted as a route (`router.all(…)` on a pattern that
 * matches every path) is routed for every path and works.
 */
export function createRouterMountCheck(logger: Logger, message = ROUTER_MOUNT_MESSAGE): (ctx: Context, routes: unknown) => void {
  let logged = false;
  // each router looked at once: its layers are fixed by the time it routes requests
  const seen = new WeakSet<object>();
  return function checkRouterMount(ctx, routes) {
    const router = (ctx as { router?: unknown }).router;
    if (logged || typeof router !== 'object' || router === null || seen.has(router)) return;
    seen.add(router);
    const { stack } = router as RouterLike;
    const mounted = Array.isArray(stack) && stack.some((layer) => Array.isArray(layer?.methods) && layer.methods.length === 0
      && Array.isArray(layer.stack) && layer.stack.includes(routes));
    if (!mounted) return;
    logged = true;
    logger.error(message);
  };
}

/** {@link ROUTER_MOUNT_MESSAGE} for one piece of `auth.middleware`. */
export function pieceRouterMountMessage(name: string): string {
  return routerMountMessage(`auth.middleware.${name}`, 'the paths this piece serves');
}

/**
 * The pieces of `auth.middleware`, each noticing `router.use(piece)` as `routes()` notices
 * `router.use(auth.routes())`: logged once per piece, with the fix, on the first request a
 * router hands it. What is mounted is the returned function, so the check looks for it.
 */
export function withRouterMountChecks<T extends Record<string, Middleware | undefined>>(pieces: T, logger: Logger): Readonly<T> {
  const checked: Record<string, Middleware | undefined> = {};
  for (const [name, piece] of Object.entries(pieces)) {
    if (piece === undefined) {
      checked[name] = undefined;
      continue;
    }
    const check = createRouterMountCheck(logger, pieceRouterMountMessage(name));
    const mounted: Middleware = function routerMountChecked(ctx, next) {
      if ((ctx as { router?: unknown }).router !== undefined) check(ctx, mounted);
      return piece(ctx, next);
    };
    checked[name] = mounted;
  }
  return Object.freeze(checked) as Readonly<T>;
}
