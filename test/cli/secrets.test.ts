/**
 * The secrets CLI (lib/cli/main.ts), run as the real program: `keys` prints what production
 * options accept, `rotate` puts a new key first so it signs while ID tokens of the old key
 * still verify, bad input exits 2 with a message and no secret on stderr.
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { calculateJwkThumbprint, createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';

import { createPlatformAuth } from '../../lib/index.ts';
import type { PlatformAuthOptions } from '../../lib/index.ts';
import { main } from '../../lib/cli/main.ts';
import type { CliIo } from '../../lib/cli/main.ts';
import { checkCookieKeys, createSigningKey, rotateCookieKeys, rotateJwks } from '../../lib/keys/secrets.ts';
import type { SigningJwk, SigningJwks } from '../../lib/keys/secrets.ts';
import { MEMBER, STUDENT, obtainTokens } from '../support/flows.ts';
import { startApp } from '../support/start-app.ts';

const CLI = fileURLToPath(new URL('../../lib/cli/bin.ts', import.meta.url));

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** runs `node lib/cli/bin.ts ...args` (Node 22 strips the types), optionally with stdin */
function runCli(args: string[], stdin?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin ?? '');
  });
}

/** main() in this process, with files from `files` and the given stdin */
async function runMain(args: string[], { stdin, files = {}, nodeVersion }: { stdin?: string; files?: Record<string, string>; nodeVersion?: string } = {}) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (text, done) => { stdout += text; done(); } },
    stderr: { write: (text) => { stderr += text; } },
    readStdin: async () => stdin,
    readFile: async (path) => {
      if (path in files) return files[path]!;
      throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
    },
    identify: async () => undefined,
    identifyStdout: () => undefined,
    writeSecretFile: async () => { throw new Error('runMain writes no files'); },
    removeFile: async () => { throw new Error('runMain writes no files'); },
  };
  const code = await main(args, io, nodeVersion);
  return { code, stdout, stderr };
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'platform-auth-cli-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function file(name: string, content: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content, { mode: 0o600 });
  return path;
}

const accounts = { authenticate: async () => undefined, findById: async () => undefined };

describe('platform-auth keys', () => {
  let result: CliResult;
  let output: { jwks: SigningJwks; cookieKeys: string[] };
  beforeAll(async () => {
    result = await runCli(['keys']);
    output = JSON.parse(result.stdout);
  });

  it('prints one ES256 private JWK whose kid is its RFC 7638 thumbprint, and a cookie key', async () => {
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(Object.keys(output).sort()).toEqual(['cookieKeys', 'jwks']);
    expect(output.jwks.keys).toHaveLength(1);
    const [jwk] = output.jwks.keys;
    expect(jwk).toMatchObject({
      kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig',
      x: expect.any(String), y: expect.any(String), d: expect.any(String), kid: expect.any(String),
    });
    expect(jwk!.kid).toBe(await calculateJwkThumbprint(jwk!));
    expect(output.cookieKeys).toHaveLength(1);
    expect(output.cookieKeys[0]!.length).toBeGreaterThanOrEqual(32);
  });

  it('is accepted by createPlatformAuth in production, which refuses generated secrets', async () => {
    const warnings: string[] = [];
    const auth = await createPlatformAuth({
      baseUrl: 'https://learn.example.com', accounts, production: true, adapter: createMemoryAdapter(),
      ...(output as Pick<PlatformAuthOptions, 'jwks' | 'cookieKeys'>),
      logger: { info() {}, warn: (m) => warnings.push(m), error: (m) => warnings.push(m) },
    });
    try {
      expect(auth.options.generated).toEqual([]);
      expect(warnings).toEqual([]);
      expect(auth.options.jwks.keys[0]!.kid).toBe(output.jwks.keys[0]!.kid);
    } finally {
      await auth.close();
    }
  });

  it('prints different secrets every time', async () => {
    const again = JSON.parse((await runCli(['keys'])).stdout);
    expect(again.jwks.keys[0].kid).not.toBe(output.jwks.keys[0]!.kid);
    expect(again.cookieKeys[0]).not.toBe(output.cookieKeys[0]);
  });
});

