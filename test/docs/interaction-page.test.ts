/**
 * `GET /oauth/interaction/{uid}` in `/openapi.json`: besides its page it answers 303, to the
 * host's sign-in page with `signIn.loginUrl`, and on to the authorization's resume when the
 * account signed in is gone (in every deployment); the description says which, from the
 * options, and the server answers so.
 */
import { createAccountStore } from '../../examples/host/seed.ts';
import type { AccountStore } from '../../lib/index.ts';
import { Browser, isPage } from '../support/browser.ts';
import { buildAuthorizeUrl, MEMBER, OUTSIDER, STUDENT } from '../support/flows.ts';
import { pkcePair, randomState } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import { describedResponse, schemaChecker } from './support.ts';
import type { OpenApiDocument } from '../../lib/docs/index.ts';

const PAGE = '/oauth/interaction/{uid}';

/** The interaction page an authorization leads `browser` to. */
async function interactionPage(baseUrl: string, browser: Browser): Promise<string> {
  const start = await browser.request(buildAuthorizeUrl(baseUrl, MEMBER, { scope: 'openid account:read', challenge: pkcePair().challenge, state: randomState() }));
  expect(start.status).toBe(303);
  const page = start.headers.get('location')!;
  expect(page).toMatch(/^\/oauth\/interaction\/[^/]+$/);
  return page;
}

/** The documented 303 of the page, after checking `location` against its `Location` header schema. */
function documented303(doc: OpenApiDocument, location: string): string {
  const response = describedResponse(doc, PAGE, 'get', 303);
  expect(response).toBeDefined();
  expect(schemaChecker(doc)(response!.headers!.Location!.schema, location)).toEqual([]);
  return response!.description;
}

it('with the host\'s sign-in page (signIn.loginUrl): a 303 to it, as documented', async () => {
  const app = await startApp({ signIn: 'host' });
  try {
    const browser = new Browser(app.baseUrl);
    const res = await browser.request(await interactionPage(app.baseUrl, browser));
    expect(res.status).toBe(303);
    const location = res.headers.get('location')!;
    expect(new URL(location).pathname).toBe('/sign-in');
    const doc = await (await fetch(`${app.baseUrl}/openapi.json`)).json() as OpenApiDocument;
    expect(documented303(doc, location)).toContain(`to the host's sign-in page \`${app.baseUrl}/sign-in\`, with \`return_to\``);
  } finally {
    await app.stop();
  }
});

it('with the library\'s page only: a 303 on to the authorization when the account is gone, as documented', async () => {
  const store = createAccountStore();
  const gone = new Set<string>();
  const accounts: AccountStore = { authenticate: (email, password) => store.authenticate(email, password), findById: async (id) => (gone.has(id) ? undefined : store.findById(id)) };
  const app = await startApp({ auth: { signIn: {}, accounts } });
  try {
    const browser = new Browser(app.baseUrl);
    const signInPage = await browser.navigate(await interactionPage(app.baseUrl, browser));
    if (!isPage(signInPage)) throw new Error('no sign-in page');
    const consent = await browser.submit(signInPage, '/login', STUDENT);
    if (!isPage(consent) || !consent.html.includes('/confirm"')) throw new Error('no consent page');
    gone.add('acc-student');
    // the consent page, at the interaction's uid after sign-in
    const res = await browser.request(consent.url);
    expect(res.status).toBe(303);
    const location = res.headers.get('location')!;
    expect(new URL(location, app.baseUrl).pathname).toMatch(/^\/oauth\/authorize\/[^/]+$/);
    const doc = await (await fetch(`${app.baseUrl}/openapi.json`)).json() as OpenApiDocument;
    const description = documented303(doc, location);
    expect(description).toContain('to `/oauth/authorize/{uid}`, where authorization resumes, when the signed-in account no longer exists');
    // neither a host's page nor a host's session in this deployment
    expect(description).not.toMatch(/host/);
    const after = await browser.navigate(location);
    expect(isPage(after) ? undefined : new URL(after.redirect).searchParams.get('error')).toBe('login_required');
  } finally {
    await app.stop();
  }
});

it('an account that may not use the client: the 403 refusal page, as documented; with metadata documents on, their 400 and the 429 of the fetch budget are documented too', async () => {
  const app = await startApp();
  try {
    const browser = new Browser(app.baseUrl);
    const signInPage = await browser.navigate(await interactionPage(app.baseUrl, browser));
    if (!isPage(signInPage)) throw new Error('no sign-in page');
    const refusal = await browser.submit(signInPage, '/login', OUTSIDER);
    if (!isPage(refusal)) throw new Error('no refusal page');
    expect(refusal.response.status).toBe(403);
    expect(refusal.url).toMatch(/\/oauth\/interaction\/[^/]+$/);
    expect(refusal.html).toContain('You cannot use this application');
    const doc = await (await fetch(`${app.baseUrl}/openapi.json`)).json() as OpenApiDocument;
    expect(describedResponse(doc, PAGE, 'get', 403)?.description).toContain('a refusal page whose button returns `access_denied` to the client');
    // no metadata documents in the demo: no fetch budget to be over
    expect(describedResponse(doc, PAGE, 'get', 429)).toBeUndefined();
  } finally {
    await app.stop();
  }
  const withDocuments = await startApp({ auth: { clientIdMetadataDocuments: { allowedHosts: ['tools.example'] } } });
  try {
    const doc = await (await fetch(`${withDocuments.baseUrl}/openapi.json`)).json() as OpenApiDocument;
    expect(describedResponse(doc, PAGE, 'get', 429)?.description).toContain('fetching it is over the budget');
    expect(describedResponse(doc, PAGE, 'get', 400)?.description).toContain('metadata document could not be loaded again');
  } finally {
    await withDocuments.stop();
  }
});
