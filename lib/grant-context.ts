/**
 * What the library remembers per grant beyond oidc-provider's Grant: the site (`org_id`)
 * the user chose at consent. Stored through the same adapter as the grant, under the model
 * name `GrantContext`, with the grant's id and lifetime, so it dies with the grant.
 *
 * @module
 */
import { GRANT_CONTEXT_MODEL } from '../adapters/types.ts';
import type { Adapter, AdapterFactory } from '../adapters/types.ts';

export interface GrantContext {
  readonly orgId: string;
}

export class GrantContextStore {
  readonly #adapter: Adapter;

  constructor(adapter: AdapterFactory) {
    this.#adapter = adapter(GRANT_CONTEXT_MODEL);
  }

  async save(grantId: string, context: GrantContext, expiresIn: number): Promise<void> {
    await this.#adapter.upsert(grantId, { grantId, orgId: context.orgId }, expiresIn);
  }

  async find(grantId: string): Promise<GrantContext | undefined> {
    const stored = await this.#adapter.find(grantId);
    return typeof stored?.orgId === 'string' ? { orgId: stored.orgId } : undefined;
  }
}
