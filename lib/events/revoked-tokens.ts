/**
 * What is left of an access token revoked at the revocation endpoint: its client, account
 * and site, until the token would have expired (model `RevokedAccessToken`). oidc-provider
 * deletes a revoked token, so without this a revoked token and one never issued look the same
 * to the resource, and the refusal could be charged to no client.
 *
 * Kept under the SHA-256 of the token, never the token itself: the record says who a token
 * belonged to, not what it was. Tokens revoked with their whole grant (refresh-token reuse,
 * a revoked refresh token, a deleted client) leave nothing here; their refusals stay
 * `unknown`, and the revocation itself is in the client's trace.
 *
 * @module
 */
import { createHash } from 'node:crypto';

import type { Adapter, AdapterFactory } from '../../adapters/types.ts';
import type { TokenOwner } from './refusals.ts';

export const REVOKED_TOKEN_MODEL = 'RevokedAccessToken';

const keyOf = (token: string): string => createHash('sha256').update(token).digest('base64url');

export class RevokedTokens {
  readonly #store: Adapter;

  constructor(adapter: AdapterFactory) {
    this.#store = adapter(REVOKED_TOKEN_MODEL);
  }

  /** Remembers that `token` was revoked, until `expiresAt` (epoch seconds). */
  async remember(token: string, owner: TokenOwner, expiresAt: number | undefined): Promise<void> {
    const seconds = typeof expiresAt === 'number' ? expiresAt - Math.floor(Date.now() / 1000) : 3600;
    if (seconds <= 0) return;
    await this.#store.upsert(keyOf(token), {
      ...(owner.clientId === undefined ? {} : { clientId: owner.clientId }),
      ...(owner.accountId === undefined ? {} : { accountId: owner.accountId }),
      ...(owner.site === undefined ? {} : { site: owner.site }),
    }, seconds);
  }

  /** Who `token` belonged to, if it was revoked. */
  async find(token: string): Promise<TokenOwner | undefined> {
    const stored = await this.#store.find(keyOf(token));
    if (!stored) return undefined;
    const read = (key: string) => (typeof stored[key] === 'string' ? stored[key] as string : undefined);
    return { clientId: read('clientId'), accountId: read('accountId'), site: read('site') };
  }
}
