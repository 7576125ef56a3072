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
  // `then`, not an async frame with an await, for the reason the module header gives
  return function providerAnswer(ctx, next) {
    return next().then(() => runSteps(steps, ctx, 0));
  };
}

/** Runs `steps` from `from` on; waits only for a step that returned a promise. */
function runSteps(steps: readonly AfterAnswer[], ctx: Parameters<AfterAnswer>[0], from: number): Promise<void> | undefined {
  for (let i = from; i < steps.length; i += 1) {
    const pending = steps[i]!(ctx);
    if (pending) return pending.then(() => runSteps(steps, ctx, i + 1));
  }
  return undefined;
}
