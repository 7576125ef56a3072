/**
 * An operator's grant acts at the site chosen for it (interactions/consent-grant.ts): an
 * operator of two sites who consents again for the same client from the same browser,
 * choosing the other site, gets a grant of its own for it; the earlier grant, and the
 * refresh token the integration holds for it, stay at their site with their scopes.
 */
import { accountsWithMultiSiteOperator, MULTI_SITE_OPERATOR } from '../support/accounts.ts';
import { Browser, isPage } from '../support/browser.ts';
import { buildAuthorizeUrl, exchangeCode, operator, postForm } from '../support/flows.ts';
import type { FlowClient, TokenSet } from '../support/flows.ts';
import { pkcePair, randomState } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

const MULTI = MULTI_SITE_OPERATOR;

let app: RunningApp;
let op: FlowClient;
beforeAll(async () => {
  app = await startApp({ auth: { accounts: accountsWithMultiSiteOperator() } });
  op = operator(app.baseUrl, app.operatorSecret);
});
afterAll(() => app.stop());

/** One authorization in `browser`, consenting for `site`; the tokens. */
async function authorize(browser: Browser, scope: string, site: string, prompt?: string): Promise<TokenSet> {
  const { verifier, challenge } = pkcePair();
  let step = await browser.navigate(buildAuthorizeUrl(app.baseUrl, op, { scope, challenge, state: randomState(), ...(prompt ? { prompt } : {}) }));
  if (isPage(step) && step.html.includes('name="password"')) step = await browser.submit(step, '/login', { email: MULTI.email, password: 'multi' });
  if (!isPage(step)) throw new Error('expected the consent page');
  // the page lists every scope the request asks for, whatever an earlier grant holds
  for (const name of scope.split(' ').filter((s) => s !== 'openid')) expect(step.html).toContain(name);
  step = await browser.submit(step, '/confirm', { org_id: site });
  if (isPage(step)) throw new Error('expected the redirect to the client');
  const code = new URL(step.redirect).searchParams.get('code')!;
  return await (await exchangeCode(app.baseUrl, op, code, verifier)).json() as TokenSet;
}

async function refreshed(refreshToken: string): Promise<TokenSet> {
  const answer = await postForm(`${app.baseUrl}/api/oauth/token`, {
    grant_type: 'refresh_token', refresh_token: refreshToken, client_id: op.clientId, client_secret: op.clientSecret,
  });
  expect(answer.status).toBe(200);
  return await answer.json() as TokenSet;
}

async function userinfo(accessToken: string): Promise<Record<string, unknown>> {
  const answer = await fetch(`${app.baseUrl}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } });
  expect(answer.status).toBe(200);
  return await answer.json() as Record<string, unknown>;
}

it('consent for another site leaves the earlier grant at its site, with its scopes', async () => {
  const browser = new Browser(app.baseUrl);
  const first = await authorize(browser, 'openid courses:write', 'demo-school');
  expect(first.scope).toBe('openid courses:write');

  const second = await authorize(browser, 'openid courses:read', 'other-school');
  // the new grant holds what this request asked for, at the site chosen for it
  expect(second.scope).toBe('openid courses:read');
  expect(await userinfo(second.access_token)).toMatchObject({ org_id: 'other-school', roles: ['admin', 'lecturer'] });

  // the integration's first refresh token still acts at demo-school, with courses:write
  const again = await refreshed(first.refresh_token);
  expect(again.scope).toBe('openid courses:write');
  expect(await userinfo(again.access_token)).toMatchObject({ org_id: 'demo-school', roles: ['owner'] });
  // and the second one at other-school, without courses:write
  const secondAgain = await refreshed(second.refresh_token);
  expect(secondAgain.scope).toBe('openid courses:read');
  expect(await userinfo(secondAgain.access_token)).toMatchObject({ org_id: 'other-school' });
});

it('consent for another site grants everything the request asks for, what the held grant had included', async () => {
  const browser = new Browser(app.baseUrl);
  await authorize(browser, 'openid courses:write', 'demo-school');
  // courses:write is held for demo-school; asked again with courses:read, for other-school
  const other = await authorize(browser, 'openid courses:write courses:read', 'other-school');
  expect(other.scope!.split(' ').sort()).toEqual(['courses:read', 'courses:write', 'openid']);
  expect(await userinfo(other.access_token)).toMatchObject({ org_id: 'other-school' });
});

it('consent for the same site adds to the held grant', async () => {
  const browser = new Browser(app.baseUrl);
  const first = await authorize(browser, 'openid courses:write', 'demo-school');
  const more = await authorize(browser, 'openid courses:read', 'demo-school');
  expect(await userinfo(more.access_token)).toMatchObject({ org_id: 'demo-school' });
  // one grant: the first refresh token now covers what was added, still at demo-school
  const again = await refreshed(first.refresh_token);
  expect(await userinfo(again.access_token)).toMatchObject({ org_id: 'demo-school' });
  expect(again.scope!.split(' ').sort()).toEqual(['courses:write', 'openid']);
});
