/**
 * The consent page puts the site first ("Demo School: Demo Member App wants to…") and says who
 * vouches for the client: a self-registered client (open registration) is labelled unverified,
 * with where it returns to; a school-created member client, a vendor platform and a client the
 * service configured are labelled as such and never unverified.
 */
import { Browser, isPage } from '../support/browser.ts';
import type { PageResult } from '../support/browser.ts';
import { ADMIN, MEMBER, STUDENT, buildAuthorizeUrl, operator } from '../support/flows.ts';
import { pkcePair } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

let app: RunningApp;
beforeAll(async () => {
  // open registration, with the demo's vendor platform still listed
  app = await startApp({ auth: { registration: { variant: 'open', vendors: [{ clientId: 'acme-lms' }] } } });
});
afterAll(() => app.stop());

/** Visible text, tags dropped and entities of the page decoded. */
const text = (html: string) => html.replace(/<[^>]+>/g, '').replace(/&amp;/g, '&').replace(/&#39;/g, '\'').replace(/\s+/g, ' ');

async function consentFor(client: { clientId: string; redirectUri: string }, scope: string, user: { email: string; password: string }): Promise<PageResult> {
  const browser = new Browser(app.baseUrl);
  const login = await browser.navigate(buildAuthorizeUrl(app.baseUrl, client, { scope, challenge: pkcePair().challenge, state: 's' }));
  if (!isPage(login)) throw new Error('expected the sign-in page');
  const consent = await browser.submit(login, '/login', user);
  if (!isPage(consent) || !consent.html.includes('/confirm"')) throw new Error(`expected the consent page, got ${JSON.stringify(consent).slice(0, 400)}`);
  return consent;
}

const main = (html: string) => /<main>([\s\S]*)<\/main>/.exec(html)![1]!;
const heading = (html: string) => text(/<h1>([\s\S]*?)<\/h1>/.exec(html)![1]!);
const badge = (html: string) => /<span class="badge (verified|unverified)">([^<]*)<\/span>/.exec(html)?.slice(1);

it('labels a self-registered client unverified, saying where it returns to', async () => {
  const res = await fetch(`${app.baseUrl}/api/oauth/register`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Demo School (official)', redirect_uris: ['http://127.0.0.1/cb'], token_endpoint_auth_method: 'none', scope: 'openid courses:read' }),
  });
  expect(res.status).toBe(201);
  const { client_id: clientId } = await res.json() as { client_id: string };
  const consent = await consentFor({ clientId, redirectUri: 'http://127.0.0.1:9911/cb' }, 'openid courses:read', ADMIN);
  expect(badge(consent.html)).toEqual(['unverified', 'Unverified']);
  expect(text(consent.html)).toContain('This application registered itself: its name is its own claim, and nobody has checked it. It returns to 127.0.0.1:9911.');
  // the operator operates one school: the site is known and comes first
  expect(heading(consent.html)).toBe('Demo School: Demo School (official) wants to access your account');
});

it('labels a school-created member client as the school\'s, never unverified', async () => {
  const { client } = await app.auth.memberClients.create('demo-school', {
    name: 'Study buddy', type: 'public', redirectUris: ['http://127.0.0.1/buddy'], scopes: ['openid', 'account:read'],
  });
  const consent = await consentFor({ clientId: client.clientId, redirectUri: 'http://127.0.0.1:9912/buddy' }, 'openid account:read', STUDENT);
  expect(badge(consent.html)).toEqual(['verified', 'Created by Demo School']);
  expect(main(consent.html)).not.toMatch(/[Uu]nverified/);
  expect(text(consent.html)).toContain('This application was set up by Demo School for its members.');
  expect(heading(consent.html)).toBe('Demo School: Study buddy wants to access your account');
});

it('labels the configured member client, vendor platform and operator client by who set them up', async () => {
  const member = await consentFor(MEMBER, 'openid account:read', STUDENT);
  expect(badge(member.html)).toEqual(['verified', 'Created by Demo School']);
  expect(heading(member.html)).toBe('Demo School: Demo Member App wants to access your account');

  const vendor = await consentFor({ clientId: 'acme-lms', redirectUri: 'http://127.0.0.1:9913/acme/callback' }, 'openid courses:read', ADMIN);
  expect(badge(vendor.html)).toEqual(['verified', 'Approved integration']);

  const configured = await consentFor(operator(app.baseUrl, app.operatorSecret), 'openid courses:read', ADMIN);
  expect(badge(configured.html)).toEqual(['verified', 'Set up by this service']);
  expect(main(configured.html)).not.toMatch(/[Uu]nverified/);
});

it('puts the site before the client, and the trust line before the scopes', async () => {
  const consent = await consentFor(MEMBER, 'openid account:read', STUDENT);
  const order = ['Demo School:', 'Created by Demo School', 'It will be able to:', '<code>openid</code>'].map((s) => consent.html.indexOf(s));
  expect(order.every((i) => i >= 0)).toBe(true);
  expect([...order].sort((a, b) => a - b)).toEqual(order);
});
