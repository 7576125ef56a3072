/**
 * `npm run example`: starts the demo host on PORT (default 3000).
 *
 * | variable | |
 * | --- | --- |
 * | `PORT`, `BASE_URL` | where it listens; the issuer (default `http://localhost:$PORT`) |
 * | `VARIANT` | `A` (default): restricted registration; `B`: open registration and metadata documents |
 * | `SIGN_IN` | `library` (default): the library's sign-in page, and members signed in at `/sign-in` go straight to consent; `host`: the host's `/sign-in` page for every sign-in |
 * | `REDIS_URL` | store everything in this Redis instead of in memory |
 * | `REDIS_KEY_PREFIX` | prefix of every key (default `platform-auth:`) |
 * | `METRICS_PORT` | serve the library's metrics in Prometheus format at `http://localhost:$METRICS_PORT/metrics` |
 * | `DEMO_SECRET` | derives the ID-token signing key, the cookie keys and the operator client's secret |
 * | `DEMO_JWKS`, `DEMO_COOKIE_KEYS`, `DEMO_OPERATOR_SECRET` | set those one by one instead (JWKS JSON; comma-separated keys) |
 *
 * The banner prints the operator client's secret only when this process generated it: one
 * from `DEMO_OPERATOR_SECRET` or `DEMO_SECRET` is a live credential, kept out of the logs.
 *
 * Several instances on one Redis behave as one server when they share `REDIS_URL`,
 * `BASE_URL` and their secrets (`DEMO_SECRET`): a code issued by one is redeemed on
 * another, and sign-in cookies and ID-token signatures are valid everywhere.
 *
 * @module
 */
import { createECDH, createHash, hkdfSync } from 'node:crypto';
import type { JsonWebKey } from 'node:crypto';

import { createRedisAdapter, REDIS_ADAPTER_DEFAULTS } from '../../adapters/redis.ts';
import { ConfigurationError } from '../../lib/index.ts';
import type { ClosableAdapterFactory } from '../../lib/index.ts';
import type { PlatformAuthOptions } from '../../lib/index.ts';
import { buildApp } from './app.ts';
import { createDemoServer } from './http-server.ts';
import { MEMBER_CLIENT_ID, OPERATOR_CLIENT_ID } from './seed.ts';

interface DemoSecrets {
  jwks?: { keys: JsonWebKey[] };
  cookieKeys?: string[];
  operatorSecret?: string;
  /** where `operatorSecret` came from; absent when it is generated for this process */
  operatorSecretFrom?: string;
  adminSecret?: string;
  /** how they were obtained, for the banner */
  source: string;
}

const derive = (secret: string, info: string) => Buffer.from(hkdfSync('sha256', secret, 'platform-auth demo', info, 32));

/** A P-256 private key from the secret: every instance with the same secret signs with the same key. */
function deriveSigningKey(secret: string): JsonWebKey {
  for (let counter = 0; ; counter += 1) {
    const d = derive(secret, `ES256 signing key ${counter}`);
    const ecdh = createECDH('prime256v1');
    try {
      // rejects the rare value that is not below the curve order; the next counter will be
      ecdh.setPrivateKey(d);
    } catch {
      continue;
    }
    const point = ecdh.getPublicKey(); // 0x04 || x || y
    return {
      kty: 'EC',
      crv: 'P-256',
      d: d.toString('base64url'),
      x: point.subarray(1, 33).toString('base64url'),
      y: point.subarray(33).toString('base64url'),
      kid: `demo-${createHash('sha256').update(point).digest('base64url').slice(0, 12)}`,
    };
  }
}

function fail(message: string): never {
  console.error(`platform-auth demo: ${message}`);
  process.exit(1);
}

function readSecrets(env: NodeJS.ProcessEnv): DemoSecrets {
  const secret = env.DEMO_SECRET;
  if (secret !== undefined && secret.length < 16) fail('DEMO_SECRET must be at least 16 characters (e.g. `openssl rand -base64 32`)');
  const sources: string[] = [];
  let jwks: DemoSecrets['jwks'];
  if (env.DEMO_JWKS) {
    try {
      jwks = JSON.parse(env.DEMO_JWKS) as { keys: JsonWebKey[] };
    } catch {
      fail('DEMO_JWKS must be a JWKS in JSON: {"keys":[{ private ES256 key with a kid }]}');
    }
    sources.push('signing key from DEMO_JWKS');
  } else if (secret) {
    jwks = { keys: [deriveSigningKey(secret)] };
  }
  let cookieKeys: string[] | undefined;
  if (env.DEMO_COOKIE_KEYS) {
    cookieKeys = env.DEMO_COOKIE_KEYS.split(',').map((k) => k.trim()).filter(Boolean);
    sources.push('cookie keys from DEMO_COOKIE_KEYS');
  } else if (secret) {
    cookieKeys = [derive(secret, 'cookie key').toString('base64url')];
  }
  let operatorSecret = env.DEMO_OPERATOR_SECRET;
  let operatorSecretFrom: string | undefined;
  if (operatorSecret) {
    sources.push('operator secret from DEMO_OPERATOR_SECRET');
    operatorSecretFrom = 'from DEMO_OPERATOR_SECRET';
  } else if (secret) {
    operatorSecret = derive(secret, 'operator client secret').toString('base64url');
    operatorSecretFrom = 'derived from DEMO_SECRET';
  }
  if (secret) sources.push(sources.length ? 'the rest derived from DEMO_SECRET' : 'signing key, cookie keys and operator secret derived from DEMO_SECRET');
  return {
    ...(jwks && { jwks }),
    ...(cookieKeys && { cookieKeys }),
    ...(operatorSecret && { operatorSecret, operatorSecretFrom }),
    ...(secret && { adminSecret: derive(secret, 'admin session key').toString('base64url') }),
    source: sources.length ? sources.join(', ') : 'generated for this process only (set DEMO_SECRET to run several instances)',
  };
}

