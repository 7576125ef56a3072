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
 * Written in the step that revoked the token, not awaited by the revocation's answer: with
 * an adapter that offers `PutRecords`, asked for before oidc-provider revokes the token's grant,
 * which on a single Redis carries it in the same command (adapters/redis.ts, revokeGrant), and
 * joins the other record writes of its turn otherwise. Asked for in the turn that answered the
 * revocation, the record is in storage before the client can present the token anywhere
 * else; until it is written, this instance finds it in memory.
 *
 * @module
 */
import { hash } from 'node:crypto';

import type { Adapter, AdapterFactory, AdapterPayload, PutRecords } from '../../adapters/types.ts';
import type { TokenOwner } from './refusals.ts';

export const REVOKED_TOKEN_MODEL = 'RevokedAccessToken';

/** When a token gives no expiry: oidc-provider's default access-token lifetime. */
const DEFAULT_KEPT_S = 3600;

// crypto.hash, one call: no Hash object per token (a revocation is on the hot path)
const keyOf = (token: string): string => hash('sha256', token, 'base64url');
const epoch = () => Math.floor(Date.now() / 1000);

export class RevokedTokens {
  readonly #store: Adapter;
  readonly #putRecords: PutRecords['putRecords'] | undefined;
  /** records asked for and not written yet, by key */
  readonly #pending = new Map<string, AdapterPayload>();
  /** the writes under way, for flush() */
  readonly #writing = new Set<Promise<void>>();

  constructor(adapter: AdapterFactory) {
    this.#store = adapter(REVOKED_TOKEN_MODEL);
    const { putRecords } = adapter as Partial<PutRecords>;
    this.#putRecords = typeof putRecords === 'function' ? putRecords.bind(adapter) : undefined;
  }

  /** Remembers that `token` was revoked, until `expiresAt` (epoch seconds); the write is asked for now. */
  remember(token: string, owner: TokenOwner, expiresAt: number | undefined): void {
    const now = epoch();
    const expiresIn = (typeof expiresAt === 'number' ? expiresAt : now + DEFAULT_KEPT_S) - now;
    if (expiresIn <= 0) return;
    const id = keyOf(token);
    const payload: AdapterPayload = {
      ...(owner.clientId === undefined ? {} : { clientId: owner.clientId }),
      ...(owner.accountId === undefined ? {} : { accountId: owner.accountId }),
      ...(owner.site === undefined ? {} : { site: owner.site }),
    };
    this.#pending.set(id, payload);
    // synchronously, so that a storage batching per turn gets it before the grant's revocation
    let asked: Promise<unknown>;
    try {
      asked = this.#putRecords
        ? this.#putRecords([{ model: REVOKED_TOKEN_MODEL, id, payload, expiresIn }])
        : this.#store.upsert(id, payload, expiresIn);
    } catch (error) {
      // an adapter that throws rather than rejects: never the revocation's failure
      asked = Promise.reject(error);
    }
    // one `then` for both outcomes (no `finally`: two promises more on every revocation).
    // Best effort: a record lost to a storage fault makes a later refusal of its token
    // `unknown` instead of `revoked`
    const settled = () => {
      this.#writing.delete(writing);
      if (this.#pending.get(id) === payload) this.#pending.delete(id);
    };
    const writing: Promise<void> = asked.then(settled, settled);
    this.#writing.add(writing);
  }

  /** Who `token` belonged to, if it was revoked. */
  async find(token: string): Promise<TokenOwner | undefined> {
    const key = keyOf(token);
    const stored = this.#pending.get(key) ?? (await this.#store.find(key)) ?? undefined;
    if (!stored) return undefined;
    const read = (name: string) => (typeof stored[name] === 'string' ? stored[name] as string : undefined);
    return { clientId: read('clientId'), accountId: read('accountId'), site: read('site') };
  }

  /** Waits for the writes under way (shutdown, tests). */
  async flush(): Promise<void> {
    await Promise.all(this.#writing);
  }
}
