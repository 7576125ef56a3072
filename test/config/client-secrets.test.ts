/**
 * Static clients' secrets in production: wrong client secrets are not throttled at the token,
 * introspection and revocation endpoints, so production refuses a `client_secret` that is
 * short, a shorter string repeated, or of too few distinct characters, naming the client and
 * never quoting the secret. Random secrets and public clients pass; development accepts
 * anything, as before.
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import { randomBytes } from 'node:crypto';

import { exportJWK, generateKeyPair } from 'jose';

import { ConfigurationError } from '../../lib/index.ts';
import type { PlatformAuthOptions, StaticClient } from '../../lib/index.ts';
import { validateOptions } from '../../lib/config/validate.ts';
import { createCookieKey } from '../../lib/keys/secrets.ts';

const accounts = { authenticate: async () => undefined, findById: async () => undefined };

let jwks: PlatformAuthOptions['jwks'];
beforeAll(async () => {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  jwks = { keys: [{ ...(await exportJWK(privateKey)), kid: 'k1' }] };
});

const operator = (secret: string | undefined): StaticClient => ({
  client_id: 'lms', audience: 'operator', redirect_uris: ['https://lms.example/cb'],
  ...(secret === undefined ? { token_endpoint_auth_method: 'none' } : { client_secret: secret, token_endpoint_auth_method: 'client_secret_post' }),
});

function options(clients: StaticClient[], production: boolean): PlatformAuthOptions {
  return { baseUrl: 'https://learn.example.com', accounts, production, jwks, cookieKeys: [createCookieKey()], clients, adapter: createMemoryAdapter() };
}

async function refusal(secret: string): Promise<string> {
  const public_ = operator(undefined);
  try {
    await validateOptions(options([{ ...public_, client_id: 'spa' }, operator(secret)], true));
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigurationError);
    const { message } = err as Error;
    expect(message).not.toContain(secret);
    expect(message).toMatch(/^options\.clients\[1\]\.client_secret /);
    expect(message).toContain('randomBytes(32)');
    return message;
  }
  throw new Error('accepted');
}

describe('production', () => {
  it('refuses a client_secret shorter than 32 characters', async () => {
    expect(await refusal('hunter2')).toMatch(/client_secret is shorter than 32 characters; production refuses it, since wrong client secrets are not throttled/);
    expect(await refusal('x7Gq-2mPz9LkWv4RtY8bNc3Jh5Fd0Sa')).toMatch(/shorter than 32/); // 31 random characters
  });

  it('refuses a long client_secret that is a word repeated or of few distinct characters', async () => {
    expect(await refusal('changeme'.repeat(4))).toMatch(/client_secret is a shorter string repeated, not a random secret/);
    expect(await refusal(`${'ab'.repeat(20)}c`)).toMatch(/client_secret has only 3 distinct characters/);
  });

  it('accepts random secrets and clients without one', async () => {
    for (let i = 0; i < 50; i += 1) {
      const random = [operator(randomBytes(32).toString('base64url')), { ...operator(randomBytes(16).toString('hex')), client_id: `hex${i}` }];
      await expect(validateOptions(options(random, true))).resolves.toBeDefined();
    }
    await expect(validateOptions(options([operator(undefined)], true))).resolves.toBeDefined();
  });
});

it('development accepts a short secret, as before', async () => {
  const resolved = await validateOptions(options([operator('hunter2')], false));
  expect(resolved.clients[0]!.client_secret).toBe('hunter2');
});
