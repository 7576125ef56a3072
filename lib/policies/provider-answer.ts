/**
 * The shape of an oidc-provider answer that a response rule may adjust after the provider
 * has written it (a rule the provider offers no setting for, such as "no `id_token` on
 * refresh"). lib/provider/answer-rules.ts runs the rules; each rule lives with its policy.
 * Policies that need the whole context of the answer (headers, the client, storage work)
 * give an {@link AfterAnswer} step instead, run by lib/provider/after-answer.ts.
 *
 * @module
 */
import type { Context } from 'koa';

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

/** What an answer is for, known before it is written: its route and grant type. */
export type AnswerKind = Pick<ProviderAnswer, 'route' | 'grantType'>;

/**
 * Leaves `name` out of an answer's JSON body: set to `undefined`, which JSON omits, rather than
 * deleted. A `delete` turns the body into a slow dictionary object that every later access and
 * the serialisation pay for, and some rules run on every token answer.
 */
export function leaveOut(body: Record<string, unknown>, name: string): void {
  if (body[name] !== undefined) body[name] = undefined;
}

/**
 * A look at (and a change to) the provider's answer, once written to the context; a promise
 * only when there is work to wait for.
 */
export type AfterAnswer = (ctx: Context) => void | Promise<void>;
