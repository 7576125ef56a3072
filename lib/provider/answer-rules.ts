/**
 * Runs the answer rules of the policies (lib/policies/*: `noIdTokenOnRefresh`, the ID-token
 * switch, the registration refusal code) on oidc-provider's JSON answers, as one provider
 * middleware.
 *
 * @module
 */
import type { Middleware } from 'koa';

import type { AnswerRule } from '../policies/provider-answer.ts';

interface OidcState {
  readonly route?: string;
  readonly params?: Record<string, unknown>;
}

export function applyAnswerRules(rules: readonly AnswerRule[]): Middleware {
  return async function providerAnswerRules(ctx, next) {
    await next();
    const oidc = (ctx as { oidc?: OidcState }).oidc;
    const body = ctx.body as Record<string, unknown> | undefined;
    if (!oidc || !body || typeof body !== 'object') return;
    const answer = { route: oidc.route, grantType: oidc.params?.grant_type, status: ctx.status, body };
    for (const rule of rules) rule(answer);
  };
}
