/**
 * The activity pages of the demo admin area over real HTTP: an application's page (its
 * trace, newest first, and a connection test) only for the operators of its own school and
 * only for that school's applications; the staff view (every traced client) only for the
 * platform's staff; both under the strict page headers, with every value escaped (a client
 * name, a redirect_uri and a metadata-document URL chosen to break out of the markup, the
 * shell or the attribute they land in).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import Koa from 'koa';

import { adminPage } from '../../examples/host/admin-page.ts';
import { createSiteStore } from '../../examples/host/seed.ts';
import type { Account, AccountStore } from '../../lib/index.ts';
import { Browser, signIn } from '../support/browser.ts';
import { ADMIN, STUDENT, buildAuthorizeUrl } from '../support/flows.ts';
import { pkcePair } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import { AdminBrowser, appsPath, text } from './admin-browser.ts';

let app: RunningApp;
/** a demo-school application with a name made to break markup */
let evilId: string;
/** an application of the other school */
let otherId: string;
const EVIL_NAME = '<img src=x onerror=alert(1)> "Buddy" & \'co\'';
const EVIL_REDIRECT = 'http://127.0.0.1/cb"><script>alert(1)</script>';
const EVIL_DOCUMENT = 'https://localhost/a\'b"c<d>.json';

beforeAll(async () => {
  app = await startApp({ auth: { registration: { variant: 'open' }, memberClients: { betaEnabled: ['demo-school', 'other-school'] } } });
  ({ client: { clientId: evilId } } = await app.auth.memberClients.create('demo-school', {
    name: EVIL_NAME, redirectUris: ['http://127.0.0.1/cb'], type: 'public', scopes: ['openid', 'account:read'],
  }));
  ({ client: { clientId: otherId } } = await app.auth.memberClients.create('other-school', {
    name: 'Other app', redirectUris: ['http://127.0.0.1/cb'], type: 'public', scopes: ['openid'],
  }));
  for (const [clientId, redirectUri] of [[evilId, EVIL_REDIRECT], [EVIL_DOCUMENT, 'http://127.0.0.1/callback']] as const) {
    const res = await fetch(buildAuthorizeUrl(app.baseUrl, { clientId, redirectUri }, { scope: 'openid', challenge: pkcePair().challenge }), { redirect: 'manual' });
    expect(res.status).toBe(400);
  }
});
afterAll(() => app.stop());

const appPath = (clientId: string, site = 'demo-school') => `${appsPath(site)}/${encodeURIComponent(clientId)}`;
const staffTrace = (clientId: string) => `/admin/staff/trace?${new URLSearchParams({ client_id: clientId })}`;

async function signedInAdmin(origin = app.baseUrl, account: { email: string; password: string } = ADMIN): Promise<AdminBrowser> {
  const admin = new AdminBrowser(origin);
  await admin.signIn(account.email, account.password);
  return admin;
}

/** The words a POSIX shell makes of `command`: single quotes, backslash escapes, line continuations. */
function shellWords(command: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < command.length; i += 1) {
    const c = command[i]!;
    if (c === "'") {
      const end = command.indexOf("'", i + 1);
      word = (word ?? '') + command.slice(i + 1, end);
      i = end;
    } else if (c === '\\') {
      i += 1;
      if (command[i] !== '\n') word = (word ?? '') + command[i];
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else word = (word ?? '') + c;
  }
  return word === undefined ? words : [...words, word];
}

/** curl's percent-encoding (every byte but A-Z a-z 0-9 - . _ ~), as `--data-urlencode` applies it. */
const curlEscape = (value: string) => encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * The POST `curl -sS <url> -d … --data-urlencode …` sends: `-d` values as they are,
 * `--data-urlencode name=value` with the value encoded, joined by `&`.
 */
function curlPost(command: string): { url: string; body: string } {
  const [curl, silent, url, ...options] = shellWords(command);
  expect([curl, silent]).toEqual(['curl', '-sS']);
  const fields: string[] = [];
  for (let i = 0; i < options.length; i += 2) {
    const [option, value] = [options[i], options[i + 1]!];
    const eq = value.indexOf('=');
    if (option === '-d') fields.push(value);
    else if (option === '--data-urlencode') fields.push(`${value.slice(0, eq)}=${curlEscape(value.slice(eq + 1))}`);
    else throw new Error(`unexpected curl option ${option}`);
  }
  return { url: url!, body: fields.join('&') };
}

