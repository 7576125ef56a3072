/**
 * The shape of an oidc-provider answer that a response rule may adjust after the provider
 * has written it (a rule the provider offers no setting for, such as "no `id_token` on
 * refresh"). lib/provider/answer-rules.ts runs the rules; each rule lives with its policy.
 *
 * @module
 */

export interface ProviderAnswer {
  /** oidc-provider's route name (`token`, `discovery`, `registration`, …) */
  readonly route: string | undefined;
  /** the request's `grant_type`, at the token endpoint */
  readonly grantType: unknown;
  readonly status: number;
  /** the JSON body, changed in place */
  readonly body: Record<string, unknown>;
}

export type AnswerRule = (answer: ProviderAnswer) => void;
