/**
 * The pages speak the request's language (`ui_locales` first, then `Accept-Language`), set
 * `<html lang>` and `Content-Language`, and wear the site's brand where the site is known:
 * a member client's school on sign-in and consent, an operator's only school on consent.
 * Error pages say what happened in plain words; the code is small print.
 */
import type { Site, SiteStore } from '../../lib/index.ts';
import { Browser, isPage } from '../support/browser.ts';
import type { PageResult } from '../support/browser.ts';
import { ADMIN, MEMBER, STUDENT, buildAuthorizeUrl, operator } from '../support/flows.ts';
import { pkcePair } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

const SITES: Record<string, Site> = {
  'demo-school': { id: 'demo-school', name: 'Demo School', branding: { logoUrl: 'https://cdn.school.example/logo.png', accentColor: '#0f766e' } },
  'other-school': { id: 'other-school', name: 'Other School', branding: { accentColor: 'red;}main{display:none', logoUrl: 'http://insecure.example/l.png' } },
};
const sites: SiteStore = { findById: async (id) => SITES[id] };

let app: RunningApp;
beforeAll(async () => {
  app = await startApp({ auth: { sites, memberClients: { betaEnabled: true } } });
});
afterAll(() => app.stop());

const text = (html: string) => html.replace(/<style[\s\S]*?<\/style>/, '').replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

async function open(client: { clientId: string; redirectUri: string }, scope: string, { uiLocales, language }: { uiLocales?: string; language?: string } = {}) {
  const browser = new Browser(app.baseUrl);
  const url = buildAuthorizeUrl(app.baseUrl, client, { scope, challenge: pkcePair().challenge, state: 's', extra: uiLocales ? { ui_locales: uiLocales } : {} });
  let page = await browser.navigate(url);
  // a browser sends Accept-Language with every request; the test browser only with the one it is given
  if (isPage(page) && language) page = await browser.navigate(page.url, { headers: { 'accept-language': language } });
  if (!isPage(page)) throw new Error('expected the sign-in page');
  return { browser, page };
}

async function consentOf(browser: Browser, login: PageResult, user: { email: string; password: string }) {
  const consent = await browser.submit(login, '/login', user);
  if (!isPage(consent)) throw new Error('expected the consent page');
  return consent;
}

describe('language', () => {
  it('follows ui_locales: the sign-in and consent pages in German', async () => {
    const { browser, page } = await open(MEMBER, 'openid account:read', { uiLocales: 'de-CH en' });
    expect(page.html).toMatch(/^<!doctype html>\n<html lang="de">/);
    expect(page.response.headers.get('content-language')).toBe('de');
    expect(text(page.html)).toContain('Anmelden um mit Demo Member App fortzufahren');
    expect(page.html).toContain('<label for="password">Passwort</label>');
    expect(page.html).toContain('>Abbrechen</button>');

    const consent = await consentOf(browser, page, STUDENT);
    expect(consent.html).toContain('<html lang="de">');
    expect(text(consent.html)).toContain('Demo School: Demo Member App möchte auf Ihr Konto zugreifen');
    expect(text(consent.html)).toContain('Erstellt von Demo School');
    expect(text(consent.html)).toContain('Ihr eigenes Konto an dieser Schule lesen');
    expect(consent.html).toContain('>Erlauben</button>');
  });

  it('follows Accept-Language when ui_locales names nothing the catalogue has, and ui_locales before it', async () => {
    expect((await open(MEMBER, 'openid', { language: 'fr-FR, de;q=0.8, en;q=0.5' })).page.html).toContain('<html lang="de">');
    expect((await open(MEMBER, 'openid', { uiLocales: 'fr', language: 'de' })).page.html).toContain('<html lang="de">');
    expect((await open(MEMBER, 'openid', { uiLocales: 'en', language: 'de' })).page.html).toContain('<html lang="en">');
    expect((await open(MEMBER, 'openid')).page.html).toContain('<html lang="en">');
  });

  it('keeps its language after a failed sign-in', async () => {
    const { browser, page } = await open(MEMBER, 'openid', { uiLocales: 'de' });
    const again = await browser.submit(page, '/login', { email: STUDENT.email, password: 'wrong' });
    if (!isPage(again)) throw new Error('expected the sign-in page again');
    expect(again.response.status).toBe(401);
    expect(again.html).toContain('Die E-Mail-Adresse oder das Passwort ist falsch.');
  });

  it('error pages: what happened and what to do in words, in the language; the code in small print', async () => {
    const url = buildAuthorizeUrl(app.baseUrl, { clientId: MEMBER.clientId, redirectUri: 'https://evil.example/cb' }, { scope: 'openid', challenge: pkcePair().challenge, state: 's' });
    for (const [language, headline, words] of [
      ['en', 'This sign-in link does not work', 'Go back to the application and start signing in again.'],
      ['de', 'Dieser Anmeldelink funktioniert nicht', 'Kehren Sie zur Anwendung zurück und beginnen Sie die Anmeldung erneut.'],
    ] as const) {
      const res = await fetch(url, { headers: { 'accept-language': language, accept: 'text/html' } });
      const html = await res.text();
      expect(res.status).toBe(400);
      expect(html).toContain(`<html lang="${language}">`);
      expect(/<h1>([^<]*)<\/h1>/.exec(html)![1]).toBe(headline);
      expect(text(html)).toContain(words);
      // the code is there for support, in the small print only
      expect(/<p class="support">[\s\S]*?<code>invalid_redirect_uri: [^<]+<\/code>/.test(html)).toBe(true);
      expect(text(/<main>([\s\S]*)<p class="support">/.exec(html)![1]!)).not.toContain('invalid_redirect_uri');
    }
  });
});

