/**
 * The audience rules over real HTTP: which scopes each audience may hold (refused, never
 * dropped, at both endpoints), who may authorize a member client, and which site and roles
 * the tokens carry, including an operator of several sites choosing one at consent.
 */
import { accountsWithMultiSiteOperator, MULTI_SITE_OPERATOR } from '../support/accounts.ts';
import { Browser, isPage, signIn } from '../support/browser.ts';
import type { SignInOptions } from '../support/browser.ts';
import {
  ADMIN, MEMBER, OUTSIDER, STUDENT, buildAuthorizeUrl, exchangeCode, obtainCode, obtainTokens, operator, postForm,
} from '../support/flows.ts';
import type { FlowClient } from '../support/flows.ts';
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

async function authorizeRedirect(client: FlowClient, scope: string, user: SignInOptions = STUDENT) {
  const state = randomState();
  const redirect = await signIn(new Browser(app.baseUrl), buildAuthorizeUrl(app.baseUrl, client, { scope, state, challenge: pkcePair().challenge }), user);
  return { params: new URL(redirect).searchParams, state };
}

/** Opens the authorization URL, signs in as `user`, and returns the page that follows (consent or refusal). */
async function pageAfterSignIn(client: FlowClient, scope: string, user: SignInOptions, state = 's') {
  const browser = new Browser(app.baseUrl);
  const login = await browser.navigate(buildAuthorizeUrl(app.baseUrl, client, { scope, state, challenge: pkcePair().challenge }));
  if (!isPage(login)) throw new Error('expected the sign-in page');
  const page = await browser.submit(login, '/login', { email: user.email, password: user.password });
  if (!isPage(page)) throw new Error('expected a page after signing in');
  return { browser, page };
}

