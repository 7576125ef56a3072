/**
 * `options.clients` as oidc-provider builds them: metadata it would refuse at a client's first
 * sign-in (a broken sign-in link for the end user, nothing logged) and properties it would
 * ignore fail `createPlatformAuth` instead, naming the client and the property.
 */
import { ConfigurationError, createPlatformAuth } from '../../lib/index.ts';
import type { PlatformAuthOptions, StaticClient } from '../../lib/index.ts';

const accounts = { authenticate: async () => undefined, findById: async () => undefined };
const quiet = { info() {}, warn() {}, error() {} };
const base: PlatformAuthOptions = { baseUrl: 'http://localhost:3000', accounts, logger: quiet };
const good: StaticClient = { client_id: 'app', token_endpoint_auth_method: 'none', redirect_uris: ['https://a.example/cb'] };

async function rejection(client: Record<string, unknown>): Promise<string> {
  try {
    const auth = await createPlatformAuth({ ...base, clients: [good, client as StaticClient] });
    await auth.close();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigurationError);
    return (err as Error).message;
  }
  throw new Error('expected the client to be refused');
}

describe('metadata oidc-provider refuses fails at start-up', () => {
  it.each([
    [
      'an unknown token_endpoint_auth_method',
      { client_id: 'b', token_endpoint_auth_method: 'foo', redirect_uris: ['https://b.example/cb'] },
      /^options\.clients\[1\]\.token_endpoint_auth_method is refused by oidc-provider: token_endpoint_auth_method must be 'none' or 'client_secret_post'\. Correct the client's metadata/,
    ],
    [
      'redirect_uris as a string',
      { client_id: 'b', token_endpoint_auth_method: 'none', redirect_uris: 'https://b.example/cb' },
      /^options\.clients\[1\]\.redirect_uris is refused by oidc-provider: redirect_uris must be an array/,
    ],
    [
      'client_secret_post without a secret',
      { client_id: 'b', token_endpoint_auth_method: 'client_secret_post', redirect_uris: ['https://b.example/cb'] },
      /^options\.clients\[1\]\.client_secret is missing, and token_endpoint_auth_method "client_secret_post" needs one: set client_secret .*, or token_endpoint_auth_method to "none"/,
    ],
    [
      'no method and no secret (the default method needs one)',
      { client_id: 'b', redirect_uris: ['https://b.example/cb'] },
      /^options\.clients\[1\]\.client_secret is missing, and token_endpoint_auth_method "client_secret_post" \(the default\) needs one/,
    ],
    [
      'a grant type outside the code flow',
      { client_id: 'b', token_endpoint_auth_method: 'none', redirect_uris: ['https://b.example/cb'], grant_types: ['implicit'] },
      /^options\.clients\[1\]\.grant_types is refused by oidc-provider: grant_types can only contain/,
    ],
    [
      'an invalid key set (no property named by the provider)',
      { client_id: 'b', token_endpoint_auth_method: 'none', redirect_uris: ['https://b.example/cb'], jwks: 'keys' },
      /^options\.clients\[1\] is refused by oidc-provider: client JSON Web Key Set is invalid/,
    ],
  ])('%s', async (_name, client, message) => {
    expect(await rejection(client)).toMatch(message);
  });

  it('keeps secrets out of the message', async () => {
    const message = await rejection({ client_id: 'b', client_secret: 'hunter2-hunter2-hunter2', token_endpoint_auth_method: 'foo', redirect_uris: ['https://b.example/cb'] });
    expect(message).not.toContain('hunter2');
  });

  it('starts with clients the provider accepts, member clients included', async () => {
    const auth = await createPlatformAuth({
      ...base,
      clients: [
        good,
        { client_id: 'm', audience: 'member', org_id: 'school-1', client_secret: 's'.repeat(32), redirect_uris: ['https://m.example/cb'] },
      ],
    });
    expect((await auth.provider.Client.find('m'))?.metadata()).toMatchObject({ audience: 'member', org_id: 'school-1' });
    await auth.close();
  });
});

describe('properties the provider would ignore fail at start-up', () => {
  it.each([
    ['audiance', 'member', /^options\.clients\[1\]\.audiance is not client metadata .* so it would be ignored; did you mean "audience"\?$/],
    ['orgId', 'school-1', /^options\.clients\[1\]\.orgId is not client metadata .*; did you mean "org_id"\?$/],
    ['org-id', 'school-1', /^options\.clients\[1\]\.org-id is not client metadata .*; did you mean "org_id"\?$/],
    ['grant_type', ['authorization_code'], /^options\.clients\[1\]\.grant_type is not client metadata .*; did you mean "grant_types"\?$/],
    ['colour', 'blue', /^options\.clients\[1\]\.colour is not client metadata that oidc-provider \(as configured here\) or this library reads, so it would be ignored; remove it/],
    // RP-initiated logout is off, so the provider does not read it
    ['post_logout_redirect_uris', ['https://b.example/'], /^options\.clients\[1\]\.post_logout_redirect_uris is not client metadata/],
  ])('%s', async (key, value, message) => {
    expect(await rejection({ client_id: 'b', token_endpoint_auth_method: 'none', redirect_uris: ['https://b.example/cb'], [key]: value })).toMatch(message);
  });
});

describe('an unknown property is named even when oidc-provider refuses the client too', () => {
  const ignored = (key: string) => `options.clients[1].${key} is not client metadata that oidc-provider (as configured here) or this library reads, so it would be ignored`;
  it.each([
    [
      'redirect_uri for redirect_uris (the provider: redirect_uris is mandatory)',
      { client_id: 'b', token_endpoint_auth_method: 'none', redirect_uri: 'https://b.example/cb' },
      `${ignored('redirect_uri')}, and oidc-provider refuses the client as it stands (redirect_uris is mandatory property); did you mean "redirect_uris"?`,
    ],
    [
      'the likely misspelling before another unknown property',
      { client_id: 'b', token_endpoint_auth_method: 'none', colour: 'blue', redirect_uri: ['https://b.example/cb'] },
      `${ignored('redirect_uri')}, and oidc-provider refuses the client as it stands (redirect_uris is mandatory property); did you mean "redirect_uris"?`,
    ],
    [
      'a misspelt token_endpoint_auth_method (the provider: a secret is missing)',
      { client_id: 'b', token_endpoint_auth_methd: 'none', redirect_uris: ['https://b.example/cb'] },
      `${ignored('token_endpoint_auth_methd')}, and oidc-provider refuses the client as it stands (client_secret is mandatory property); did you mean "token_endpoint_auth_method"?`,
    ],
    [
      'a property like no other',
      { client_id: 'b', token_endpoint_auth_method: 'none', colour: 'blue', redirect_uris: 'https://b.example/cb' },
      `${ignored('colour')}, and oidc-provider refuses the client as it stands (redirect_uris must be an array); remove it (RFC 7591 §2 and OpenID Connect Dynamic Client Registration §2 define the client metadata)`,
    ],
  ])('%s', async (_name, client, message) => {
    expect(await rejection(client)).toBe(message);
  });

  it('not a property the provider reads that has no default', async () => {
    // client_name and logo_uri are read (without a default): the refusal is the provider's alone
    expect(await rejection({ client_id: 'b', token_endpoint_auth_method: 'none', client_name: 'B', logo_uri: 'https://b.example/logo.png' }))
      .toMatch(/^options\.clients\[1\]\.redirect_uris is refused by oidc-provider: redirect_uris is mandatory property\./);
  });
});
