/**
 * The error page that replaces a withheld error redirect (lib/policies/redirect-trust.ts) is
 * the provider's own error page (lib/pages/error-page.ts): in the request's language
 * (`ui_locales`, then `Accept-Language`) and the configured look (`options.pages.brand`), like
 * the page oidc-provider shows for an unknown client, not an English page in the default look.
 */
import { buildAuthorizeUrl } from '../support/flows.ts';
import type { FlowClient } from '../support/flows.ts';
import { pkcePair } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

const EVIL = 'https://evil.example/cb';
const BRAND = { name: 'Lernwelt', accentColor: '#0f766e' };

let app: RunningApp;
let registered: FlowClient;

beforeAll(async () => {
  app = await startApp({ auth: { registration: { variant: 'open' }, pages: { brand: BRAND } } });
  const res = await fetch(`${app.baseUrl}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Totally Legit', redirect_uris: [EVIL], token_endpoint_auth_method: 'none' }),
  });
  expect(res.status).toBe(201);
  registered = { clientId: (await res.json()).client_id, redirectUri: EVIL };
});

afterAll(async () => {
  await app?.stop();
});

/** An authorization request the provider would answer with an error redirect (an unknown scope). */
function badScope(client: FlowClient, extra: Record<string, string> = {}): string {
  return buildAuthorizeUrl(app.baseUrl, client, { scope: 'openid teleport:write', state: 'st', challenge: pkcePair().challenge, extra });
}

async function withheld(url: string, headers: Record<string, string> = {}): Promise<{ res: Response; html: string }> {
  const res = await fetch(url, { redirect: 'manual', headers });
  const html = await res.text();
  expect({ status: res.status, location: res.headers.get('location') }).toEqual({ status: 400, location: null });
  expect(html).not.toContain('evil.example');
  expect(html).toContain('invalid_scope');
  return { res, html };
}

it('Accept-Language: de: the page is in German, with the configured brand', async () => {
  const { res, html } = await withheld(badScope(registered), { 'accept-language': 'de-CH, en;q=0.5' });
  expect(res.headers.get('content-language')).toBe('de');
  expect(html).toContain('<html lang="de"');
  expect(html).toContain('Dieser Anmeldelink funktioniert nicht');
  expect(html).not.toContain('This sign-in link does not work');
  expect(html).toContain(`<span>${BRAND.name}</span>`);
  expect(html).toContain(BRAND.accentColor);
  expect(html).not.toContain('<span>Courses</span>');
});

it('ui_locales=de wins over Accept-Language', async () => {
  const { res, html } = await withheld(badScope(registered, { ui_locales: 'de' }), { 'accept-language': 'en' });
  expect(res.headers.get('content-language')).toBe('de');
  expect(html).toContain('Dieser Anmeldelink funktioniert nicht');
});

it('without a language preference: English, still in the configured brand', async () => {
  const { res, html } = await withheld(badScope(registered), { 'accept-language': 'fr' });
  expect(res.headers.get('content-language')).toBe('en');
  expect(html).toContain('This sign-in link does not work');
  expect(html).toContain(`<span>${BRAND.name}</span>`);
});

it('reads like the provider\'s own error page for the same request language (an unknown client)', async () => {
  const headers = { 'accept-language': 'de' };
  const own = await fetch(badScope({ clientId: 'nobody-knows-me', redirectUri: EVIL }), { redirect: 'manual', headers });
  const ownHtml = await own.text();
  expect(own.status).toBe(400);
  const { html } = await withheld(badScope(registered), headers);
  for (const page of [ownHtml, html]) {
    expect(page).toContain('<html lang="de"');
    expect(page).toContain('Dieser Anmeldelink funktioniert nicht');
    expect(page).toContain(`<span>${BRAND.name}</span>`);
  }
});
