/**
 * The demo host's admin page, "Developers → OAuth applications", over real HTTP: sign-in and
 * who may manage which site, the page headers, CSRF, and the whole life of a member client
 * made on the page (create → real code flow → rotate → delete → its tokens are dead).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import Koa from 'koa';

import { adminPage } from '../../examples/host/admin-page.ts';
import { createSiteStore } from '../../examples/host/seed.ts';
import type { Account, AccountStore } from '../../lib/index.ts';
import { findForm } from '../support/browser.ts';
import { ADMIN, STUDENT, obtainTokens, postForm } from '../support/flows.ts';
import type { TokenSet } from '../support/flows.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import { AdminBrowser, appsPath, issued, row, text } from './admin-browser.ts';

let app: RunningApp;

beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.stop());

const MEMBER_SCOPE = 'openid profile email account:read';

function userinfo(accessToken: string) {
  return fetch(`${app.baseUrl}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } });
}

function introspect(token: string, clientId: string, clientSecret: string) {
  return postForm(`${app.baseUrl}/api/oauth/introspect`, { token, client_id: clientId, client_secret: clientSecret });
}

/** A form POST that does not follow the redirect (postForm does). */
function postManual(url: string, fields: Record<string, string>, cookie: string) {
  return fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams(fields),
  });
}

function refresh(refreshToken: string, clientId: string, clientSecret?: string) {
  return postForm(`${app.baseUrl}/api/oauth/token`, {
    grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId, client_secret: clientSecret,
  });
}

async function signedInAdmin(): Promise<AdminBrowser> {
  const admin = new AdminBrowser(app.baseUrl);
  const landing = await admin.signIn(ADMIN.email, ADMIN.password);
  expect(landing.response.status).toBe(200);
  // the admin operates demo-school only, so lands on its page without a picker
  expect(new URL(landing.url).pathname).toBe(appsPath('demo-school'));
  return admin;
}

