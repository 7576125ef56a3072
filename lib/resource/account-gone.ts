/**
 * A bearer token whose account the host no longer knows (`accounts.findById` answers
 * nothing): refused `invalid_token` wherever the token would act for the account (UserInfo,
 * the Account API, `/mcp`), with an `access.refused` event of reason `account_gone`.
 *
 * @module
 */
import { InvalidTokenError } from '../errors.ts';
import { noteRefusal } from '../events/refusals.ts';

/** The refusal, noted for the event; `owner`: the token's client and account, when known. */
export function accountGone(owner: { readonly clientId?: string; readonly accountId?: string } = {}): InvalidTokenError {
  return noteRefusal(new InvalidTokenError('the account of this access token no longer exists'), { reason: 'account_gone', ...owner });
}
