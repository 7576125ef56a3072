/**
 * Runs the host and a real client against it: OpenID discovery, an authorization-code flow
 * with PKCE through the sign-in and consent pages, the code exchanged by openid-client,
 * UserInfo, the host's MCP tool over HTTP and the host's own protected route. Exits 0 when
 * every step answered as the README says, 1 otherwise.
 *
 * Usage: node build/main.js <secrets.json>   (what `platform-auth keys` or `rotate` printed)
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';

import * as oidc from 'openid-client';
import type { PlatformAuthOptions } from 'platform-auth';
import { SCOPE_NAMES } from 'platform-auth';
import type { RedisAdapterOptions } from 'platform-auth/adapters/redis';
import pkg from 'platform-auth/package.json' with { type: 'json' };

import { signIn } from './browser.js';
import { CLIENT, SITE, STUDENT, startHost } from './host.js';

type Secrets = Pick<Required<PlatformAuthOptions>, 'jwks' | 'cookieKeys'>;

function step(name: string) {
  console.log(`  ok  ${name}`);
}

async function main(secretsFile: string) {
  const secrets = JSON.parse(await readFile(secretsFile, 'utf8')) as Secrets;
  const signingKid = secrets.jwks.keys[0]?.kid;
  assert.ok(signingKid, 'the secrets name a signing key');

  // the other entry points resolve and load (the Redis adapter connects only when called)
  const redis = await import('platform-auth/adapters/redis');
  const redisOptions: RedisAdapterOptions = { url: 'redis://127.0.0.1:6379', keyPrefix: 'dist-host:' };
  assert.equal(typeof redis.createRedisAdapter, 'function');
  assert.equal(redisOptions.keyPrefix, 'dist-host:');
  assert.equal(pkg.name, 'platform-auth');
  assert.ok(SCOPE_NAMES.includes('account:read'));
  step(`platform-auth ${pkg.version}: ".", "./adapters/memory", "./adapters/redis", "./package.json" load`);

  const host = await startHost(secrets);
  try {
    const config = await oidc.discovery(new URL(host.baseUrl), CLIENT.clientId, { token_endpoint_auth_method: 'none' }, oidc.None(), {
      execute: [oidc.allowInsecureRequests],
      timeout: 10,
    });
    assert.equal(config.serverMetadata().issuer, host.baseUrl);
    step(`discovery at ${host.baseUrl}/.well-known/openid-configuration`);

    const jwksUri = config.serverMetadata().jwks_uri;
    assert.ok(jwksUri);
    const published = (await (await fetch(jwksUri)).json() as { keys: { kid: string; d?: string }[] }).keys;
    assert.deepEqual(published.map((k) => k.kid), secrets.jwks.keys.map((k) => k.kid), 'every key is published, in order');
    assert.ok(published.every((k) => k.d === undefined), 'no private part is published');
    step(`JWKS publishes ${published.length} public keys`);

    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const authorizationUrl = oidc.buildAuthorizationUrl(config, {
      redirect_uri: CLIENT.redirectUri,
      scope: 'openid profile email account:read',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
      resource: host.baseUrl,
    });
    const callback = await signIn(authorizationUrl, STUDENT.email, STUDENT.password);
    assert.equal(`${callback.origin}${callback.pathname}`, CLIENT.redirectUri);
    step('signed in and consented through the HTML forms (CSRF token, cookies)');

    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce,
    }, { resource: host.baseUrl });
    assert.ok(tokens.access_token);
    assert.ok(tokens.refresh_token);
    const claims = tokens.claims();
    assert.ok(claims, 'an ID token');
    assert.equal(claims.sub, 'acc-1');
    const header = JSON.parse(Buffer.from(tokens.id_token!.split('.')[0]!, 'base64url').toString()) as { alg: string; kid: string };
    assert.equal(header.alg, 'ES256');
    assert.equal(header.kid, signingKid, 'the first key of the JWKS signs');
    step(`code exchanged with PKCE: access, refresh and ID token (ES256, kid ${signingKid})`);

    const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
    assert.equal(userinfo.email, STUDENT.email);
    assert.equal(userinfo.org_id, SITE);
    step(`UserInfo: ${JSON.stringify(userinfo)}`);

    const mcp = await fetch(new URL('/mcp', host.baseUrl), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokens.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'greet_member', arguments: { greeting: 'Hello', times: 2 } } }),
      signal: AbortSignal.timeout(10_000),
    });
    assert.equal(mcp.status, 200, await mcp.clone().text());
    const answer = await mcp.json() as { result?: { isError?: boolean; structuredContent?: unknown } };
    assert.equal(answer.result?.isError ?? false, false, JSON.stringify(answer));
    assert.deepEqual(answer.result?.structuredContent, { message: `Hello, acc-1 of ${SITE} Hello, acc-1 of ${SITE}` });
    step('MCP tools/call greet_member (zod 4 input schema) answered');

    const me = await fetch(new URL('/host/me', host.baseUrl), { headers: { authorization: `Bearer ${tokens.access_token}` } });
    assert.equal(me.status, 200);
    assert.equal(((await me.json()) as { site: string }).site, SITE);
    const anonymous = await fetch(new URL('/host/me', host.baseUrl));
    assert.equal(anonymous.status, 401);
    assert.match(anonymous.headers.get('www-authenticate') ?? '', /^Bearer /);
    step('host route behind auth.requireBearer(): 200 with the token, 401 without');
  } finally {
    await host.close();
  }
}

const [secretsFile] = process.argv.slice(2);
if (!secretsFile) {
  console.error('usage: node build/main.js <secrets.json>');
  process.exit(2);
}
main(secretsFile).then(
  () => console.log('dist host: every step passed'),
  (err: unknown) => {
    console.error('dist host: FAILED\n', err);
    process.exitCode = 1;
  },
);