describe('sign-in and page headers', () => {
  it('serves the sign-in form under a strict CSP, unframeable and uncached, with a narrow session cookie', async () => {
    const res = await fetch(`${app.baseUrl}/admin`);
    const body = await res.text();
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    const directives = Object.fromEntries(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k, v]));
    expect(directives['default-src']).toEqual(["'none'"]);
    expect(directives['form-action']).toEqual(["'self'"]);
    expect(directives['frame-ancestors']).toEqual(["'none'"]);
    expect(directives['script-src']).toBeUndefined();
    expect(csp).not.toContain('unsafe-inline');
    const nonce = /^'nonce-(.+)'$/.exec(directives['style-src']?.[0] ?? '')?.[1];
    expect(nonce).toBeDefined();
    expect(body).toContain(`<style nonce="${nonce}">`);
    expect(body).not.toMatch(/<script|\son[a-z]+=/i);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');

    const [cookie, ...more] = res.headers.getSetCookie();
    expect(more).toEqual([]);
    expect(cookie).toMatch(/^admin_session=[^;]+/);
    const attributes = cookie!.split(';').slice(1).map((a) => a.trim().toLowerCase());
    expect(attributes).toEqual(expect.arrayContaining(['path=/admin', 'httponly', 'samesite=lax']));
    const expires = Date.parse(attributes.find((a) => a.startsWith('expires='))!.slice('expires='.length));
    expect(expires - Date.now()).toBeLessThanOrEqual(60 * 60 * 1000);
  });

  it('refuses a wrong password with 401 and the form again, and signs nobody in', async () => {
    const admin = new AdminBrowser(app.baseUrl);
    const form = await admin.page('/admin');
    const answer = await admin.browser.submit(form, '/admin/sign-in', { email: ADMIN.email, password: 'wrong' });
    expect('html' in answer && answer.response.status).toBe(401);
    expect('html' in answer && answer.html).toContain('The email or password is incorrect.');
    const apps = await admin.page(appsPath('demo-school'));
    expect(new URL(apps.url).pathname).toBe('/admin');
    expect(apps.html).toContain('name="password"');
  });

  it('refuses a student with a clear 403 page and no session', async () => {
    const student = new AdminBrowser(app.baseUrl);
    const refused = await student.signIn(STUDENT.email, STUDENT.password);
    expect(refused.response.status).toBe(403);
    expect(text(refused.html)).toContain('student@example.com is not an owner or admin of any school');
    const apps = await student.page(appsPath('demo-school'));
    expect(new URL(apps.url).pathname).toBe('/admin');
    expect(apps.html).toContain('name="password"');
  });

  it('answers a sign-in POST without the form\'s CSRF token with 403', async () => {
    const admin = new AdminBrowser(app.baseUrl);
    await admin.page('/admin');
    const answer = await admin.post('/admin/sign-in', { email: ADMIN.email, password: ADMIN.password });
    expect(answer.response.status).toBe(403);
    expect(answer.response.headers.getSetCookie()).toEqual([]);
  });

  it('ends the session on sign-out, also for a copy of the cookie replayed afterwards', async () => {
    // raw fetch rather than Browser: the test must keep the cookie the browser would drop
    const start = await fetch(`${app.baseUrl}/admin`);
    const anonymous = start.headers.getSetCookie()[0]!.split(';')[0]!;
    const csrf = findForm(await start.text(), '/admin/sign-in').hidden.csrf!;
    const signIn = await postManual(`${app.baseUrl}/admin/sign-in`, { csrf, email: ADMIN.email, password: ADMIN.password }, anonymous);
    expect(signIn.status).toBe(303);
    const session = signIn.headers.getSetCookie()[0]!.split(';')[0]!;
    expect(session).not.toBe(anonymous);

    const apps = await fetch(`${app.baseUrl}${appsPath('demo-school')}`, { headers: { cookie: session }, redirect: 'manual' });
    expect(apps.status).toBe(200);
    const out = findForm(await apps.text(), '/admin/sign-out');
    const signOut = await postManual(`${app.baseUrl}${out.action}`, out.hidden, session);
    expect(signOut.status).toBe(303);
    expect(signOut.headers.getSetCookie()[0]).toMatch(/^admin_session=;/);

    const replay = await fetch(`${app.baseUrl}${appsPath('demo-school')}`, { headers: { cookie: session }, redirect: 'manual' });
    expect(replay.status).toBe(303);
    expect(replay.headers.get('location')).toBe('/admin');
  });

  it('refuses a session cookie whose content was changed (HMAC)', async () => {
    const start = await fetch(`${app.baseUrl}/admin`);
    const [payload, signature] = start.headers.getSetCookie()[0]!.split(';')[0]!.slice('admin_session='.length).split('.');
    const session = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    expect(session).toEqual({ sid: expect.any(String), exp: expect.any(Number) });
    const forged = Buffer.from(JSON.stringify({ ...session, acc: 'acc-admin' })).toString('base64url');
    const res = await fetch(`${app.baseUrl}${appsPath('demo-school')}`, { headers: { cookie: `admin_session=${forged}.${signature}` }, redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/admin');
  });

  it('answers an unknown admin path with a 404 page', async () => {
    const res = await fetch(`${app.baseUrl}/admin/nothing-here`);
    expect(res.status).toBe(404);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
  });
});

