/**
 * The README's list of the cookies the library sets ("Add to your app", the Cookies item)
 * against the cookies a sign-in sets: each cookie a sign-in on the library's own page sets is
 * named before the cookies the host's own sign-in page adds, and those are named after it.
 */
import { readFileSync } from 'node:fs';

import { HOST_AREA } from '../../examples/host/host-sign-in.ts';
import { SESSION_COOKIE as ADMIN_COOKIE } from '../../examples/host/admin/session.ts';
import { Browser, isPage, signIn } from '../support/browser.ts';
import { MEMBER, STUDENT, buildAuthorizeUrl } from '../support/flows.ts';
import { pkcePair } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import { codeSpans } from './support.ts';

/** the demo host's own cookies, which are not the library's */
const HOST_COOKIES = new Set([HOST_AREA.cookie, ADMIN_COOKIE]);
const HOST_PAGE_CLAUSE = 'with the host\'s own sign-in page';

/** The README's Cookies item, in one line, split where the host's own sign-in page begins. */
function readmeCookies(): { everySignIn: string[]; hostPage: string[] } {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8').split('\n');
  const start = readme.findIndex((line) => line.startsWith('- Cookies:'));
  const end = readme.findIndex((line, i) => i > start && (line === '' || /^(- |\*\*)/.test(line)));
  const item = readme.slice(start, end).map((line) => line.trim()).join(' ');
  const at = item.indexOf(HOST_PAGE_CLAUSE);
  expect(at).toBeGreaterThan(0);
  const names = (text: string) => codeSpans(text).filter((span) => /^[\w.]+$/.test(span) && !span.startsWith('.'));
  return { everySignIn: names(item.slice(0, at)), hostPage: names(item.slice(at)) };
}

/** The names of the library's cookies (`.sig` companions folded in) set while `run` signs in. */
async function cookiesSetBy(run: () => Promise<void>): Promise<Set<string>> {
  const seen = new Set<string>();
  const realFetch = globalThis.fetch;
  globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const res = await realFetch(input, init);
    for (const header of res.headers.getSetCookie()) {
      const name = header.slice(0, header.indexOf('=')).trim().replace(/\.sig$/, '');
      if (!HOST_COOKIES.has(name)) seen.add(name);
    }
    return res;
  }) as typeof fetch;
  try {
    await run();
  } finally {
    globalThis.fetch = realFetch;
  }
  return seen;
}

async function ownPageSignIn(): Promise<Set<string>> {
  const app = await startApp();
  try {
    return await cookiesSetBy(async () => {
      const browser = new Browser(app.baseUrl);
      const url = buildAuthorizeUrl(app.baseUrl, MEMBER, { scope: 'openid account:read', challenge: pkcePair().challenge, state: 'st' });
      expect(await signIn(browser, url, STUDENT)).toContain('code=');
    });
  } finally {
    await app.stop();
  }
}

async function hostPageSignIn(): Promise<Set<string>> {
  const app = await startApp({ signIn: 'host' });
  try {
    return await cookiesSetBy(async () => {
      const browser = new Browser(app.baseUrl);
      const url = buildAuthorizeUrl(app.baseUrl, MEMBER, { scope: 'openid account:read', challenge: pkcePair().challenge, state: 'st' });
      const hostPage = await browser.navigate(url);
      if (!isPage(hostPage) || new URL(hostPage.url).pathname !== '/sign-in') throw new Error('expected the host\'s sign-in page');
      const consent = await browser.submit(hostPage, '/sign-in', STUDENT);
      if (!isPage(consent)) throw new Error('expected the consent page');
      const back = await browser.submit(consent, '/confirm');
      if (isPage(back)) throw new Error('expected the redirect to the client');
      expect(back.redirect).toContain('code=');
    });
  } finally {
    await app.stop();
  }
}

it('names each cookie a sign-in on the library\'s own page sets for every sign-in, and only the host page\'s after it', async () => {
  const { everySignIn, hostPage } = readmeCookies();
  const own = await ownPageSignIn();
  const host = await hostPageSignIn();
  const ownNames = [...own].sort();
  const hostOnly = [...host].filter((name) => !own.has(name)).sort();
  expect(hostOnly.length).toBeGreaterThan(0);
  // each set on every sign-in is named for every sign-in, not as the host page's
  expect(ownNames.filter((name) => !everySignIn.includes(name))).toEqual([]);
  expect(hostPage.filter((name) => own.has(name))).toEqual([]);
  // what the host's page adds is named after it, and nothing else is named there
  expect([...hostPage].sort()).toEqual(hostOnly);
  // each named is set by one of the sign-ins
  expect(everySignIn.filter((name) => !own.has(name) && !host.has(name))).toEqual([]);
});