/** The URL without its password, for printing. */
function redact(url: string): string {
  const parsed = URL.parse(url);
  if (!parsed) return '(unparseable REDIS_URL)';
  if (parsed.password) parsed.password = '***';
  return parsed.href;
}

const port = Number(process.env.PORT ?? 3000);
const baseUrl = process.env.BASE_URL ?? `http://localhost:${port}`;
const secrets = readSecrets(process.env);
const redisUrl = process.env.REDIS_URL;
const keyPrefix = process.env.REDIS_KEY_PREFIX ?? REDIS_ADAPTER_DEFAULTS.keyPrefix;

let adapter: ClosableAdapterFactory | undefined;
let storage = 'in memory (this process only, lost on restart)';
if (redisUrl) {
  adapter = createRedisAdapter({ url: redisUrl, keyPrefix });
  storage = `Redis at ${redact(redisUrl)} (key prefix ${keyPrefix})`;
}

// VARIANT=B: open dynamic registration (and metadata documents from any host); A by default
const variant = (process.env.VARIANT ?? 'A').toUpperCase();
if (variant !== 'A' && variant !== 'B') {
  console.error(`VARIANT must be A (restricted registration) or B (open registration); got ${JSON.stringify(process.env.VARIANT)}`);
  process.exit(1);
}

const auth: Partial<PlatformAuthOptions> = {
  ...(variant === 'B' && { registration: { variant: 'open' } }),
  ...(adapter && { adapter }),
  ...(secrets.jwks && { jwks: secrets.jwks as PlatformAuthOptions['jwks'] }),
  ...(secrets.cookieKeys && { cookieKeys: secrets.cookieKeys }),
};
// METRICS_PORT: an OpenTelemetry SDK with a Prometheus exporter, installed before the library reads the global meter
if (process.env.METRICS_PORT) {
  const [{ metrics }, { MeterProvider }, { PrometheusExporter }] = await Promise.all([
    import('@opentelemetry/api'), import('@opentelemetry/sdk-metrics'), import('@opentelemetry/exporter-prometheus'),
  ]);
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [new PrometheusExporter({ port: Number(process.env.METRICS_PORT) })] }));
}
// SIGN_IN=host: every sign-in on the host's own page (options.signIn.loginUrl); library by default
const signIn = (process.env.SIGN_IN ?? 'library').toLowerCase();
if (signIn !== 'library' && signIn !== 'host') {
  console.error(`SIGN_IN must be library (the library's sign-in page) or host (the host's /sign-in page); got ${JSON.stringify(process.env.SIGN_IN)}`);
  process.exit(1);
}
// a refused option (production refuses the in-memory store and generated secrets): its message, not a stack
const demo = await buildApp({ baseUrl, operatorSecret: secrets.operatorSecret, adminSecret: secrets.adminSecret, auth, signIn })
  .catch((error: unknown) => {
    if (!(error instanceof ConfigurationError)) throw error;
    return fail(`${error.message}${redisUrl ? '' : ' (the demo: set REDIS_URL, and DEMO_SECRET for its secrets)'}`);
  });
// a secret given to the process is a live credential: never printed (logs keep it); one
// generated here is shown, as nothing else could tell it
const operatorSecret = secrets.operatorSecretFrom ? `${secrets.operatorSecretFrom} (not printed)` : `${demo.operatorSecret} (generated for this process)`;
const server = createDemoServer(demo.app.callback()).listen(port, () => {
  console.log(`
platform-auth demo listening on ${baseUrl} (port ${port})

  storage          ${storage}
  registration     ${variant === 'B' ? 'Variant B: open dynamic registration, metadata documents from any host' : 'Variant A: client_name "Acme LMS" → acme-lms (VARIANT=B for open registration)'}
  secrets          ${secrets.source}

  discovery        ${baseUrl}/.well-known/openid-configuration
  resource meta    ${baseUrl}/.well-known/oauth-protected-resource
  sign-in          ${signIn === 'host' ? `the host's page ${baseUrl}/sign-in for every sign-in (SIGN_IN=library for the library's page)` : `the library's page; members signed in at ${baseUrl}/sign-in go straight to consent (SIGN_IN=host: always the host's page)`}
  admin page       ${baseUrl}/admin   (Developers → OAuth applications; admin@example.com)

  accounts         student@example.com / student   (student at demo-school)
                   admin@example.com / admin       (admin at demo-school)
                   outsider@example.com / outsider (student at other-school only)

  member client    ${MEMBER_CLIENT_ID} (public, PKCE, redirect http://127.0.0.1:<any port>/callback)
  operator client  ${OPERATOR_CLIENT_ID} / secret ${operatorSecret}
                   (client_secret_post, redirect ${baseUrl}/demo/callback)
  vendor client    acme-lms (Acme LMS; public, redirect http://127.0.0.1:<any port>/acme/callback)

  Try: open ${baseUrl}/oauth/authorize?response_type=code&client_id=${OPERATOR_CLIENT_ID}&redirect_uri=${encodeURIComponent(`${baseUrl}/demo/callback`)}&scope=openid%20profile%20courses:read&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256&state=xyz
       (code_verifier: dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk)
`);
});

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: finishing open requests, then closing storage`);
  // a request that never ends must not keep the process alive
  setTimeout(() => process.exit(1), 5_000).unref();
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
  await demo.close();
  // the library closes only storage it created itself
  await adapter?.close();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
