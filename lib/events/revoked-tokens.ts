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
 * Written off the revocation's path and together: the records of the revocations answered
 * in one turn of the event loop go out at its end in one write (one command on a single
 * Redis, with an adapter that offers `PutRecords`); under load, when storage replies arrive
 * together, many revocations share a command. Written in the turn that answered the
 * revocation, the record is in storage before the client can present the token anywhere
 * else; until then this instance finds it in memory.
 *
 * @module
 */
import { hash } from 'node:crypto';

import type { Adapter, AdapterFactory, AdapterPayload, PutRecords, RecordWrite } from '../../adapters/types.ts';
import type { TokenOwner } from './refusals.ts';

export const REVOKED_TOKEN_MODEL = 'RevokedAccessToken';

/** When a token gives no expiry: oidc-provider's default access-token lifetime. */
const DEFAULT_KEPT_S = 3600;

// crypto.hash, one call: no Hash object per token (a revocation is on the hot path)
const keyOf = (token: string): string => hash('sha256', token, 'base64url');
const epoch = () => Math.floor(Date.now() / 1000);

interface Pending {
  readonly payload: AdapterPayload;
  /** epoch seconds */
  readonly expiresAt: number;
}

export class RevokedTokens {
  readonly #store: Adapter;
  readonly #putRecords: PutRecords['putRecords'] | undefined;
  /** records not written yet, by key */
  #pending = new Map<string, Pending>();
  /** the batches being written: still found here until they are */
  readonly #writing = new Set<Map<string, Pending>>();
  #scheduled: NodeJS.Immediate | undefined;

  constructor(adapter: AdapterFactory) {
    this.#store = adapter(REVOKED_TOKEN_MODEL);
    const { putRecords } = adapter as Partial<PutRecords>;
    this.#putRecords = typeof putRecords === 'function' ? putRecords.bind(adapter) : undefined;
  }

  /** Remembers that `token` was revoked, until `expiresAt` (epoch seconds); written at the end of this turn. */
  remember(token: string, owner: TokenOwner, expiresAt: number | undefined): void {
    const until = typeof expiresAt === 'number' ? expiresAt : epoch() + DEFAULT_KEPT_S;
    if (until <= epoch()) return;
    this.#pending.set(keyOf(token), {
      payload: {
        ...(owner.clientId === undefined ? {} : { clientId: owner.clientId }),
        ...(owner.accountId === undefined ? {} : { accountId: owner.accountId }),
        ...(owner.site === undefined ? {} : { site: owner.site }),
      },
      expiresAt: until,
    });
    this.#scheduled ??= setImmediate(() => void this.flush());
  }

  /** Who `token` belonged to, if it was revoked. */
  async find(token: string): Promise<TokenOwner | undefined> {
    const key = keyOf(token);
    let stored: AdapterPayload | undefined = this.#pending.get(key)?.payload;
    for (const batch of this.#writing) stored ??= batch.get(key)?.payload;
    stored ??= (await this.#store.find(key)) ?? undefined;
    if (!stored) return undefined;
    const read = (name: string) => (typeof stored[name] === 'string' ? stored[name] as string : undefined);
    return { clientId: read('clientId'), accountId: read('accountId'), site: read('site') };
  }

  /**
   * Writes what is waiting (end of turn, shutdown, tests). Best effort: a record lost to a
   * storage fault makes a later refusal of its token `unknown` instead of `revoked`.
   */
  async flush(): Promise<void> {
    clearImmediate(this.#scheduled);
    this.#scheduled = undefined;
    const batch = this.#pending;
    if (batch.size === 0) return;
    this.#pending = new Map();
    this.#writing.add(batch);
    const now = epoch();
    const writes: RecordWrite[] = [];
    for (const [id, { payload, expiresAt }] of batch) {
      if (expiresAt > now) writes.push({ model: REVOKED_TOKEN_MODEL, id, payload, expiresIn: expiresAt - now });
    }
    try {
      if (this.#putRecords) await this.#putRecords(writes);
      else await Promise.all(writes.map((w) => this.#store.upsert(w.id, w.payload, w.expiresIn)));
    } catch {
      // best effort, as above
    } finally {
      this.#writing.delete(batch);
    }
  }
}
