/**
 * The README's key rotation with cookie keys ("Cookie keys rotate in the same run, a new key
 * first ... deploy its output through the three steps above"), its commands read from the README
 * and run as written (the CLI, then step 1's jq). During step 1 some instances run
 * secrets.publish.json while others still run the current secrets, on the same storage and
 * baseUrl: what an instance not yet deployed cannot check must not be signed yet, so a sign-in
 * form or a session of a published instance still works on one not yet deployed. Step 1 put the
 * new cookie key first, and both failed.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { createMemoryAdapter } from '../../adapters/memory.ts';
import type { SigningJwks } from '../../lib/keys/secrets.ts';
import { Browser, findForm, isPage, signIn } from '../support/browser.ts';
import { MEMBER, STUDENT, buildAuthorizeUrl } from '../support/flows.ts';
import { pkcePair } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

const CLI = fileURLToPath(new URL('../../lib/cli/bin.ts', import.meta.url));
const README = fileURLToPath(new URL('../../README.md', import.meta.url));
interface Secrets { jwks: SigningJwks; cookieKeys: string[] }

let dir: string;
let published: RunningApp;
let notYet: RunningApp;
let publish: Secrets;
let current: Secrets;

beforeAll(async () => {
  const readme = await readFile(README, 'utf8');
  const rotate = /`npx --no-install platform-auth (rotate --cookie-keys [^`]+)`/.exec(readme)![1]!;
  const step1 = /^\(umask 077; jq .* > secrets\.publish\.json\)$/m.exec(readme)![0];
  dir = await mkdtemp(join(tmpdir(), 'rotation-steps-'));
  const run = (script: string) => execFileSync('sh', ['-c', script], { cwd: dir, env: { ...process.env, CLI, NODE: process.execPath }, encoding: 'utf8' });
  run('"$NODE" "$CLI" keys --out secrets.json');
  current = JSON.parse(await readFile(join(dir, 'secrets.json'), 'utf8')) as Secrets;
  run(`"$NODE" "$CLI" ${rotate}`); // writes secrets.next.json
  run(step1);
  publish = JSON.parse(await readFile(join(dir, 'secrets.publish.json'), 'utf8')) as Secrets;

  const adapter = createMemoryAdapter();
  published = await startApp({ auth: { adapter, jwks: publish.jwks, cookieKeys: publish.cookieKeys } });
  notYet = await startApp({ baseUrl: published.baseUrl, auth: { adapter, jwks: current.jwks, cookieKeys: current.cookieKeys } });
});
afterAll(async () => {
  await notYet?.stop();
  await published?.stop();
  await rm(dir, { recursive: true, force: true });
});

it('step 1 of the README rotation publishes the new cookie key without signing with it yet', () => {
  // as for the JWKS: what an instance not yet deployed cannot check must not sign yet
  expect(publish.cookieKeys[0]).toBe(current.cookieKeys[0]);
});

it('during step 1, a sign-in form shown by a published instance signs in on one not yet deployed', async () => {
  const browser = new Browser(published.baseUrl);
  const page = await browser.navigate(buildAuthorizeUrl(published.baseUrl, MEMBER, { scope: 'openid account:read', challenge: pkcePair().challenge, state: 's' }));
  if (!isPage(page)) throw new Error('expected the sign-in page');
  const form = findForm(page.html, '/login');
  const cookie = ['_interaction', '_interaction.sig'].map((n) => `${n}=${browser.cookie(n)}`).join('; ');
  const res = await fetch(`http://127.0.0.1:${notYet.port}${form.action}`, {
    method: 'POST', redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams({ ...form.hidden, email: STUDENT.email, password: STUDENT.password }),
  });
  const title = /<title>([^<]*)/.exec(await res.text())?.[1];
  expect({ status: res.status, title }).toEqual({ status: 303, title: undefined });
});

it('during step 1, a person signed in on a published instance is still signed in on one not yet deployed', async () => {
  const browser = new Browser(published.baseUrl);
  await signIn(browser, buildAuthorizeUrl(published.baseUrl, MEMBER, { scope: 'openid', challenge: pkcePair().challenge, state: 's' }), STUDENT);
  const cookie = ['_session', '_session.sig'].map((n) => `${n}=${browser.cookie(n)}`).join('; ');
  const url = new URL(buildAuthorizeUrl(notYet.baseUrl, MEMBER, { scope: 'openid', challenge: pkcePair().challenge, state: 's' }));
  let jar = cookie;
  let res = await fetch(`http://127.0.0.1:${notYet.port}${url.pathname}${url.search}`, { redirect: 'manual', headers: { cookie: jar } });
  let landed: 'sign-in' | 'signed-in' | undefined;
  for (let i = 0; i < 5 && res.status >= 300 && res.status < 400; i += 1) {
    jar = [jar, ...res.headers.getSetCookie().map((c) => c.split(';')[0]!).filter((c) => !c.endsWith('='))].join('; ');
    const loc = new URL(res.headers.get('location')!, notYet.baseUrl);
    if (loc.origin !== new URL(notYet.baseUrl).origin) { landed = 'signed-in'; break; }
    res = await fetch(`http://127.0.0.1:${notYet.port}${loc.pathname}${loc.search}`, { redirect: 'manual', headers: { cookie: jar } });
  }
  landed ??= /name="password"/.test(await res.text()) ? 'sign-in' : 'signed-in';
  expect(landed).toBe('signed-in');
});
