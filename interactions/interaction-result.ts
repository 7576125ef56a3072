/**
 * oidc-provider's `interactionResult`, on the interaction this request already loaded.
 *
 * `provider.interactionResult(req, res, result)` loads the interaction again (its signed
 * cookie checked, the record read, and the session read by uid when the interaction has
 * one), then merges, saves and returns `returnTo`. Every caller here has loaded the same
 * interaction moments before in the same request, through `interactionDetails` (which ran
 * those very checks) or, for the host's sign-in page, by its binding. The second load
 * cost a login flow three storage round trips (the interaction at sign-in and at consent,
 * the session at consent) and two cookie verifications.
 *
 * What the second load could add: a change to the record or the session made by another
 * request in the milliseconds between the two reads. Nothing depends on seeing it here:
 * the resume that follows (`/oauth/authorize/:uid`) reads the interaction and the browser's
 * session again and refuses a session whose principal changed, as oidc-provider always does.
 *
 * @module
 */
import type { Interaction } from './login-result.ts';

export interface ResultOptions {
  /**
   * Keep what an earlier step submitted in the same interaction (`lastSubmission`), as
   * `interactionResult` does by default; an `error` result is never merged.
   */
  readonly mergeWithLastSubmission?: boolean;
}

const epoch = () => Math.floor(Date.now() / 1000);

/** Stores `result` on `interaction` exactly as `provider.interactionResult` does; returns where to resume. */
export async function saveInteractionResult(interaction: Interaction, result: Record<string, unknown>, { mergeWithLastSubmission = true }: ResultOptions = {}): Promise<string> {
  interaction.result = mergeWithLastSubmission && !('error' in result) ? { ...interaction.lastSubmission, ...result } : result;
  await interaction.save(interaction.exp - epoch());
  return interaction.returnTo;
}
