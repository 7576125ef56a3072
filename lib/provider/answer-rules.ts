/**
 * Runs the answer rules of the policies (lib/policies/*: `noIdTokenOnRefresh`, the ID-token
 * switch, the registration refusal code) on oidc-provider's JSON answers, as one step of
 * the provider's answer (./after-answer.ts).
 *
 * @module
 */
import type { AfterAnswer, AnswerRule } from '../policies/provider-answer.ts';

interface OidcState {
  readonly route?: string;
  readonly params?: Record<string, unknown>;
}

export function applyAnswerRules(rules: readonly AnswerRule[]): AfterAnswer {
  return function providerAnswerRules(ctx) {
    const oidc = (ctx as { oidc?: OidcState }).oidc;
    const body = ctx.body as Record<string, unknown> | undefined;
    if (!oidc || !body || typeof body !== 'object') return;
    const answer = { route: oidc.route, grantType: oidc.params?.grant_type, status: ctx.status, body };
    for (const rule of rules) rule(answer);
  };
}
