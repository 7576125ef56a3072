/**
 * lib/policies/existing-grant.ts without HTTP: oidc-provider's `loadExistingGrant` as its
 * default finds the grant (this interaction's consent, or the session's grant for the client),
 * but not one whose site the account may no longer use. The flows are in
 * test/e2e/role-removed.test.ts.
 */
import type { Client, Grant, KoaContextWithOIDC } from 'oidc-provider';

import { createMemoryAdapter } from '../../adapters/memory.ts';
import type { ClosableAdapterFactory } from '../../adapters/types.ts';
import type { Account, AccountStore } from '../../lib/contracts.ts';
import { GrantContextStore } from '../../lib/grant-context.ts';
import { createLoadExistingGrant } from '../../lib/policies/existing-grant.ts';

const ada: Account = { id: 'ada', email: 'ada@example.com', name: 'Ada', roles: { 'site-a': ['admin'], 'site-b': ['student'] } };
const accounts: AccountStore = {
  async authenticate() { return undefined; },
  async findById(id) { return id === ada.id ? ada : undefined; },
};
const memberOfB = { clientId: 'member-b', audience: 'member', org_id: 'site-b' } as unknown as Client;
const memberOfC = { clientId: 'member-c', audience: 'member', org_id: 'site-c' } as unknown as Client;
const operatorApp = { clientId: 'operator-app', audience: 'operator' } as unknown as Client;

let adapter: ClosableAdapterFactory;
let grantContexts: GrantContextStore;
beforeEach(async () => {
  adapter = createMemoryAdapter();
  grantContexts = new GrantContextStore(adapter);
  await grantContexts.save('grant-op-a', { orgId: 'site-a' }, 60);
  await grantContexts.save('grant-op-b', { orgId: 'site-b' }, 60);
});
afterEach(() => adapter.close());

/** A request from a session whose grant for `client` is `grantId`, and this interaction's consent, if any. */
function request(client: Client, grantId: string | undefined, consented?: string): KoaContextWithOIDC {
  const grants = new Map([grantId, consented].filter((id): id is string => id !== undefined).map((id) => [id, { grantId: id, accountId: 'ada' } as unknown as Grant]));
  return {
    oidc: {
      client,
      result: consented ? { consent: { grantId: consented } } : undefined,
      session: { grantIdFor: (clientId: string) => (clientId === client.clientId ? grantId : undefined) },
      provider: { Grant: { find: async (id: string) => grants.get(id) } },
    },
  } as unknown as KoaContextWithOIDC;
}

const loader = () => createLoadExistingGrant({ accounts, grantContexts, operatorRoles: ['owner', 'admin'] });

it('finds no grant where the session has none', async () => {
  expect(await loader()(request(memberOfB, undefined))).toBeUndefined();
});

it('reuses a member client\'s grant while the account has a role at its site, not otherwise', async () => {
  expect(await loader()(request(memberOfB, 'g1'))).toMatchObject({ grantId: 'g1' });
  expect(await loader()(request(memberOfC, 'g2'))).toBeUndefined();
});

it('reuses an operator grant only for a site the account operates (operatorRoles)', async () => {
  expect(await loader()(request(operatorApp, 'grant-op-a'))).toMatchObject({ grantId: 'grant-op-a' });
  // a student at site-b: not an operator there
  expect(await loader()(request(operatorApp, 'grant-op-b'))).toBeUndefined();
});

it('takes this interaction\'s consent as it is: its page checked the account just now', async () => {
  expect(await loader()(request(operatorApp, undefined, 'grant-op-b'))).toMatchObject({ grantId: 'grant-op-b' });
});

it('finds nothing for an account that no longer exists', async () => {
  const gone = createLoadExistingGrant({ accounts: { ...accounts, findById: async () => undefined }, grantContexts, operatorRoles: ['owner', 'admin'] });
  expect(await gone(request(memberOfB, 'g1'))).toBeUndefined();
});