describe('brand', () => {
  it('wears a member client\'s school on the sign-in page: name, logo (allowed by the CSP) and accent', async () => {
    const { page } = await open(MEMBER, 'openid');
    expect(page.html).toContain('<div class="brand"><img src="https://cdn.school.example/logo.png" alt="" width="28" height="28"><span>Demo School</span></div>');
    expect(page.html).toContain(':root{--accent:#0f766e;--on-accent:#ffffff;--accent-text:#0f766e}');
    expect(page.response.headers.get('content-security-policy')).toContain('img-src https://cdn.school.example;');
  });

  it('ignores a school\'s invalid accent and logo, and says so once in the log', async () => {
    const { client } = await app.auth.memberClients.create('other-school', {
      name: 'Other app', type: 'public', redirectUris: ['http://127.0.0.1/other'], scopes: ['openid'],
    });
    const before = app.warnings.length;
    for (let i = 0; i < 2; i += 1) {
      const { page } = await open({ clientId: client.clientId, redirectUri: 'http://127.0.0.1:9914/other' }, 'openid');
      expect(page.html).toContain('<span>Other School</span></div>');
      expect(page.html).not.toContain('insecure.example');
      expect(page.html).not.toContain('display:none');
      expect(page.html).toContain('--accent:#4f46e5');
      expect(page.response.headers.get('content-security-policy')).not.toContain('img-src');
    }
    const said = app.warnings.slice(before);
    expect(said).toHaveLength(2);
    expect(said.join('\n')).toContain('site "other-school" has a branding.logoUrl that is not an https URL; it is ignored');
    expect(said.join('\n')).toContain('site "other-school" has a branding.accentColor that is not a hex colour (#rrggbb); it is ignored');
  });

  it('wears an operator\'s only school on consent, and the service\'s look on an operator client\'s sign-in', async () => {
    const { browser, page } = await open(operator(app.baseUrl, app.operatorSecret), 'openid courses:read');
    expect(page.html).toContain('<span>Courses</span></div>');
    expect(page.response.headers.get('content-security-policy')).not.toContain('img-src');
    const consent = await consentOf(browser, page, ADMIN);
    expect(consent.html).toContain('<span>Demo School</span></div>');
    expect(consent.html).toContain('--accent:#0f766e');
    expect(consent.response.headers.get('content-security-policy')).toContain('img-src https://cdn.school.example;');
  });
});
