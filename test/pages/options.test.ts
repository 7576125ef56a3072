/**
 * `options.signIn` and `options.pages` are checked at start-up, with messages that say what to
 * change (the brand, languages and templates are in ./branding.test.ts).
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import { createPlatformAuth } from '../../lib/index.ts';
import type { AccountStore } from '../../lib/index.ts';
import { resolveSignInOptions } from '../../lib/pages/options.ts';

const BASE = 'https://learn.example';

it('takes loginUrl as a path or a URL on baseUrl, and makes it absolute', () => {
  expect(resolveSignInOptions({ loginUrl: '/login?next=1' }, BASE).loginUrl).toBe('https://learn.example/login?next=1');
  expect(resolveSignInOptions({ loginUrl: 'https://learn.example/account/login' }, BASE).loginUrl).toBe('https://learn.example/account/login');
  expect(resolveSignInOptions(undefined, BASE)).toEqual({ session: undefined, loginUrl: undefined, acrValues: [] });
  // baseUrl's origin however it is spelt: case, the default port
  expect(resolveSignInOptions({ loginUrl: 'https://Learn.Example:443/login' }, BASE).loginUrl).toBe('https://learn.example/login');
});

it.each([
  ['https://other.example/login', /options\.signIn\.loginUrl must be a path such as "\/login" or a URL on https:\/\/learn\.example/],
  ['//other.example/login', /options\.signIn\.loginUrl must be/],
  ['login', /options\.signIn\.loginUrl must be/],
  ['https://learn.example.evil/login', /options\.signIn\.loginUrl must be/],
  ['/login#frag', /without a fragment/],
  [42, /options\.signIn\.loginUrl must be/],
  ['javascript:alert(1)', /options\.signIn\.loginUrl must be/],
  ['/\\other.example/login', /options\.signIn\.loginUrl must be/],
  ['https://learn.example:8443/login', /options\.signIn\.loginUrl must be/],
])('refuses loginUrl %j', (loginUrl, message) => {
  expect(() => resolveSignInOptions({ loginUrl }, BASE)).toThrow(message);
});

it('refuses a session that is not a function, and unknown keys', () => {
  expect(() => resolveSignInOptions({ session: 'cookie' }, BASE)).toThrow(/options\.signIn\.session must be/);
  expect(() => resolveSignInOptions({ loginURL: '/login' }, BASE)).toThrow(/loginURL/);
  expect(() => resolveSignInOptions('yes', BASE)).toThrow(/options\.signIn must be/);
});

it('is checked by createPlatformAuth', async () => {
  const accounts: AccountStore = { authenticate: async () => undefined, findById: async () => undefined };
  await expect(createPlatformAuth({ baseUrl: BASE, accounts, adapter: createMemoryAdapter(), signIn: { loginUrl: 'https://elsewhere.example/' }, logger: { info() {}, warn() {}, error() {} } }))
    .rejects.toThrow(/options\.signIn\.loginUrl/);
  await expect(createPlatformAuth({ baseUrl: BASE, accounts, adapter: createMemoryAdapter(), pages: { brand: { accentColor: 'blue' } }, logger: { info() {}, warn() {}, error() {} } }))
    .rejects.toThrow(/options\.pages\.brand\.accentColor/);
});

it('takes acrValues as a list of context classes, each once, and refuses anything else with what to pass', () => {
  expect(resolveSignInOptions({ acrValues: ['urn:a', 'urn:b', 'urn:a'] }, BASE).acrValues).toEqual(['urn:a', 'urn:b']);
  expect(() => resolveSignInOptions({ acrValues: 'urn:a' }, BASE)).toThrow(/options\.signIn\.acrValues must be an array of non-empty strings/);
  expect(() => resolveSignInOptions({ acrValues: [''] }, BASE)).toThrow(/options\.signIn\.acrValues must be an array of non-empty strings/);
});
