/**
 * The policies' work on oidc-provider's answers, once it has been written to the context
 * (status, body, headers), run by one provider middleware. Each step used to be a provider
 * middleware of its own, and each middleware is an async frame, a promise and an await on
 * every request the provider answers, whatever the route; most steps look at the route and
 * return. Steps that do storage work return a promise, and only those are awaited.
 *
 * @module
 */
import type { Middleware } from 'koa';

import type { AfterAnswer } from '../policies/provider-answer.ts';

/** `steps` in order, after the provider (and the middleware installed after this one) has answered. */
export function afterProviderAnswer(steps: readonly AfterAnswer[]): Middleware {
  return async function providerAnswer(ctx, next) {
    await next();
    for (const step of steps) {
      const pending = step(ctx);
      if (pending) await pending;
    }
  };
}