describe('platform-auth rotate: ID tokens of the old key keep verifying', () => {
  let jwksA: SigningJwks;
  let kidA: string;
  let oldToken: { idToken: string; issuer: string };

  beforeAll(async () => {
    jwksA = JSON.parse((await runCli(['keys'])).stdout).jwks;
    kidA = jwksA.keys[0]!.kid;
    const appA = await startApp({ auth: { jwks: jwksA } });
    try {
      const tokens = await obtainTokens(appA.baseUrl, MEMBER, { scope: 'openid profile' }, STUDENT);
      oldToken = { idToken: tokens.id_token!, issuer: appA.baseUrl };
    } finally {
      await appA.stop();
    }
  });

  it('signed the first ID token with the only key of A', () => {
    expect(decodeProtectedHeader(oldToken.idToken)).toMatchObject({ alg: 'ES256', kid: kidA });
  });

  it('puts a new key first and A after it; the new key signs, both verify', async () => {
    const rotated = await runCli(['rotate', await file('a.json', JSON.stringify(jwksA))]);
    expect(rotated.code).toBe(0);
    expect(rotated.stderr).toBe('');
    const jwksB: SigningJwks = JSON.parse(rotated.stdout).jwks;
    expect(jwksB.keys).toHaveLength(2);
    const [added, kept] = jwksB.keys;
    expect(added!.kid).not.toBe(kidA);
    expect(added!.kid).toBe(await calculateJwkThumbprint(added!));
    expect(kept).toEqual(jwksA.keys[0]);

    const appB = await startApp({ auth: { jwks: jwksB } });
    try {
      const published = await (await fetch(`${appB.baseUrl}/api/oauth/jwks`)).json() as { keys: { kid: string; d?: string }[] };
      expect(published.keys.map((k) => k.kid)).toEqual([added!.kid, kidA]);
      expect(published.keys.every((k) => k.d === undefined)).toBe(true);
      const keySet = createRemoteJWKSet(new URL(`${appB.baseUrl}/api/oauth/jwks`));

      // a relying party that fetches the new JWKS still accepts the token A signed
      const old = await jwtVerify(oldToken.idToken, keySet, { issuer: oldToken.issuer, audience: MEMBER.clientId, algorithms: ['ES256'] });
      expect(old.protectedHeader.kid).toBe(kidA);
      expect(old.payload.sub).toBe('acc-student');

      const fresh = await obtainTokens(appB.baseUrl, MEMBER, { scope: 'openid profile' }, STUDENT);
      expect(decodeProtectedHeader(fresh.id_token!)).toMatchObject({ alg: 'ES256', kid: added!.kid });
      const verified = await jwtVerify(fresh.id_token!, keySet, { issuer: appB.baseUrl, audience: MEMBER.clientId, algorithms: ['ES256'] });
      expect(verified.payload.sub).toBe('acc-student');
    } finally {
      await appB.stop();
    }
  });

  it('reads stdin and the output of keys/rotate, and --keep bounds the old keys', async () => {
    const c = await createSigningKey();
    const input = JSON.stringify({ jwks: { keys: [c, ...jwksA.keys] } });
    const kept1 = await runCli(['rotate', '--keep', '1'], input);
    expect(kept1.code).toBe(0);
    expect(JSON.parse(kept1.stdout).jwks.keys.slice(1).map((k: SigningJwk) => k.kid)).toEqual([c.kid]);
    const kept0 = await runCli(['rotate', '--keep=0', '-'], input);
    expect(JSON.parse(kept0.stdout).jwks.keys).toHaveLength(1);
  });
});

describe('cookie keys', () => {
  it('rotate --cookie-keys puts a new cookie key first; without it cookieKeys pass through', async () => {
    const secrets = JSON.parse((await runCli(['keys'])).stdout) as { jwks: SigningJwks; cookieKeys: string[] };
    const path = await file('secrets.json', JSON.stringify(secrets));

    const same = JSON.parse((await runCli(['rotate', path])).stdout);
    expect(same.cookieKeys).toEqual(secrets.cookieKeys);

    const rotated = await runCli(['rotate', path, '--cookie-keys', path]);
    expect(rotated.code).toBe(0);
    const next = JSON.parse(rotated.stdout) as { jwks: SigningJwks; cookieKeys: string[] };
    expect(next.cookieKeys).toHaveLength(2);
    expect(next.cookieKeys[1]).toBe(secrets.cookieKeys[0]);
    expect(next.cookieKeys[0]!.length).toBeGreaterThanOrEqual(32);
    expect(next.jwks.keys[1]).toEqual(secrets.jwks.keys[0]);

    // and the next secrets start a production instance
    const auth = await createPlatformAuth({ baseUrl: 'https://learn.example.com', accounts, production: true, adapter: createMemoryAdapter(), ...next, logger: { info() {}, warn() {}, error() {} } });
    await auth.close();
  });

  it('rotateCookieKeys and rotateJwks keep at most `keep` old entries, newest first', async () => {
    const old = ['a'.repeat(32), 'b'.repeat(32), 'c'.repeat(32)];
    expect(rotateCookieKeys(old, { keep: 1 }, 'n'.repeat(32))).toEqual(['n'.repeat(32), 'a'.repeat(32)]);
    expect(rotateCookieKeys(old, {}, 'n'.repeat(32))).toHaveLength(4);
    const [k1, k2, k3] = await Promise.all([createSigningKey(), createSigningKey(), createSigningKey()]);
    const next = await rotateJwks({ keys: [k1, k2] }, { keep: 1 }, k3);
    expect(next.keys.map((k) => k.kid)).toEqual([k3!.kid, k1!.kid]);
  });
});

