/**
 * The demo host's start-up banner (`node examples/host/server.ts`, as `npm run example` runs
 * it) names the operator client's secret only when the process generated it: a secret given
 * in DEMO_OPERATOR_SECRET or derived from DEMO_SECRET (the documented multi-instance setup) is
 * a live client_secret_post credential, and the banner ends up in container logs.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { hkdfSync, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';

import { OPERATOR_CLIENT_ID } from '../../examples/host/seed.ts';
import { freePort } from '../support/free-port.ts';

const SERVER = fileURLToPath(new URL('../../examples/host/server.ts', import.meta.url));
const children: ChildProcess[] = [];

/** starts the demo with `env` and returns its stdout and stderr once the banner is printed */
async function startDemo(env: Record<string, string>): Promise<{ output: string; origin: string }> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const { REDIS_URL: _redis, DEMO_SECRET: _secret, DEMO_OPERATOR_SECRET: _operator, ...inherited } = process.env;
  const child = spawn(process.execPath, [SERVER], {
    env: { ...inherited, NODE_ENV: 'development', PORT: String(port), BASE_URL: origin, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the demo did not start:\n${output}`)), 20_000);
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      // the banner's last line
      if (output.includes('code_verifier')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the demo exited (${code}):\n${output}`));
    });
  });
  return { output, origin };
}

/** the token endpoint's answer to the operator client with `secret` and a code that does not exist */
async function tokenError(origin: string, secret: string): Promise<string> {
  const res = await fetch(`${origin}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code', code: 'no-such-code', redirect_uri: `${origin}/demo/callback`,
      code_verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk', client_id: OPERATOR_CLIENT_ID, client_secret: secret,
    }),
  });
  return ((await res.json()) as { error: string }).error;
}

afterAll(async () => {
  await Promise.all(children.map((child) => new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  })));
});

it('does not print a secret given in DEMO_OPERATOR_SECRET, and says where it comes from', async () => {
  const secret = randomBytes(24).toString('base64url');
  const { output, origin } = await startDemo({ DEMO_OPERATOR_SECRET: secret });
  expect(output).not.toContain(secret);
  expect(output).toMatch(/operator client +demo-operator-app \/ secret from DEMO_OPERATOR_SECRET \(not printed\)/);
  // the secret kept out of the banner is the live one
  expect(await tokenError(origin, secret)).toBe('invalid_grant');
});

it('does not print the secret derived from DEMO_SECRET', async () => {
  const demoSecret = randomBytes(24).toString('base64url');
  const { output, origin } = await startDemo({ DEMO_SECRET: demoSecret });
  // as examples/host/server.ts derives it
  const derived = Buffer.from(hkdfSync('sha256', demoSecret, 'platform-auth demo', 'operator client secret', 32)).toString('base64url');
  expect(await tokenError(origin, derived)).toBe('invalid_grant');
  expect(output).not.toContain(derived);
  expect(output).not.toContain(demoSecret);
  expect(output).toMatch(/operator client +demo-operator-app \/ secret derived from DEMO_SECRET \(not printed\)/);
});

it('prints a secret generated for this process, which nothing else could tell', async () => {
  const { output, origin } = await startDemo({});
  const printed = /operator client +demo-operator-app \/ secret (\S+) \(generated for this process\)/.exec(output)?.[1];
  expect(printed).toBeDefined();
  expect(await tokenError(origin, printed!)).toBe('invalid_grant');
  expect(await tokenError(origin, `${printed}x`)).toBe('invalid_client');
});