/** The page's strict headers: a CSP without script, a style nonce, no framing, no caching. */
function expectStrictPage(res: Response, body: string): void {
  const csp = res.headers.get('content-security-policy') ?? '';
  expect(csp).toContain("default-src 'none'");
  expect(csp).not.toContain('script-src');
  expect(csp).not.toContain('unsafe-inline');
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.headers.get('x-frame-options')).toBe('DENY');
  // no script element, and no event-handler attribute inside any tag (escaped text may say "onerror=")
  expect(body).not.toMatch(/<script|<[a-z][^>]*\son[a-z]+=/i);
}

describe('an application\'s page', () => {
  it('shows its trace in the library\'s words, newest first, escaped, under the strict headers', async () => {
    const admin = await signedInAdmin();
    const page = await admin.page(appPath(evilId));
    expect(page.response.status).toBe(200);
    expectStrictPage(page.response, page.html);
    expect(page.html).toContain('&lt;img src=x onerror=alert(1)&gt; &quot;Buddy&quot; &amp; &#39;co&#39;');
    const trace = await app.auth.memberClients.trace('demo-school', evilId);
    expect(trace[0]!.summary).toContain(EVIL_REDIRECT);
    const summaries = [...page.html.matchAll(/<p class="summary">([^<]*)<\/p>/g)].map((m) => text(m[1]!));
    expect(summaries).toEqual(trace.map((entry) => entry.summary));
    expect(page.html).toContain(`<p class="action"><strong>What to do:</strong> ${trace[0]!.action!.replace(/'/g, '&#39;')}</p>`);
    // the connection test: a link that is this client's authorization request, escaped in its attribute
    const href = text(/<a href="([^"]*\/oauth\/authorize\?[^"]*)"/.exec(page.html)![1]!);
    const authorize = new URL(href);
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
      response_type: 'code', client_id: evilId, redirect_uri: 'http://127.0.0.1/cb', scope: 'openid account:read', code_challenge_method: 'S256', resource: app.baseUrl,
    });
    expect(page.html).toContain(`curl -sS &#39;${app.baseUrl}/.well-known/oauth-protected-resource&#39;`);
  });

  it.each([
    'http://127.0.0.1/callback',
    'http://127.0.0.1/callback?app=buddy&step=2',
    'http://127.0.0.1/call%2Bback+more',
    "http://127.0.0.1/it's-me",
  ])('the connection test\'s curl redeems the code for an application whose redirect URI is %s', async (redirectUri) => {
    const { client } = await app.auth.memberClients.create('demo-school', {
      name: 'Curl test', type: 'public', redirectUris: [redirectUri], scopes: ['openid', 'account:read'],
    });
    const page = await (await signedInAdmin()).page(appPath(client.clientId));
    const authorize = text(/<a href="([^"]*\/oauth\/authorize\?[^"]*)"/.exec(page.html)![1]!);
    const code = new URL(await signIn(new Browser(app.baseUrl), authorize, STUDENT)).searchParams.get('code')!;
    expect(code).toBeTruthy();

    const command = text(/<pre class="cmd"><code>(curl -sS [^<]*\/api\/oauth\/token[^<]*)<\/code>/.exec(page.html)![1]!);
    const { url, body } = curlPost(command.replace('THE_CODE_FROM_THE_ADDRESS_BAR', code));
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
    expect({ status: res.status, body: res.status === 200 ? 'tokens' : await res.json() }).toEqual({ status: 200, body: 'tokens' });
  });

  it('the list shows each application\'s latest activity and links to its page', async () => {
    const admin = await signedInAdmin();
    const list = await admin.page(appsPath('demo-school'));
    const row = [...list.html.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) => m[1]!).find((r) => r.includes(`<code>${evilId}</code>`))!;
    expect(row).toContain('<span class="badge refused">Refused</span>');
    expect(row).toContain(`href="${appPath(evilId)}"`);
  });

  it('is only for the school\'s own applications, and only for its operators', async () => {
    const admin = await signedInAdmin();
    // another school's application, asked for under this school: the same as no application
    const other = await admin.page(appPath(otherId));
    expect(other.response.status).toBe(404);
    expect(other.html).not.toContain('Other app');
    // clients that are no school's application (a static member client, a vendor platform)
    expect((await admin.page(appPath('demo-member-app'))).response.status).toBe(404);
    expect((await admin.page(appPath('acme-lms'))).response.status).toBe(404);
    // another school, whatever the application
    const notYours = await admin.page(appPath(otherId, 'other-school'));
    expect(notYours.response.status).toBe(403);
    expect(notYours.html).toContain('Not your school');
    // signed out: back to the sign-in form
    const anonymous = await fetch(`${app.baseUrl}${appPath(evilId)}`, { redirect: 'manual' });
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get('location')).toBe('/admin');
  });
});