describe('who may manage which site', () => {
  let admin: AdminBrowser;
  beforeAll(async () => {
    admin = await signedInAdmin();
  });

  it.each(['other-school', 'no-such-school', 'constructor', '__proto__'])('refuses the page of %s, which the admin does not operate, with 403', async (site) => {
    const page = await admin.page(appsPath(site));
    expect(page.response.status).toBe(403);
    expect(text(page.html)).toContain(`admin@example.com is not an owner or admin of a school called “${site}”`);
  });

  it('refuses creation at other-school with 403 even with a valid CSRF token, and nothing is created', async () => {
    const own = await admin.page(appsPath('demo-school'));
    const answer = await admin.post(appsPath('other-school'), {
      csrf: admin.csrf(own), name: 'Sneaky', redirect_uris: 'https://sneaky.example/cb', type: 'public', scope: 'openid',
    });
    expect(answer.response.status).toBe(403);
    // the page's own check, not the library's beta refusal (which would also be a 403)
    expect(text(answer.html)).toContain('is not an owner or admin of a school called “other-school”');
    expect(await app.auth.memberClients.list('other-school')).toEqual([]);
  });

  it('refuses to touch a demo-school client through another site\'s path with 403', async () => {
    const own = await admin.page(appsPath('demo-school'));
    const { client } = await app.auth.memberClients.create('demo-school', {
      name: 'Mine', redirectUris: ['https://mine.example/cb'], type: 'confidential', scopes: ['openid'],
    });
    for (const action of ['rotate', 'delete']) {
      const answer = await admin.post(`${appsPath('other-school')}/${client.clientId}/${action}`, { csrf: admin.csrf(own) });
      expect({ action, status: answer.response.status }).toEqual({ action, status: 403 });
    }
    expect(await app.auth.memberClients.get('demo-school', client.clientId)).toEqual(client);
    await app.auth.memberClients.delete('demo-school', client.clientId);
  });

  it('refuses a POST without a CSRF token, or with another session\'s token, with 403 and creates nothing', async () => {
    const before = (await app.auth.memberClients.list('demo-school')).length;
    const fields = { name: 'Forged', redirect_uris: 'https://forged.example/cb', type: 'public', scope: 'openid' };

    const missing = await admin.post(appsPath('demo-school'), fields);
    expect(missing.response.status).toBe(403);
    expect(missing.html).toContain('This form has expired');

    const other = await signedInAdmin();
    const foreign = admin.csrf(await other.page(appsPath('demo-school')));
    expect(foreign).not.toBe(admin.csrf(await admin.page(appsPath('demo-school'))));
    const forged = await admin.post(appsPath('demo-school'), { ...fields, csrf: foreign });
    expect(forged.response.status).toBe(403);

    const anonymous = new AdminBrowser(app.baseUrl);
    const noSession = await anonymous.post(appsPath('demo-school'), { ...fields, csrf: foreign });
    expect(noSession.response.status).toBe(403);

    expect(await app.auth.memberClients.list('demo-school')).toHaveLength(before);
  });
});

