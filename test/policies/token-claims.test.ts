/**
 * lib/policies/token-claims.ts without HTTP: the site a token speaks for, the `org_id` and
 * `roles` of an access token, and the claims of the ID token and UserInfo by scope.
 */
import type { Client, KoaContextWithOIDC } from 'oidc-provider';

import { createMemoryAdapter } from '../../adapters/memory.ts';
import type { ClosableAdapterFactory } from '../../adapters/types.ts';
import type { Account, AccountStore } from '../../lib/contracts.ts';
import { GrantContextStore } from '../../lib/grant-context.ts';
import { createExtraTokenClaims, createFindAccount, resolveSite } from '../../lib/policies/token-claims.ts';
import type { TokenClaimsDeps } from '../../lib/policies/token-claims.ts';
import { withholdsIdToken } from '../../lib/policies/id-tokens.ts';

const ada: Account = {
  id: 'ada', email: 'ada@example.com', name: 'Ada Lovelace',
  roles: { 'site-a': ['admin'], 'site-b': ['student'] },
};

const accounts: AccountStore = {
  async authenticate() { return undefined; },
  async findById(id) { return id === ada.id ? ada : undefined; },
};

const memberClient = { clientId: 'member-app', audience: 'member', org_id: 'site-b' } as unknown as Client;
const operatorClient = { clientId: 'operator-app', audience: 'operator' } as unknown as Client;

let adapter: ClosableAdapterFactory;
let grantContexts: GrantContextStore;

beforeEach(async () => {
  adapter = createMemoryAdapter();
  grantContexts = new GrantContextStore(adapter);
  await grantContexts.save('grant-op', { orgId: 'site-a' }, 60);
  await grantContexts.save('grant-member', { orgId: 'site-a' }, 60);
});

afterEach(async () => {
  await adapter.close();
});

function deps(clients: readonly Client[] = []): TokenClaimsDeps & { looked: string[] } {
  const looked: string[] = [];
  return {
    accounts,
    grantContexts,
    operatorRoles: ['owner', 'admin'],
    looked,
    async findClient(id) { looked.push(id); return clients.find((c) => c.clientId === id); },
  };
}

function ctxWith(client: Client | undefined): KoaContextWithOIDC {
  return { oidc: { client } } as unknown as KoaContextWithOIDC;
}

describe('resolveSite', () => {
  it("is a member client's own org_id, whatever the grant context says", async () => {
    expect(await resolveSite(grantContexts, memberClient, 'grant-member')).toBe('site-b');
    expect(await resolveSite(grantContexts, memberClient, undefined)).toBe('site-b');
  });

  it('is the site chosen at consent for an operator client', async () => {
    expect(await resolveSite(grantContexts, operatorClient, 'grant-op')).toBe('site-a');
  });

  it('is undefined for an operator client without a grant or without a stored context', async () => {
    expect(await resolveSite(grantContexts, operatorClient, undefined)).toBeUndefined();
    expect(await resolveSite(grantContexts, operatorClient, 'grant-unknown')).toBeUndefined();
  });

  it('is undefined without a client', async () => {
    expect(await resolveSite(grantContexts, undefined, 'grant-op')).toBeUndefined();
  });
});

describe('createExtraTokenClaims', () => {
  it('gives an access token of an operator client its consent site and the roles there', async () => {
    const extra = createExtraTokenClaims(deps());
    const claims = await extra(ctxWith(operatorClient), { kind: 'AccessToken', clientId: 'operator-app', grantId: 'grant-op', accountId: 'ada' });
    expect(claims).toEqual({ org_id: 'site-a', roles: ['admin'] });
  });

  it("gives an access token of a member client the client's site and the roles there", async () => {
    const extra = createExtraTokenClaims(deps());
    const claims = await extra(ctxWith(memberClient), { kind: 'AccessToken', clientId: 'member-app', grantId: 'grant-member', accountId: 'ada' });
    expect(claims).toEqual({ org_id: 'site-b', roles: ['student'] });
  });

  it('adds nothing to other tokens', async () => {
    const extra = createExtraTokenClaims(deps());
    for (const kind of ['RefreshToken', 'AuthorizationCode', 'ClientCredentials']) {
      expect(await extra(ctxWith(operatorClient), { kind, clientId: 'operator-app', grantId: 'grant-op', accountId: 'ada' })).toBeUndefined();
    }
  });

  it('adds nothing when no site is known', async () => {
    const extra = createExtraTokenClaims(deps());
    expect(await extra(ctxWith(operatorClient), { kind: 'AccessToken', clientId: 'operator-app', grantId: 'grant-unknown', accountId: 'ada' })).toBeUndefined();
  });

  it('looks the client up when there is no request context', async () => {
    const d = deps([operatorClient]);
    const extra = createExtraTokenClaims(d);
    expect(await extra(undefined, { kind: 'AccessToken', clientId: 'operator-app', grantId: 'grant-op', accountId: 'ada' }))
      .toEqual({ org_id: 'site-a', roles: ['admin'] });
    expect(d.looked).toEqual(['operator-app']);
  });

  it('adds nothing when the client cannot be found', async () => {
    const extra = createExtraTokenClaims(deps([]));
    expect(await extra(undefined, { kind: 'AccessToken', clientId: 'gone', grantId: 'grant-op', accountId: 'ada' })).toBeUndefined();
  });

  it('gives no roles for an account that no longer exists, keeping the site', async () => {
    const extra = createExtraTokenClaims(deps());
    expect(await extra(ctxWith(operatorClient), { kind: 'AccessToken', clientId: 'operator-app', grantId: 'grant-op', accountId: 'gone' }))
      .toEqual({ org_id: 'site-a', roles: [] });
  });

  it('refuses a token, in a request, for a site where the account has no role (any more): invalid_grant', async () => {
    await grantContexts.save('grant-c', { orgId: 'site-c' }, 60);
    const extra = createExtraTokenClaims(deps([operatorClient]));
    const minted = { kind: 'AccessToken', clientId: 'operator-app', grantId: 'grant-c', accountId: 'ada' };
    // the description stays oidc-provider's for invalid_grant; the why is its error_detail (the log, the trace)
    await expect(extra(ctxWith(operatorClient), minted)).rejects.toMatchObject({
      error: 'invalid_grant', error_description: 'grant request is invalid',
      error_detail: 'the account no longer has a role at site-c that this application may act for',
    });
    // a token minted outside a request (host tooling) carries no roles there, as before
    expect(await extra(undefined, minted)).toEqual({ org_id: 'site-c', roles: [] });
  });
});