describe('the staff view', () => {
  it('lists every traced client, whoever\'s, for the staff', async () => {
    const admin = await signedInAdmin();
    const list = await admin.page('/admin/staff');
    expect(list.response.status).toBe(200);
    expectStrictPage(list.response, list.html);
    expect(list.html).toContain('href="/admin/staff">All clients (staff)</a>');
    const listed = [...list.html.matchAll(/<td><a href="([^"]*)"><code>([^<]*)<\/code><\/a>/g)].map((m) => ({ href: text(m[1]!), clientId: text(m[2]!) }));
    expect(listed).toEqual(expect.arrayContaining([
      { href: staffTrace(evilId), clientId: evilId },
      { href: staffTrace(EVIL_DOCUMENT), clientId: EVIL_DOCUMENT },
    ]));
    expect(listed.map((c) => c.clientId)).toEqual((await app.auth.tracedClients()).map((c) => c.clientId));
  });

  it('shows one client\'s trace, the metadata document\'s URL quoted for the shell and escaped', async () => {
    const admin = await signedInAdmin();
    const page = await admin.page(staffTrace(EVIL_DOCUMENT));
    expect(page.response.status).toBe(200);
    expectStrictPage(page.response, page.html);
    expect(page.html).toContain('<code>https://localhost/a&#39;b&quot;c&lt;d&gt;.json</code>');
    expect(text(page.html)).toContain(`curl -sS -D - 'https://localhost/a'\\''b"c<d>.json'`);
    expect(page.html).toContain('<span class="badge refused">Refused</span>');
    expect(text(page.html)).toContain('The host of the metadata document, localhost, resolves to a private or special-use address');
  });

  it('asks which client when none is named', async () => {
    const admin = await signedInAdmin();
    expect((await admin.page('/admin/staff/trace')).response.status).toBe(400);
    expect((await admin.page('/admin/staff/trace?client_id=a&client_id=b')).response.status).toBe(400);
    expect((await admin.page(`/admin/staff/trace?client_id=${'x'.repeat(513)}`)).response.status).toBe(400);
  });

  it('sends the signed-out to the sign-in form', async () => {
    for (const path of ['/admin/staff', staffTrace(evilId)]) {
      const res = await fetch(`${app.baseUrl}${path}`, { redirect: 'manual' });
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('/admin');
    }
  });

  describe('a school operator who is not platform staff', () => {
    const owner: Account = { id: 'acc-owner', email: 'owner@example.com', name: 'Olga Owner', roles: { 'demo-school': ['owner'] } };
    const accounts: AccountStore = {
      authenticate: async (email, password) => (email === owner.email && password === 'owner' ? owner : undefined),
      findById: async (id) => (id === owner.id ? owner : undefined),
    };
    let server: ReturnType<typeof createServer>;
    let origin: string;

    beforeAll(async () => {
      const host = new Koa();
      host.use(adminPage({ auth: app.auth, accounts, sites: createSiteStore(), secret: 'another-admin-secret-0123456789abcdef', secureCookies: false }));
      server = createServer(host.callback());
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it('sees the school\'s applications and their activity, but no staff view', async () => {
      const operator = await signedInAdmin(origin, { email: owner.email, password: 'owner' });
      const own = await operator.page(appPath(evilId));
      expect(own.response.status).toBe(200);
      expect(own.html).not.toContain('All clients (staff)');
      for (const path of ['/admin/staff', staffTrace(evilId), staffTrace(EVIL_DOCUMENT)]) {
        const refused = await operator.page(path);
        expect(refused.response.status).toBe(403);
        expect(refused.html).toContain('Platform staff only');
        expect(refused.html).not.toContain('special-use');
        expect(refused.html).not.toContain(EVIL_DOCUMENT.slice(0, 20));
      }
    });
  });
});
