/**
 * Request targets Koa cannot read. Node's HTTP parser accepts request lines whose target Koa's
 * parser (the legacy `url.parse`, through `parseurl`) reads as no path at all (`GET foo://host`,
 * a target in absolute form with another scheme and no path) or throws on (`GET
 * http://[::1/x`). Every router, the library's and the host's, reads `ctx.path` and would fail
 * with a 500; such a request is answered 400 before any of them runs.
 *
 * @module
 */
import type { Context } from 'koa';

import { InvalidRequestError } from '../errors.ts';
import { writeError } from './error-response.ts';

/** Whether Koa reads a path from the request's target (parsed once: `ctx.path` keeps it). */
export function hasReadablePath(ctx: Context): boolean {
  try {
    return typeof ctx.path === 'string';
  } catch {
    return false;
  }
}

const UNREADABLE = new InvalidRequestError('the request target is not a path this server can read');

/** Answers a request whose target {@link hasReadablePath} refused: 400 `invalid_request`. */
export function refuseUnreadableTarget(ctx: Context): void {
  writeError(ctx, UNREADABLE);
}
