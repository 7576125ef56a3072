/**
 * The policies' work on oidc-provider's answers, once it has been written to the context
 * (status, body, headers). Each step used to be a provider middleware of its own, and each
 * middleware is an async frame, a promise and an await on every request the provider answers,
 * whatever the route; most steps look at the route and return. So the steps run as one
 * function, called by the provider's storage outage guard once the provider has answered
 * (lib/storage/outage.ts, `providerStorageOutageGuard`): the guard's own middleware, no second
 * one. Steps that do storage work return a promise, and only those are awaited.
 *
 * @module
 */
import type { AfterAnswer } from '../policies/provider-answer.ts';

/** Runs `steps` in order on an answer; a promise only when a step returned one (then awaited before the next). */
export function afterProviderAnswer(steps: readonly AfterAnswer[]): (ctx: Parameters<AfterAnswer>[0]) => Promise<void> | undefined {
  return (ctx) => runSteps(steps, ctx, 0);
}

/** Runs `steps` from `from` on; waits only for a step that returned a promise. */
function runSteps(steps: readonly AfterAnswer[], ctx: Parameters<AfterAnswer>[0], from: number): Promise<void> | undefined {
  for (let i = from; i < steps.length; i += 1) {
    const pending = steps[i]!(ctx);
    if (pending) return pending.then(() => runSteps(steps, ctx, i + 1));
  }
  return undefined;
}
