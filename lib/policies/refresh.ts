/**
 * Refresh tokens: one is issued with every code exchange (spec §4) to clients allowed the
 * `refresh_token` grant, and it is rotated on every use, so a spent one used again is
 * detected by oidc-provider and revokes the grant (RFC 9700 §4.14.2). Refresh responses carry
 * no `id_token` (spec §2.3), which the provider offers no setting for: the answer rule below
 * takes it out, and lib/provider/id-token-issuance.ts keeps the provider from making one.
 *
 * @module
 */
import type { Client } from 'oidc-provider';

import { leaveOut } from './provider-answer.ts';
import type { AnswerKind, ProviderAnswer } from './provider-answer.ts';

export async function issueRefreshToken(_ctx: unknown, client: Pick<Client, 'grantTypeAllowed'>): Promise<boolean> {
  return client.grantTypeAllowed('refresh_token');
}

export function rotateRefreshToken(): boolean {
  return true;
}

/** Refresh tokens do not end with the browser session that created them. */
export async function expiresWithSession(): Promise<boolean> {
  return false;
}

/** Whether `answer` is a `refresh_token` grant's, which goes out without an `id_token`. */
export function refreshWithholdsIdToken(answer: AnswerKind): boolean {
  return answer.route === 'token' && answer.grantType === 'refresh_token';
}

/** Answer rule: no `id_token` in a `refresh_token` grant's answer. */
export function noIdTokenOnRefresh(answer: ProviderAnswer): void {
  if (refreshWithholdsIdToken(answer)) leaveOut(answer.body, 'id_token');
}
