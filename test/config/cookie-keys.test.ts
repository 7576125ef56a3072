/**
 * Cookie keys in production: at least 32 characters is not enough when the 32 characters are
 * a word repeated. Production also refuses a key listed twice, a shorter string repeated and a
 * key of fewer than 7 distinct characters, without quoting it and saying how to get a real
 * one; it never refuses what `platform-auth keys` or createCookieKey() generates. Development
 * accepts all of them as before.
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import { randomBytes } from 'node:crypto';

import { exportJWK, generateKeyPair } from 'jose';

import { ConfigurationError, createPlatformAuth } from '../../lib/index.ts';
import type { PlatformAuthOptions } from '../../lib/index.ts';
import { validateOptions } from '../../lib/config/validate.ts';
import { main } from '../../lib/cli/main.ts';
import type { CliIo } from '../../lib/cli/main.ts';
import { createCookieKey, rotateCookieKeys } from '../../lib/keys/secrets.ts';

const accounts = { authenticate: async () => undefined, findById: async () => undefined };
const quiet = { info() {}, warn() {}, error() {} };

let jwks: PlatformAuthOptions['jwks'];
beforeAll(async () => {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  jwks = { keys: [{ ...(await exportJWK(privateKey)), kid: 'k1' }] };
});

function options(cookieKeys: string[], production: boolean, logger: PlatformAuthOptions['logger'] = quiet): PlatformAuthOptions {
  return { baseUrl: 'https://learn.example.com', accounts, production, jwks, cookieKeys, logger, adapter: createMemoryAdapter() };
}

async function refusal(cookieKeys: string[]): Promise<string> {
  try {
    await validateOptions(options(cookieKeys, true));
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigurationError);
    const { message } = err as Error;
    for (const key of cookieKeys) expect(message).not.toContain(key);
    expect(message).toContain('`npx --no-install platform-auth keys`');
    return message;
  }
  throw new Error('expected the cookie keys to be refused in production');
}

const good = createCookieKey();
/** 32 characters, 6 distinct, no shorter string repeated */
const sixSymbols = 'abcdefabcdefffedcbaaaccbbddeefbb';
const weak: [string, string][] = [
  ['"changeme" × 4', 'changeme'.repeat(4)],
  ['"a" × 32', 'a'.repeat(32)],
  ['a 26-character passphrase twice', 'correct horse battery stap'.repeat(2)],
  ['a 12-character word repeated and cut off', 'Tr0ub4dor&3x'.repeat(3).slice(0, 33)],
  ['6 distinct characters', sixSymbols],
  ['"a" × 31 then "b"', `${'a'.repeat(31)}b`],
];

describe('production refuses guessable cookie keys', () => {
  it('a key listed twice, naming both entries', async () => {
    const message = await refusal([good, createCookieKey(), good]);
    expect(message).toMatch(/^options\.cookieKeys\[2\] is the same secret as options\.cookieKeys\[0\]; in production each cookie key must be a different secret: remove the duplicate/);
  });

  it('a shorter string repeated, also behind a good key (an old key still listed)', async () => {
    for (const key of ['changeme'.repeat(4), 'correct horse battery stap'.repeat(2), 'Tr0ub4dor&3x'.repeat(3).slice(0, 33)]) {
      expect(await refusal([key])).toMatch(/^options\.cookieKeys\[0\] is a shorter string repeated, not a random secret; production refuses it: replace it with a long random secret, e.g\. the "cookieKeys" entry that `npx --no-install platform-auth keys` prints/);
      expect(await refusal([good, key])).toMatch(/^options\.cookieKeys\[1\] is a shorter string repeated/);
    }
    expect(await refusal(['a'.repeat(32)])).toMatch(/^options\.cookieKeys\[0\] is a shorter string repeated/);
  });

  it('a key of fewer than 7 distinct characters', async () => {
    expect(await refusal([sixSymbols])).toMatch(/^options\.cookieKeys\[0\] has only 6 distinct characters \(production needs at least 7\), so it is not a random secret; production refuses it: replace it/);
    expect(await refusal([good, `${'a'.repeat(31)}b`])).toMatch(/^options\.cookieKeys\[1\] has only 2 distinct characters/);
  });

  it('through createPlatformAuth too', async () => {
    await expect(createPlatformAuth(options(['changeme'.repeat(4)], true))).rejects.toThrow(ConfigurationError);
  });
});

describe('outside production the same keys pass as before', () => {
  it.each(weak)('%s: refused in production, accepted without it', async (_name, key) => {
    await refusal([key]);
    const warnings: string[] = [];
    const resolved = await validateOptions(options([key, key], false, { ...quiet, warn: (m) => warnings.push(m) }));
    expect(resolved.cookieKeys).toEqual([key, key]);
    expect(warnings).toEqual([]);
  });
});

describe('production never refuses generated keys', () => {
  const N = 2_000;

  async function acceptsAll(keys: string[]) {
    expect(new Set(keys).size).toBe(N);
    const resolved = await validateOptions(options(keys, true));
    expect(resolved.cookieKeys).toHaveLength(N);
    // the check did look at every key: the same list with its last key repeated is refused
    expect(await refusal([...keys, keys[N - 1]!])).toMatch(new RegExp(`^options\\.cookieKeys\\[${N}\\] is the same secret as options\\.cookieKeys\\[${N - 1}\\]`));
  }

  it(`${N} keys of createCookieKey() and of rotateCookieKeys()`, async () => {
    await acceptsAll(Array.from({ length: N }, createCookieKey));
    await acceptsAll(Array.from({ length: N }, () => rotateCookieKeys([good])[0]!));
  });

  it(`${N} cookie keys printed by platform-auth keys`, async () => {
    const keys: string[] = [];
    for (let i = 0; i < N; i += 1) {
      let stdout = '';
      const io: CliIo = {
        stdout: { write: (text, done) => { stdout += text; done(); } },
        stderr: { write: (text) => { throw new Error(`stderr: ${text}`); } },
        readStdin: async () => undefined,
        readFile: async () => { throw new Error('no files'); },
        identify: async () => undefined,
        identifyStdout: () => undefined,
        writeSecretFile: async () => { throw new Error('no files'); },
        removeFile: async () => { throw new Error('no files'); },
      };
      expect(await main(['keys'], io)).toBe(0);
      keys.push(...(JSON.parse(stdout) as { cookieKeys: string[] }).cookieKeys);
    }
    await acceptsAll(keys);
  });

  it(`${N} random hex keys of the minimum length (the threshold's worst case: P(refused) ≈ 1.8e-10 each)`, async () => {
    await acceptsAll(Array.from({ length: N }, () => randomBytes(16).toString('hex')));
  });
});
