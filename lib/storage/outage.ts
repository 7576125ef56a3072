/**
 * Fail closed when storage is unreachable: requests that need it get a clear 503 answer,
 * never a hang or a crash. Placeholder: the implementation lands with the Redis work.
 *
 * @module
 */
import type { Middleware } from 'koa';

import type { Logger } from '../config/options.ts';

/** Wraps the library's own routers (interactions, UserInfo, Account API, MCP). */
export function storageOutageGuard(_logger: Logger): Middleware {
  return async function storageOutage(_ctx, next) {
    await next();
  };
}

/** Installed with `provider.use()`: the same for the provider's own endpoints. */
export function providerStorageOutageGuard(_logger: Logger): Middleware {
  return async function providerStorageOutage(_ctx, next) {
    await next();
  };
}
