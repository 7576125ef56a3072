/**
 * Which refresh requests were served by the refresh-token grace (lib/policies/refresh-grace.ts):
 * its storage wrapper calls `markServedInGrace()` while the request is in oidc-provider, and
 * `grant.success` reads it (./provider-events.ts) to tell `refresh.grace_used` from
 * `refresh.rotated`. Keyed by oidc-provider's request context, so nothing outlives the request.
 *
 * @module
 */
import Provider from 'oidc-provider';

const served = new WeakSet<object>();

/** Marks the current provider request as served within the grace. */
export function markServedInGrace(): void {
  const ctx = Provider.ctx as object | undefined;
  if (ctx) served.add(ctx);
}

export function servedInGrace(ctx: object): boolean {
  return served.has(ctx);
}