describe('bad input', () => {
  let valid: SigningJwk;
  beforeAll(async () => {
    valid = await createSigningKey();
  });

  function expectRefusal(result: { code: number | null; stdout: string; stderr: string }, message: RegExp) {
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^platform-auth: /);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(result.stderr).not.toContain(valid.d); // never a secret
  }

  it('refuses a file that is not JSON without quoting it', async () => {
    const path = await file('broken.json', `{"keys":[{"d":"${valid.d}"`);
    expectRefusal(await runCli(['rotate', path]), /broken\.json is not JSON; expected a JWKS/);
  });

  it('refuses a JWKS without private EC P-256 keys, and a key without kid (real CLI)', async () => {
    const { d: _d, ...publicKey } = valid;
    expectRefusal(await runCli(['rotate'], JSON.stringify({ keys: [publicKey] })), /stdin\.keys\[0\] is a public key \(no "d"\)/);
    const { kid: _kid, ...noKid } = valid;
    expectRefusal(await runCli(['rotate'], JSON.stringify({ keys: [noKid] })), /keys\[0\] has no "kid"/);
  });

  it.each([
    [{ keys: [] }, /its "keys" array is empty/],
    [{ nope: 1 }, /must be a JWKS \{ "keys": \[\.\.\.\] \}/],
    [[1, 2], /must be a JWKS .*; got an array/],
    [{ keys: [{ kty: 'RSA', n: 'x', e: 'AQAB', d: 'y', kid: 'r' }] }, /keys\[0\] must be a private EC P-256 key .*got kty "RSA"/],
    [{ keys: [{ kty: 'EC', crv: 'P-384', x: 'x', y: 'y', d: 'd', kid: 'p' }] }, /got kty "EC", crv "P-384"/],
    [{ keys: [{ kty: 'EC', crv: 'P-256', x: 'AAAA', y: 'AAAA', d: 'AAAA', kid: 'bad' }] }, /keys\[0\] is not a valid P-256 private key/],
    [{ jwks: { keys: [{ kty: 'EC', crv: 'P-256', alg: 'RS256', x: 'x', y: 'y', d: 'd', kid: 'a' }] } }, /in\.json\.jwks\.keys\[0\]\.alg must be "ES256"/],
    [{ jwks: { keys: [{ kty: 'EC', crv: 'P-256' }] }, cookieKeys: ['short'] }, /is a public key/],
  ])('refuses %j', async (input, message) => {
    expectRefusal(await runMain(['rotate', 'in.json'], { files: { 'in.json': JSON.stringify(input) } }), message);
  });

  it('refuses duplicate kids, a key whose x/y is not its d, and short cookie keys', async () => {
    const other = await createSigningKey();
    const files = {
      'dup.json': JSON.stringify({ keys: [valid, { ...other, kid: valid.kid }] }),
      'mixed.json': JSON.stringify({ keys: [{ ...valid, x: other.x, y: other.y }] }),
      'cookies.json': JSON.stringify(['short']),
      'ok.json': JSON.stringify({ keys: [valid] }),
    };
    expectRefusal(await runMain(['rotate', 'dup.json'], { files }), /keys\[1\]\.kid .* is used by an earlier key/);
    expectRefusal(await runMain(['rotate', 'mixed.json'], { files }), /"x" and "y" are not the public key of its "d"/);
    // characters base64url decoding would skip: the key would pass on as typed, junk and all
    const junk = { 'junk.json': JSON.stringify({ keys: [{ ...valid, d: `${valid.d}!!` }] }) };
    expectRefusal(await runMain(['rotate', 'junk.json'], { files: junk }), /keys\[0\] is not a valid P-256 private key \(its "d" is malformed\)/);
    expectRefusal(await runMain(['rotate', 'ok.json', '--cookie-keys', 'cookies.json'], { files }), /cookies\.json must be a non-empty array of secrets of at least 32 characters.*cookies\.json\[0\] is too short/);
  });

  it('warns, without quoting it, of a kept cookie key production would refuse, and says how to drop it', async () => {
    const weak = 'changeme'.repeat(4);
    const files = { 's.json': JSON.stringify({ jwks: { keys: [valid] }, cookieKeys: [weak] }) };
    const kept = await runMain(['rotate', 's.json', '--cookie-keys', 's.json'], { files });
    expect(kept.code).toBe(0);
    expect((JSON.parse(kept.stdout) as { cookieKeys: string[] }).cookieKeys).toEqual([expect.any(String), weak]);
    expect(kept.stderr).toMatch(/^platform-auth: warning: production will refuse these cookie keys: cookieKeys\[1\] is a shorter string repeated, not a random secret; .* To drop the old keys after the new one, rotate with --keep-cookie-keys <n> \(n: how many old keys to keep; sign-in sessions signed by a dropped key end\)\n$/);
    expect(kept.stderr).not.toContain(weak);
    // passed through unchanged (no --cookie-keys): the warning says the command that works
    const passed = await runMain(['rotate', 's.json'], { files });
    expect(passed.stderr).toMatch(/production will refuse these cookie keys: cookieKeys\[0\].* rotate with --cookie-keys <file> --keep-cookie-keys <n> /);
    const advised = await runMain(['rotate', 's.json', '--cookie-keys', 's.json', '--keep-cookie-keys', '0'], { files });
    expect(advised.code).toBe(0);
    // dropped: nothing to say
    const dropped = await runMain(['rotate', 's.json', '--cookie-keys', 's.json', '--keep-cookie-keys', '0'], { files });
    expect({ code: dropped.code, stderr: dropped.stderr }).toEqual({ code: 0, stderr: '' });
    expect((JSON.parse(dropped.stdout) as { cookieKeys: string[] }).cookieKeys).toHaveLength(1);
  });

  it('never quotes a cookie key given as a string instead of an array, through the CLI or the options check', async () => {
    const key = 'hunter2-hunter2';
    const files = { 'c.json': JSON.stringify(key), 'ok.json': JSON.stringify({ keys: [valid] }) };
    const result = await runMain(['rotate', 'ok.json', '--cookie-keys', 'c.json'], { files });
    expectRefusal(result, /c\.json must be a non-empty array of secrets .*; got a string/);
    expect(result.stderr).not.toContain(key);
    expect(() => checkCookieKeys(key, 'options.cookieKeys')).toThrow(/options\.cookieKeys must be .*; got a string$/);
    expect(() => checkCookieKeys(key, 'options.cookieKeys')).not.toThrow(new RegExp(key));
  });

  it('refuses bad arguments and missing input', async () => {
    expectRefusal(await runMain([]), /a command is needed/);
    expectRefusal(await runMain(['rotat']), /unknown command "rotat"/);
    expectRefusal(await runMain(['keys', '--keep', '1']), /--keep is an option of rotate/);
    expectRefusal(await runMain(['rotate', '--keep=-1', 'x']), /--keep must be a whole number/);
    expectRefusal(await runMain(['rotate', '--bogus']), /Unknown option '--bogus'/);
    expectRefusal(await runMain(['rotate', 'missing.json']), /cannot read missing\.json: no such file/);
    expectRefusal(await runMain(['rotate']), /rotate needs the current JWKS: pass a file, or pipe it on stdin/);
    expectRefusal(await runMain(['rotate'], { stdin: '  \n' }), /stdin was empty/);
  });
});

describe('--help', () => {
  it('prints the usage and exits 0', async () => {
    const result = await runCli(['--help']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^Usage: platform-auth <command> \[options\]/);
    expect(result.stdout).toContain('rotate [file]');
    expect(result.stdout).toContain('--keep <n>');
    expect((await runMain(['rotate', '-h'])).code).toBe(0);
  });
});

it('refuses a Node.js older than package.json\'s engines, saying which is needed, before doing anything', async () => {
  const old = await runMain(['keys'], { nodeVersion: '20.17.0' });
  expect(old).toEqual({ code: 1, stdout: '', stderr: 'platform-auth: platform-auth needs Node.js 22.15.0 or later (package.json engines); this is Node.js v20.17.0. Use Node 22 LTS or later.\n' });
  expect((await runMain(['keys'], { nodeVersion: '22.15.0' })).code).toBe(0);
});