async function userinfo(accessToken: string) {
  const res = await fetch(`${app.baseUrl}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } });
  expect(res.status).toBe(200);
  return res.json();
}

describe('scopes per audience', () => {
  it.each(['openid account:read', 'account:write', 'openid courses:read account:read'])(
    'refuses an operator client asking for %j at the authorization endpoint (redirect with iss and state)',
    async (scope) => {
      const { params, state } = await authorizeRedirect(op, scope, ADMIN);
      expect(params.get('error')).toBe('invalid_scope');
      expect(params.get('error_description')).toMatch(/scope/);
      expect(params.get('state')).toBe(state);
      expect(params.get('iss')).toBe(app.baseUrl);
      expect(params.get('code')).toBeNull();
    },
  );

  it('refuses an operator client asking for account:read at the token endpoint', async () => {
    const tokens = await obtainTokens(app.baseUrl, op, { scope: 'openid courses:read' }, ADMIN);
    const res = await postForm(`${app.baseUrl}/api/oauth/token`, {
      grant_type: 'refresh_token', refresh_token: tokens.refresh_token, scope: 'account:read',
      client_id: op.clientId, client_secret: op.clientSecret,
    });
    const body = await res.json();
    expect({ status: res.status, error: body.error }).toEqual({ status: 400, error: 'invalid_scope' });
  });

  it('lets an operator client hold operator and identity scopes', async () => {
    const tokens = await obtainTokens(app.baseUrl, op, { scope: 'openid profile email courses:write students:read storage:write' }, ADMIN);
    expect(tokens.scope.split(' ').sort()).toEqual(['courses:write', 'email', 'openid', 'profile', 'storage:write', 'students:read']);
  });

  it.each(['openid courses:read', 'openid account:write', 'account:read students:read'])(
    'refuses a member client asking for %j, outside the scopes its site picked',
    async (scope) => {
      const { params, state } = await authorizeRedirect(MEMBER, scope);
      expect(params.get('error')).toBe('invalid_scope');
      expect(params.get('state')).toBe(state);
      expect(params.get('iss')).toBe(app.baseUrl);
    },
  );

  it('refuses a member client widening its scope on refresh', async () => {
    const tokens = await obtainTokens(app.baseUrl, MEMBER, { scope: 'openid account:read' }, STUDENT);
    const res = await postForm(`${app.baseUrl}/api/oauth/token`, {
      grant_type: 'refresh_token', refresh_token: tokens.refresh_token, scope: 'openid account:write', client_id: MEMBER.clientId,
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('invalid_scope');
  });
});

describe('who may authorize a member client', () => {
  it.each([
    ['a student', STUDENT, 'acc-student', ['student']],
    ['an admin', ADMIN, 'acc-admin', ['admin']],
  ])('%s at the site gets tokens with the site as org_id and their roles there', async (_label, user, sub, roles) => {
    const tokens = await obtainTokens(app.baseUrl, MEMBER, { scope: 'openid profile account:read' }, user);
    expect(await userinfo(tokens.access_token)).toMatchObject({ sub, org_id: 'demo-school', roles });
    const introspection = await (await postForm(`${app.baseUrl}/api/oauth/introspect`, { token: tokens.access_token, client_id: MEMBER.clientId })).json();
    expect(introspection).toMatchObject({ active: true, sub, org_id: 'demo-school', roles });
  });

  it('refuses an account without a role at the site: a clear page, then access_denied', async () => {
    const state = randomState();
    const { browser, page: refused } = await pageAfterSignIn(MEMBER, 'openid account:read', OUTSIDER, state);
    expect(refused.response.status).toBe(403);
    expect(refused.html).toContain('school you are not a member of');
    const back = await browser.submit(refused, '/abort');
    if (isPage(back)) throw new Error('expected a redirect to the client');
    const params = new URL(back.redirect).searchParams;
    expect(params.get('error')).toBe('access_denied');
    expect(params.get('state')).toBe(state);
  });

  it('refuses a forged consent from an account without a role at the site', async () => {
    // the consent form is never shown to the outsider; posting one anyway still ends in access_denied
    const { browser, page: refused } = await pageAfterSignIn(MEMBER, 'openid account:read', OUTSIDER);
    const abort = /action="([^"]+)\/abort"/.exec(refused.html)![1]!;
    const csrf = /name="csrf" value="([^"]+)"/.exec(refused.html)![1]!;
    const forged = await browser.navigate(`${abort}/confirm`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf }).toString(),
    });
    if (isPage(forged)) throw new Error(`expected a redirect to the client, got ${forged.response.status}`);
    expect(new URL(forged.redirect).searchParams.get('error')).toBe('access_denied');
  });
});

describe('operator clients act for the site the operator chooses', () => {
  it('refuses an account that operates no site', async () => {
    const { page: refused } = await pageAfterSignIn(op, 'openid courses:read', STUDENT);
    expect(refused.response.status).toBe(403);
    expect(refused.html).toContain('do not administer any school');
  });

  it('lets an operator of several sites choose one at consent; the tokens carry it', async () => {
    const user = { email: MULTI.email, password: 'multi' };
    const { page: consent } = await pageAfterSignIn(op, 'openid courses:read', user);
    expect(consent.html).toMatch(/type="radio" name="org_id" value="demo-school"/);
    expect(consent.html).toMatch(/type="radio" name="org_id" value="other-school"/);

    for (const [site, roles] of [['other-school', ['admin', 'lecturer']], ['demo-school', ['owner']]] as const) {
      const { code, verifier } = await obtainCode(app.baseUrl, op, { scope: 'openid courses:read' }, { ...user, orgId: site });
      const tokens = await (await exchangeCode(app.baseUrl, op, code, verifier)).json();
      expect(await userinfo(tokens.access_token)).toMatchObject({ sub: MULTI.id, org_id: site, roles });
    }
  });

  it('refuses a site the operator does not operate, posted in place of the choice', async () => {
    const user = { email: MULTI.email, password: 'multi' };
    const { browser, page: consent } = await pageAfterSignIn(op, 'openid courses:read', user);
    const again = await browser.submit(consent, '/confirm', { org_id: 'third-school' });
    if (!isPage(again)) throw new Error('expected the consent page again');
    expect(again.response.status).toBe(400);
    // the page still offers only the operator's own sites
    expect(again.html).not.toContain('third-school');
  });
});
