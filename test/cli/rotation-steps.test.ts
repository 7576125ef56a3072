/**
 * The README's key rotation, its commands read from the README and run as written (the CLI's
 * rotate with --publish, step 3's jq). During step 1 some instances run secrets.publish.json
 * while others still run the current secrets, on the same storage and baseUrl: what an
 * instance not yet deployed cannot check must not be signed yet, so a sign-in form or a
 * session of a published instance still works on one not yet deployed. Step 1 once put the new
 * cookie key first, and both failed; then its jq moved the first cookie key last even when the
 * run had not rotated them (signing with an older key, or writing `"cookieKeys": null`).
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
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

/**
 * The README's commands: `publish(rotate)` runs the rotation block up to step 2 (its rotate
 * line, or the one given, and whatever step 1 runs), `retire` step 3.
 */
const steps = { rotate: '', rotateCookieKeys: '', publish: (rotate: string) => rotate, retire: '' };
const dirs: string[] = [];

/** a new directory, and a shell there in which `platform-auth` is this checkout's CLI */
async function workspace() {
  const dir = await mkdtemp(join(tmpdir(), 'rotation-steps-'));
  dirs.push(dir);
  const run = (script: string) => execFileSync('sh', ['-e', '-c', script], { cwd: dir, env: { ...process.env, CLI, NODE: process.execPath }, encoding: 'utf8' });
  const read = async (name: string) => JSON.parse(await readFile(join(dir, name), 'utf8')) as Secrets;
  return { dir, run, read };
}

let published: RunningApp;
let notYet: RunningApp;
let publish: Secrets;
let current: Secrets;

beforeAll(async () => {
  const readme = await readFile(README, 'utf8');
  const block = /\*\*Rotating the ID-token signing key\.\*\*[^]*?```sh\n([^]*?)```/.exec(readme)![1]!;
  const [rotateLine, ...rest] = block.slice(0, block.indexOf('# 2.')).split('\n');
  const cli = (line: string) => line.replace(/^npx --no-install platform-auth /, '"$NODE" "$CLI" ');
  steps.rotate = cli(rotateLine!);
  steps.rotateCookieKeys = cli(/`(npx --no-install platform-auth rotate --cookie-keys [^`]+)`/.exec(readme)![1]!);
  steps.publish = (rotate) => [rotate, ...rest].join('\n');
  steps.retire = /^# 3\..*\n(.*)$/m.exec(block)![1]!;
  const { run, read } = await workspace();
  run('"$NODE" "$CLI" keys --out secrets.json');
  current = await read('secrets.json');
  run(steps.publish(steps.rotateCookieKeys)); // writes secrets.next.json and secrets.publish.json
  publish = await read('secrets.publish.json');

  const adapter = createMemoryAdapter();
  published = await startApp({ auth: { adapter, jwks: publish.jwks, cookieKeys: publish.cookieKeys } });
  notYet = await startApp({ baseUrl: published.baseUrl, auth: { adapter, jwks: current.jwks, cookieKeys: current.cookieKeys } });
});
afterAll(async () => {
  await notYet?.stop();
  await published?.stop();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

it('step 1 of the README rotation publishes the new cookie key without signing with it yet', () => {
  // as for the JWKS: what an instance not yet deployed cannot check must not sign yet
  expect(publish.cookieKeys[0]).toBe(current.cookieKeys[0]);
  expect(publish.cookieKeys).toHaveLength(2);
  expect(publish.jwks.keys.map((k) => k.kid)).toEqual([current.jwks.keys[0]!.kid, expect.any(String)]);
});

it('a later rotation of the signing key alone leaves the cookie keys in their order at step 1', async () => {
  // the reviewer's reproduction: a cookie rotation run through step 3, then a plain rotation
  const { run, read } = await workspace();
  run('"$NODE" "$CLI" keys --out secrets.json');
  run(steps.publish(steps.rotateCookieKeys));
  run(`${steps.retire}\nrm -f secrets.next.json secrets.publish.json`);
  const before = await read('secrets.json');
  expect(before.cookieKeys).toHaveLength(2);

  run(steps.publish(steps.rotate));
  const [next, step1] = [await read('secrets.next.json'), await read('secrets.publish.json')];
  // cookies and forms are still signed by the newest cookie key, never the older one
  expect(step1.cookieKeys).toEqual(before.cookieKeys);
  expect(next.cookieKeys).toEqual(before.cookieKeys);
  expect(step1.jwks.keys).toEqual([before.jwks.keys[0], next.jwks.keys[0]]);
});

it('a bare JWKS rotated through step 1 gets no "cookieKeys" member (production refuses null)', async () => {
  const { run, read, dir } = await workspace();
  run('"$NODE" "$CLI" keys --out keys.json');
  const { jwks } = await read('keys.json');
  await writeFile(join(dir, 'secrets.json'), JSON.stringify(jwks), { mode: 0o600 });
  run(steps.publish(steps.rotate));
  const step1 = await read('secrets.publish.json');
  expect(Object.keys(step1)).toEqual(['jwks']);
  expect(step1.jwks.keys.map((k) => k.kid)).toEqual([jwks.keys[0]!.kid, (await read('secrets.next.json')).jwks.keys[0]!.kid]);
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
