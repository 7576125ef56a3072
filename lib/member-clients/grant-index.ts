/**
 * The grants each member client holds, so that deleting the client can revoke them and
 * every token they issued. oidc-provider indexes tokens by grant but grants by nothing, so
 * the consent step records each new grant here (model `ClientGrants`, one record per
 * client, living as long as its newest grant). Expired entries are pruned on write.
 *
 * Two consents for one client at the same instant can race on the record and drop an
 * entry; such a grant's tokens still stop working when the client is deleted, because
 * every token use looks the client up, and they expire on their own.
 *
 * @module
 */
import type { Adapter, AdapterFactory } from '../../adapters/types.ts';

interface Entry {
  id: string;
  /** epoch seconds */
  exp: number;
}

export class ClientGrantIndex {
  readonly #adapter: Adapter;

  constructor(adapter: AdapterFactory) {
    this.#adapter = adapter('ClientGrants');
  }

  async add(clientId: string, grantId: string, expiresIn: number): Promise<void> {
    const now = Math.floor(Date.now() / 1000);
    const entries = (await this.list(clientId)).filter((e) => e.exp > now && e.id !== grantId);
    entries.push({ id: grantId, exp: now + expiresIn });
    const longest = Math.max(...entries.map((e) => e.exp)) - now;
    await this.#adapter.upsert(clientId, { entries }, longest);
  }

  async list(clientId: string): Promise<Entry[]> {
    const stored = await this.#adapter.find(clientId);
    return Array.isArray(stored?.entries) ? (stored.entries as Entry[]) : [];
  }

  async remove(clientId: string): Promise<void> {
    await this.#adapter.destroy(clientId);
  }
}
