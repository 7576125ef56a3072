/**
 * A piece of `auth.middleware` mounted on its own keeps, on its own paths, the rules that
 * `routes()` applies around it:
 *
 * - a body a host parser read first, or a stream middleware in front set flowing, is refused
 *   with the configuration error (./mount-order.ts), not read half or taken as the parser
 *   left it (the Account API answered 500, `/mcp` took the parser's object past its own
 *   size and media-type rules);
 * - a storage failure is the outage answer of lib/storage/outage.ts: 503 with `Retry-After`,
 *   the outage page for a browser, the outage log and the `storage.unavailable` event. On
 *   its own, a sign-in page answered Koa's plain-text 503, and UserInfo, the Account API and
 *   `/mcp` their 503 without `Retry-After` and without a line in the log.
 *
 * Inside `routes()` the pieces run unwrapped: it applies both rules once, in front of them.
 * Paths a piece does not own pass to the host as they came: what the host mounts after it
 * is the host's to guard.
 *
 * @module
 */
import type { Context, Middleware } from 'koa';

export interface AloneRules {
  /** lib/storage/outage.ts `storageOutageGuard`, one for every piece */
  readonly outage: Middleware;
  /** ./mount-order.ts `createMountOrderGuard`, one for every piece and `routes()`: `true` when it refused */
  readonly refuseMisMounted: (ctx: Context) => boolean;
}

/** `piece`, with the rules above on the paths `owns` says are its own. */
export function mountedAlone(piece: Middleware, owns: (path: string) => boolean, { outage, refuseMisMounted }: AloneRules): Middleware {
  return function pieceMountedAlone(ctx, next) {
    if (!owns(ctx.path)) return piece(ctx, next);
    if (refuseMisMounted(ctx)) return Promise.resolve();
    return outage(ctx, () => piece(ctx, next));
  };
}