describe('the life of an application made on the page', () => {
  let admin: AdminBrowser;
  let confidential: { clientId: string; secret: string };
  let publicId: string;
  let publicTokens: TokenSet;
  let confidentialTokens: TokenSet;

  const CONFIDENTIAL_REDIRECT = 'https://buddy.example/oauth/callback';

  beforeAll(async () => {
    admin = await signedInAdmin();
  });

  it('offers the member-eligible scopes only, with openid profile email account:read pre-checked', async () => {
    const page = await admin.page(appsPath('demo-school'));
    const boxes = [...page.html.matchAll(/<input type="checkbox" name="scope" value="([^"]+)"( checked)?>/g)];
    expect(boxes.map((m) => m[1])).toEqual(['openid', 'profile', 'email', 'account:read', 'account:write']);
    expect(boxes.filter((m) => m[2]).map((m) => m[1])).toEqual(['openid', 'profile', 'email', 'account:read']);
    expect(page.html).not.toContain('courses:read');
    expect(page.html).not.toContain('“MCP connections” beta is not enabled');
  });

  it('creates a confidential app and shows its secret once, uncached, never on the list page', async () => {
    const created = await admin.create(await admin.page(appsPath('demo-school')), {
      name: 'Study <Buddy>', redirectUris: [CONFIDENTIAL_REDIRECT], type: 'confidential', scopes: MEMBER_SCOPE.split(' '),
    });
    expect(created.response.status).toBe(200);
    expect(created.response.headers.get('cache-control')).toBe('no-store');
    const shown = issued(created.html);
    expect(shown.clientId).toMatch(/^mc_/);
    expect(shown.clientSecret).toMatch(/^[\w-]{40,}$/);
    confidential = { clientId: shown.clientId!, secret: shown.clientSecret! };
    // escaped, not markup
    expect(created.html).toContain('Study &lt;Buddy&gt;');

    const stored = await app.auth.memberClients.get('demo-school', confidential.clientId);
    expect(stored).toMatchObject({ type: 'confidential', site: 'demo-school', name: 'Study <Buddy>', redirectUris: [CONFIDENTIAL_REDIRECT] });

    const list = await admin.page(appsPath('demo-school'));
    expect(list.html).toContain(`<code>${confidential.clientId}</code>`);
    expect(list.html).not.toContain(confidential.secret);
    expect(issued(list.html)).toEqual({ clientId: undefined, clientSecret: undefined });
  });

  it('creates a public app without a secret; both are listed with name, client_id, type, scopes and redirect URIs', async () => {
    const created = await admin.create(await admin.page(appsPath('demo-school')), {
      name: 'Desktop Buddy', redirectUris: ['http://127.0.0.1/callback'], type: 'public', scopes: MEMBER_SCOPE.split(' '),
    });
    expect(created.response.status).toBe(200);
    const shown = issued(created.html);
    expect(shown.clientId).toMatch(/^mc_/);
    expect(shown.clientSecret).toBeUndefined();
    publicId = shown.clientId!;

    const list = await admin.page(appsPath('demo-school'));
    const pub = row(list.html, publicId)!;
    expect(pub).toContain('<span class="app-name">Desktop Buddy</span>');
    expect(pub).toContain('<td>public</td>');
    expect(pub).toContain('<code>http://127.0.0.1/callback</code>');
    for (const scope of MEMBER_SCOPE.split(' ')) expect(pub).toContain(`<code>${scope}</code>`);
    expect(pub).not.toContain('/rotate"');
    expect(pub).toContain(`/${publicId}/delete"`);

    const conf = row(list.html, confidential.clientId)!;
    expect(conf).toContain('<td>confidential</td>');
    expect(conf).toContain(`<code>${CONFIDENTIAL_REDIRECT}</code>`);
    expect(conf).toContain(`/${confidential.clientId}/rotate"`);
  });

  it('the public app works as a member client of demo-school for a student', async () => {
    publicTokens = await obtainTokens(app.baseUrl, { clientId: publicId, redirectUri: 'http://127.0.0.1:8765/callback' }, { scope: MEMBER_SCOPE }, STUDENT);
    expect(publicTokens.scope.split(' ').sort()).toEqual(MEMBER_SCOPE.split(' ').sort());
    const res = await userinfo(publicTokens.access_token);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ sub: 'acc-student', org_id: 'demo-school', roles: ['student'], email: STUDENT.email });
  });

  it('the confidential app works with its secret; introspection shows the site as org_id', async () => {
    const client = { clientId: confidential.clientId, clientSecret: confidential.secret, redirectUri: CONFIDENTIAL_REDIRECT };
    confidentialTokens = await obtainTokens(app.baseUrl, client, { scope: 'openid account:read' }, STUDENT);
    const res = await introspect(confidentialTokens.access_token, confidential.clientId, confidential.secret);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ active: true, client_id: confidential.clientId, org_id: 'demo-school', roles: ['student'] });
  });

  it('rotates the secret: the new one is shown once, the old one is refused at introspection and the token endpoint', async () => {
    const rotated = await admin.press(await admin.page(appsPath('demo-school')), confidential.clientId, 'rotate');
    expect(rotated.response.status).toBe(200);
    expect(rotated.response.headers.get('cache-control')).toBe('no-store');
    const shown = issued(rotated.html);
    expect(shown.clientId).toBe(confidential.clientId);
    expect(shown.clientSecret).toMatch(/^[\w-]{40,}$/);
    expect(shown.clientSecret).not.toBe(confidential.secret);
    const old = confidential.secret;
    const fresh = shown.clientSecret!;

    const oldIntrospection = await introspect(confidentialTokens.access_token, confidential.clientId, old);
    expect(oldIntrospection.status).toBe(401);
    expect((await oldIntrospection.json()).error).toBe('invalid_client');
    const oldRefresh = await refresh(confidentialTokens.refresh_token, confidential.clientId, old);
    expect(oldRefresh.status).toBe(401);
    expect((await oldRefresh.json()).error).toBe('invalid_client');

    const newIntrospection = await introspect(confidentialTokens.access_token, confidential.clientId, fresh);
    expect(newIntrospection.status).toBe(200);
    expect((await newIntrospection.json()).active).toBe(true);
    const newRefresh = await refresh(confidentialTokens.refresh_token, confidential.clientId, fresh);
    expect(newRefresh.status).toBe(200);

    const list = await admin.page(appsPath('demo-school'));
    expect(list.html).not.toContain(fresh);
  });

  it('deletes the public app: gone from the list, its access token 401 at UserInfo, its refresh token refused', async () => {
    expect((await userinfo(publicTokens.access_token)).status).toBe(200);
    const deleted = await admin.press(await admin.page(appsPath('demo-school')), publicId, 'delete');
    // see-other to the list, so a reload cannot repeat the POST
    expect(deleted.response.status).toBe(303);
    expect(deleted.response.headers.get('location')).toBe(`${appsPath('demo-school')}?deleted=1`);
    const list = await admin.page(deleted.response.headers.get('location')!);
    expect(list.html).toContain('The application was deleted.');
    expect(row(list.html, publicId)).toBeUndefined();
    expect(row(list.html, confidential.clientId)).toBeDefined();

    const info = await userinfo(publicTokens.access_token);
    expect(info.status).toBe(401);
    expect(info.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const again = await refresh(publicTokens.refresh_token, publicId);
    expect(again.status).toBe(401);
    expect((await again.json()).error).toBe('invalid_client');
    await expect(app.auth.memberClients.get('demo-school', publicId)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('shows the library\'s refusal of bad input as a 400 page that keeps the form', async () => {
    const page = await admin.page(appsPath('demo-school'));
    const badUri = await admin.create(page, { name: 'Keep me', redirectUris: ['http://buddy.example/cb'], type: 'public', scopes: ['openid'] });
    expect(badUri.response.status).toBe(400);
    expect(text(badUri.html)).toContain('redirect URI "http://buddy.example/cb" must be https, or http on a loopback address');
    expect(badUri.html).toContain('value="Keep me"');
    expect(badUri.html).toContain('>http://buddy.example/cb</textarea>');

    // a tampered form: the page offers no operator scope, the library refuses it anyway
    const operatorScope = await admin.create(page, { name: 'Greedy', redirectUris: ['https://greedy.example/cb'], type: 'public', scopes: ['openid', 'courses:read'] });
    expect(operatorScope.response.status).toBe(400);
    expect(text(operatorScope.html)).toContain('scope "courses:read" cannot be given to a member client');

    const noScopes = await admin.create(page, { name: 'Empty', redirectUris: ['https://empty.example/cb'], type: 'public', scopes: [] });
    expect(noScopes.response.status).toBe(400);
    expect(text(noScopes.html)).toContain('scopes must pick at least one of');

    const names = (await app.auth.memberClients.list('demo-school')).map((c) => c.name);
    expect(names).not.toContain('Keep me');
    expect(names).not.toContain('Greedy');
    expect(names).not.toContain('Empty');
  });

  it('stores a name as sent, or refuses the form: never one garbled by a charset or escape that is no UTF-8', async () => {
    const page = await admin.page(appsPath('demo-school'));
    const csrf = admin.csrf(page);
    const send = (name: string, contentType = 'application/x-www-form-urlencoded') => admin.browser.request(appsPath('demo-school'), {
      method: 'POST', headers: { 'content-type': contentType, accept: 'text/html' },
      body: `csrf=${encodeURIComponent(csrf)}&name=${name}&redirect_uris=http%3A%2F%2F127.0.0.1%2Fcb&type=public&scope=openid`,
    });
    // Latin-1, declared: refused, not read as UTF-8
    const latin1 = await send('Caf%E9', 'application/x-www-form-urlencoded; charset=iso-8859-1');
    expect(latin1.status).toBe(415);
    expect(latin1.headers.get('content-security-policy')).toContain("default-src 'none'");
    // an escape that is no UTF-8 (Latin-1 undeclared, an overlong form)
    for (const name of ['Caf%E9', 'Tool%C0%AF']) expect((await send(name)).status).toBe(400);
    // UTF-8, as the page sends it: stored as typed
    expect((await send('Caf%C3%A9+%E2%9C%93', 'application/x-www-form-urlencoded; charset=UTF-8')).status).toBe(200);
    const names = (await app.auth.memberClients.list('demo-school')).map((c) => c.name);
    expect(names).toContain('Café ✓');
    expect(names.filter((n) => n.includes('\uFFFD'))).toEqual([]);
  });

  it('turns the library\'s not_found and "public clients have no secret" into 404 and 400 pages', async () => {
    const page = await admin.page(appsPath('demo-school'));
    const csrf = admin.csrf(page);
    const pub = issued((await admin.create(page, { name: 'No secret', redirectUris: ['http://127.0.0.1/cb'], type: 'public', scopes: ['openid'] })).html).clientId!;

    const rotatePublic = await admin.post(`${appsPath('demo-school')}/${pub}/rotate`, { csrf });
    expect(rotatePublic.response.status).toBe(400);
    expect(rotatePublic.html).toContain('public clients have no secret to rotate');

    for (const id of ['mc_unknown', 'demo-member-app', 'demo-operator-app']) {
      const answer = await admin.post(`${appsPath('demo-school')}/${id}/delete`, { csrf });
      expect({ id, status: answer.response.status }).toEqual({ id, status: 404 });
      expect(text(answer.html)).toContain(`site demo-school has no OAuth application "${id}"`);
    }
  });
});

describe('an operator of several sites (a host account store of its own)', () => {
  const owner: Account = { id: 'acc-owner', email: 'owner@example.com', name: 'Olga Owner', roles: { 'demo-school': ['owner'], 'other-school': ['admin'] } };
  const accounts: AccountStore = {
    authenticate: async (email, password) => (email === owner.email && password === 'owner' ? owner : undefined),
    findById: async (id) => (id === owner.id ? owner : undefined),
  };
  let server: ReturnType<typeof createServer>;
  let origin: string;

  beforeAll(async () => {
    // the same library instance as the demo, under an admin page that knows one more account
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

  it('picks the site, and at the site without the beta the page says so and creation shows the library\'s refusal', async () => {
    const owner = new AdminBrowser(origin);
    const picker = await owner.signIn('owner@example.com', 'owner');
    expect(new URL(picker.url).pathname).toBe('/admin');
    expect(picker.html).toContain(`href="${appsPath('demo-school')}">Demo School</a>`);
    expect(picker.html).toContain(`href="${appsPath('other-school')}">Other School</a>`);

    const other = await owner.page(appsPath('other-school'));
    expect(other.response.status).toBe(200);
    expect(other.html).toContain('The “MCP connections” beta is not enabled for Other School');

    // no create form without the beta; a POST sent anyway gets the library's refusal
    expect(other.html).not.toContain(`action="${appsPath('other-school')}"`);
    const refused = await owner.post(appsPath('other-school'), {
      csrf: owner.csrf(other), name: 'Too early', redirect_uris: 'https://early.example/cb', type: 'public', scope: 'openid',
    });
    expect(refused.response.status).toBe(403);
    expect(text(refused.html)).toContain('OAuth applications need the "MCP connections" beta, which is not enabled for site other-school');
    expect(await app.auth.memberClients.list('other-school')).toEqual([]);

    const demo = await owner.page(appsPath('demo-school'));
    expect(demo.response.status).toBe(200);
    expect(demo.html).not.toContain('beta is not enabled');
  });
});
