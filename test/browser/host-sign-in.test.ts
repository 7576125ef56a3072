/**
 * The host's own sign-in page (`signIn.loginUrl`, the demo's `/sign-in`) in real Chromium: its
 * form's redirects end at the client, and browsers apply the page's CSP `form-action` to
 * them. With `form-action 'self'` alone Chromium blocked the chain: Cancel never reached the
 * client, and a returning person (consent already given) stayed on the host's page after
 * signing in. The page allows `SignInRequest.redirectUri`'s origin, as the library's own do.
 * Run by `npm run test:browser`.
 */
import type { Browser, Page } from 'playwright-core';

import { demoClients } from '../../examples/host/seed.ts';
import { launchChromium, watchCsp } from '../connected-apps/page-checks.ts';
import { MEMBER, buildAuthorizeUrl } from '../support/flows.ts';
import type { FlowClient } from '../support/flows.ts';
import { pkcePair } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

/**
 * A web client (the demo's member app is native, which oidc-provider asks for consent every
 * time): a returning person's sign-in goes from the host's form straight on to it.
 */
const WEB: FlowClient = { clientId: 'web-member-app', redirectUri: 'https://web-app.example/callback' };

let app: RunningApp;
let browser: Browser;

beforeAll(async () => {
  const clients = [...demoClients('http://127.0.0.1', 'operator-secret-for-tests-0123456789'), {
    client_id: WEB.clientId, client_name: 'Web Member App', token_endpoint_auth_method: 'none' as const,
    redirect_uris: [WEB.redirectUri], scope: 'openid profile email account:read', audience: 'member' as const, org_id: 'demo-school',
  }];
  app = await startApp({ signIn: 'host', auth: { clients } });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

/** The URL the browser lands on at `client`'s redirect URI, once it does. */
async function landingAtClient(page: Page, client: FlowClient = MEMBER): Promise<() => Promise<URL | undefined>> {
  let landed: string | undefined;
  await page.route(`${new URL(client.redirectUri).origin}/**`, async (route) => {
    landed = route.request().url();
    await route.fulfill({ status: 200, body: 'client' });
  });
  return async () => {
    for (let i = 0; i < 50 && !landed; i += 1) await page.waitForTimeout(100);
    return landed === undefined ? undefined : new URL(landed);
  };
}

async function signInOnHostPage(page: Page): Promise<void> {
  await page.waitForURL(/\/sign-in/);
  await page.fill('#email', 'student@example.com');
  await page.fill('#password', 'student');
  await page.click('button.primary');
}

it('Cancel on the host\'s page lands on the client with access_denied, state and iss, with no CSP violation', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const csp = watchCsp(page);
  const landed = await landingAtClient(page);
  await page.goto(buildAuthorizeUrl(app.baseUrl, MEMBER, { scope: 'openid', challenge: pkcePair().challenge, state: 'host-cancel' }));
  await page.waitForURL(/\/sign-in/);
  await page.click('form[action="/sign-in/cancel"] button');
  const callback = await landed();
  expect(callback && Object.fromEntries(callback.searchParams)).toEqual({
    error: 'access_denied', error_description: 'the user cancelled the sign-in', state: 'host-cancel', iss: app.baseUrl,
  });
  expect(csp).toEqual([]);
  await context.close();
});

it('a person who consented before and must sign in again (prompt=login) lands on the client with a code from the host\'s page', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const csp = watchCsp(page);
  // the first time: the host's page, then the library's consent page
  const first = await landingAtClient(page, WEB);
  await page.goto(buildAuthorizeUrl(app.baseUrl, WEB, { scope: 'openid', challenge: pkcePair().challenge, state: 'first' }));
  await signInOnHostPage(page);
  await page.waitForURL(/\/oauth\/interaction\//);
  await page.click('button.primary');
  expect((await first())?.searchParams.get('state')).toBe('first');
  await page.close();

  // again, in a tab of the same browser: consent is remembered, so the host's form redirects
  // straight on to the client
  const tab = await context.newPage();
  const tabCsp = watchCsp(tab);
  const again = await landingAtClient(tab, WEB);
  await tab.goto(buildAuthorizeUrl(app.baseUrl, WEB, { scope: 'openid', challenge: pkcePair().challenge, state: 'again', extra: { prompt: 'login' } }));
  await signInOnHostPage(tab);
  const callback = await again();
  expect(callback?.searchParams.get('code')).toEqual(expect.any(String));
  expect(callback?.searchParams.get('state')).toBe('again');
  expect([...csp, ...tabCsp]).toEqual([]);
  await context.close();
});