describe('createFindAccount', () => {
  async function claimsFor(client: Client | undefined, grantId: string | undefined, scope: string) {
    const findAccount = createFindAccount(deps());
    const ctx = ctxWith(client);
    const token = grantId === undefined ? undefined : { grantId };
    const found = await findAccount(ctx, 'ada', token as Parameters<typeof findAccount>[2]);
    expect(found?.accountId).toBe('ada');
    return found!.claims('userinfo', scope, {}, []);
  }

  it('is undefined for an unknown account', async () => {
    const findAccount = createFindAccount(deps());
    expect(await findAccount(ctxWith(operatorClient), 'nobody')).toBeUndefined();
  });

  it('gives sub, org_id and roles with openid, and nothing of profile or email', async () => {
    expect(await claimsFor(operatorClient, 'grant-op', 'openid')).toEqual({ sub: 'ada', org_id: 'site-a', roles: ['admin'] });
  });

  it('gathers nothing for an ID token the answer goes out without (a refresh): no site lookup', async () => {
    let reads = 0;
    const counting = { find: async (grantId: string) => { reads += 1; return grantContexts.find(grantId); } } as unknown as TokenClaimsDeps['grantContexts'];
    const findAccount = createFindAccount({ ...deps(), grantContexts: counting, withholdsIdToken: withholdsIdToken(true) });
    const at = (grantType: string) => ({ oidc: { client: operatorClient, route: 'token', params: { grant_type: grantType } } }) as unknown as KoaContextWithOIDC;
    const onRefresh = await findAccount(at('refresh_token'), 'ada', { grantId: 'grant-op' } as Parameters<typeof findAccount>[2]);
    expect(await onRefresh!.claims('id_token', 'openid profile', {}, [])).toEqual({ sub: 'ada' });
    expect(reads).toBe(0);
    // the same account's UserInfo claims, and a code exchange's ID token, are whole
    expect(await onRefresh!.claims('userinfo', 'openid', {}, [])).toEqual({ sub: 'ada', org_id: 'site-a', roles: ['admin'] });
    const onCode = await findAccount(at('authorization_code'), 'ada', { grantId: 'grant-op' } as Parameters<typeof findAccount>[2]);
    expect(await onCode!.claims('id_token', 'openid', {}, [])).toEqual({ sub: 'ada', org_id: 'site-a', roles: ['admin'] });
    expect(reads).toBe(2);
  });

  it('adds name with profile', async () => {
    expect(await claimsFor(operatorClient, 'grant-op', 'openid profile'))
      .toEqual({ sub: 'ada', org_id: 'site-a', roles: ['admin'], name: 'Ada Lovelace' });
  });

  it('adds email with email', async () => {
    expect(await claimsFor(operatorClient, 'grant-op', 'openid email'))
      .toEqual({ sub: 'ada', org_id: 'site-a', roles: ['admin'], email: 'ada@example.com' });
  });

  it("uses a member client's own site", async () => {
    expect(await claimsFor(memberClient, 'grant-member', 'openid profile email'))
      .toEqual({ sub: 'ada', org_id: 'site-b', roles: ['student'], name: 'Ada Lovelace', email: 'ada@example.com' });
  });

  it('leaves org_id and roles out when no site is known', async () => {
    expect(await claimsFor(operatorClient, undefined, 'openid email')).toEqual({ sub: 'ada', email: 'ada@example.com' });
    expect(await claimsFor(undefined, 'grant-op', 'openid')).toEqual({ sub: 'ada' });
  });
});
