/**
 * Two instances of the demo host (two Koa servers, two Redis connections, one Redis and one
 * key prefix, the same keys and secrets) behind a small load balancer, behaving as one
 * authorization server: whatever one issues, the other redeems, refreshes, revokes and
 * sees revoked. Then the same with two `npm run example` processes and DEMO_SECRET.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import { createServer, request } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { createRedisAdapter } from '../../adapters/redis.ts';
import type { ClosableAdapterFactory } from '../../adapters/types.ts';
import { Browser, signIn } from '../support/browser.ts';
import { MEMBER, STUDENT, buildAuthorizeUrl, exchangeCode, obtainCode, postForm } from '../support/flows.ts';
import type { CodeResult, TokenSet } from '../support/flows.ts';
import { pkcePair, randomState } from '../support/pkce.ts';
import { startRedis } from '../support/redis-server.ts';
import type { RedisHandle } from '../support/redis-server.ts';
import { freePort } from '../support/free-port.ts';
import { sharedDeployment } from '../support/instances.ts';
import type { RunningApp } from '../support/start-app.ts';

const SCOPE = 'openid profile email account:read';
const silent = { info() {}, warn() {} };

/** Forwards each request to one of two ports: alternately, or always the one named. */
interface Balancer {
  readonly url: string;
  /** which instance served each request, in order */
  readonly log: ('A' | 'B')[];
  route: 'alternate' | 'A' | 'B';
  setTargets(a: number, b: number): void;
  stop(): Promise<void>;
}

async function startBalancer(): Promise<Balancer> {
  const targets = { A: 0, B: 0 };
  let turn = 0;
  const balancer = {
    url: '',
    log: [] as ('A' | 'B')[],
    route: 'alternate' as Balancer['route'],
    setTargets(a: number, b: number) {
      targets.A = a;
      targets.B = b;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((req, res) => {
    const name = balancer.route === 'alternate' ? (turn++ % 2 === 0 ? 'A' : 'B') : balancer.route;
    balancer.log.push(name);
    // Host is passed on unchanged, as a reverse proxy does: the instances build URLs from it
    const upstream = request({ host: '127.0.0.1', port: targets[name], method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => {
      res.statusCode = 502;
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  balancer.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return balancer;
}

let redis: RedisHandle;
let balancer: Balancer;
let a: RunningApp;
let b: RunningApp;
const adapters: ClosableAdapterFactory[] = [];
/** each instance's own origin, for requests that must reach that one */
let atA: string;
let atB: string;

beforeAll(async () => {
  redis = await startRedis();
  balancer = await startBalancer();
  const deployment = await sharedDeployment();
  const start = () => {
    const adapter = createRedisAdapter({ url: redis.url, keyPrefix: deployment.keyPrefix, logger: silent });
    adapters.push(adapter);
    return deployment.start(adapter, balancer.url);
  };
  [a, b] = await Promise.all([start(), start()]);
  balancer.setTargets(a.port, b.port);
  atA = `http://127.0.0.1:${a.port}`;
  atB = `http://127.0.0.1:${b.port}`;
});

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await Promise.all(adapters.map((adapter) => adapter.close()));
  await balancer?.stop();
  await redis?.stop();
});

/** Signs in through the balancer, every request going to `route`. */
async function codeFrom(route: 'A' | 'B' | 'alternate'): Promise<CodeResult> {
  balancer.route = route;
  try {
    return await obtainCode(balancer.url, MEMBER, { scope: SCOPE }, STUDENT);
  } finally {
    balancer.route = 'alternate';
  }
}

async function redeem(origin: string, { code, verifier }: CodeResult): Promise<TokenSet> {
  const res = await exchangeCode(origin, MEMBER, code, verifier);
  const body = await res.json();
  expect({ status: res.status, body }).toEqual({ status: 200, body: expect.objectContaining({ access_token: expect.any(String) }) });
  return body as TokenSet;
}

const refresh = (origin: string, refreshToken: string) => postForm(`${origin}/api/oauth/token`, {
  grant_type: 'refresh_token', refresh_token: refreshToken, client_id: MEMBER.clientId,
});
const introspect = async (origin: string, token: string) => (await (await postForm(`${origin}/api/oauth/introspect`, {
  token, client_id: MEMBER.clientId,
})).json()) as { active: boolean; sub?: string };
const revoke = (origin: string, token: string) => postForm(`${origin}/api/oauth/revoke`, { token, client_id: MEMBER.clientId });
const userinfo = (origin: string, token: string) => fetch(`${origin}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${token}` } });

async function expectInvalidGrant(res: Response) {
  expect({ status: res.status, error: ((await res.json()) as { error: string }).error }).toEqual({ status: 400, error: 'invalid_grant' });
}

describe('two instances on one Redis', () => {
  it('publish the same discovery document and signing keys', async () => {
    // through the balancer: endpoint URLs in discovery follow the Host of the request
    for (const path of ['/.well-known/openid-configuration', '/api/oauth/jwks']) {
      const answers = [];
      for (const route of ['A', 'B'] as const) {
        balancer.route = route;
        answers.push(await (await fetch(`${balancer.url}${path}`)).json());
      }
      balancer.route = 'alternate';
      expect(answers[1]).toEqual(answers[0]);
    }
  });

  it('complete a sign-in whose requests alternate between them, and redeem its code', async () => {
    balancer.log.length = 0;
    const code = await codeFrom('alternate');
    // authorize, sign-in page, login, resume, consent page, confirm, resume: both took turns
    expect(balancer.log.length).toBeGreaterThanOrEqual(5);
    expect(new Set(balancer.log)).toEqual(new Set(['A', 'B']));
    const tokens = await redeem(balancer.url, code);
    expect(tokens.refresh_token).toEqual(expect.any(String));
  });

  it('a code issued on A is redeemed on B; B and A both accept the tokens', async () => {
    balancer.log.length = 0;
    const code = await codeFrom('A');
    expect(new Set(balancer.log)).toEqual(new Set(['A']));
    const tokens = await redeem(atB, code);
    for (const origin of [atA, atB]) {
      expect(await introspect(origin, tokens.access_token)).toMatchObject({ active: true, sub: 'acc-student' });
      const res = await userinfo(origin, tokens.access_token);
      expect({ status: res.status, sub: ((await res.json()) as { sub: string }).sub }).toEqual({ status: 200, sub: 'acc-student' });
    }
  });

  it('a refresh on B after the sign-in on A; once its successor is used, the rotated token replayed on A revokes the grant', async () => {
    const tokens = await redeem(atA, await codeFrom('A'));
    const res = await refresh(atB, tokens.refresh_token);
    expect(res.status).toBe(200);
    const rotated = (await res.json()) as TokenSet;
    expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
    expect((await introspect(atA, rotated.access_token)).active).toBe(true);

    // within the grace, before the successor is used, a retry on the other instance is served
    const retried = await refresh(atA, tokens.refresh_token);
    expect(retried.status).toBe(200);
    // the successor is used on B …
    const next = await refresh(atB, rotated.refresh_token);
    expect(next.status).toBe(200);
    const latest = (await next.json()) as TokenSet;
    // … so the original is reuse now, seen on A, and the whole grant goes
    await expectInvalidGrant(await refresh(atA, tokens.refresh_token));
    expect((await introspect(atB, latest.access_token)).active).toBe(false);
    await expectInvalidGrant(await refresh(atB, latest.refresh_token));
  });

  it('a revocation on A is seen on B at once (introspection, UserInfo, refresh)', async () => {
    const tokens = await redeem(atA, await codeFrom('B'));
    expect((await introspect(atB, tokens.access_token)).active).toBe(true);

    expect((await revoke(atA, tokens.access_token)).status).toBe(200);
    expect((await introspect(atB, tokens.access_token)).active).toBe(false);
    const res = await userinfo(atB, tokens.access_token);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);

    // revoking an access token revokes its grant (oidc-provider), refresh token included
    await expectInvalidGrant(await refresh(atB, tokens.refresh_token));
  });

  it('a refresh token revoked on A no longer refreshes on B, and its access token dies with it', async () => {
    const tokens = await redeem(atB, await codeFrom('A'));
    expect((await revoke(atA, tokens.refresh_token)).status).toBe(200);
    await expectInvalidGrant(await refresh(atB, tokens.refresh_token));
    expect((await introspect(atB, tokens.access_token)).active).toBe(false);
    expect((await userinfo(atB, tokens.access_token)).status).toBe(401);
  });

  it.each([1, 2, 3])('one code redeemed at once on A and on B: exactly one succeeds and the grant dies (round %i)', async () => {
    const code = await codeFrom('alternate');
    const [fromA, fromB] = await Promise.all([exchangeCode(atA, MEMBER, code.code, code.verifier), exchangeCode(atB, MEMBER, code.code, code.verifier)]);
    const statuses = [fromA.status, fromB.status].sort();
    expect(statuses).toEqual([200, 400]);
    const [winner, loser] = fromA.status === 200 ? [fromA, fromB] : [fromB, fromA];
    await expectInvalidGrant(loser);
    const tokens = (await winner.json()) as TokenSet;

    // the replay revoked the grant: the winner's tokens are dead on both instances
    for (const origin of [atA, atB]) {
      expect((await introspect(origin, tokens.access_token)).active).toBe(false);
      expect((await userinfo(origin, tokens.access_token)).status).toBe(401);
    }
    await expectInvalidGrant(await refresh(atA, tokens.refresh_token));
  });

  it('a member client created on A is served by B (audience and site live in the shared store), and deleting it on B kills its tokens on A', async () => {
    const { client } = await a.auth.memberClients.create('demo-school', {
      name: 'Shared Study App', type: 'public', redirectUris: ['http://127.0.0.1/callback'], scopes: ['openid', 'account:read'],
    });
    expect((await b.auth.memberClients.list('demo-school')).map((c) => c.clientId)).toContain(client.clientId);
    const flowClient = { clientId: client.clientId, redirectUri: 'http://127.0.0.1:47001/callback' };
    balancer.route = 'B';
    let code: CodeResult;
    try {
      code = await obtainCode(balancer.url, flowClient, { scope: 'openid account:read' }, STUDENT);
    } finally {
      balancer.route = 'alternate';
    }
    const res = await exchangeCode(atA, flowClient, code.code, code.verifier);
    const tokens = (await res.json()) as TokenSet;
    expect(res.status).toBe(200);
    const info = await userinfo(atA, tokens.access_token);
    expect(await info.json()).toMatchObject({ sub: 'acc-student', org_id: 'demo-school', roles: ['student'] });

    await b.auth.memberClients.delete('demo-school', client.clientId);
    expect((await userinfo(atA, tokens.access_token)).status).toBe(401);
    const refreshed = await postForm(`${atA}/api/oauth/token`, {
      grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.clientId,
    });
    expect(refreshed.status).toBeGreaterThanOrEqual(400);
    expect(['invalid_client', 'invalid_grant']).toContain(((await refreshed.json()) as { error: string }).error);
  });

  it('one code raced by 10 requests spread over A and B: exactly one succeeds', async () => {
    const code = await codeFrom('alternate');
    const responses = await Promise.all(Array.from({ length: 10 }, (_, i) => exchangeCode(i % 2 ? atA : atB, MEMBER, code.code, code.verifier)));
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 400)).toHaveLength(9);
    const tokens = (await responses.find((r) => r.status === 200)!.json()) as TokenSet;
    expect((await introspect(atB, tokens.access_token)).active).toBe(false);
  });
});

describe('two `npm run example` processes with REDIS_URL and DEMO_SECRET', () => {
  interface Demo {
    child: ChildProcess;
    output: string;
    origin: string;
  }
  const demos: Demo[] = [];

  async function startDemo(port: number, env: Record<string, string>): Promise<Demo> {
    const child = spawn(process.execPath, ['examples/host/server.ts'], {
      env: { ...process.env, NODE_ENV: 'development', PORT: String(port), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const demo: Demo = { child, output: '', origin: `http://127.0.0.1:${port}` };
    demos.push(demo);
    const collect = (chunk: Buffer) => {
      demo.output += chunk.toString();
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the demo did not start:\n${demo.output}`)), 20_000);
      const check = () => {
        if (!demo.output.includes('operator client')) return;
        clearTimeout(timer);
        child.stdout!.off('data', check);
        resolve();
      };
      child.stdout!.on('data', check);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the demo exited (${code}):\n${demo.output}`));
      });
    });
    return demo;
  }

  function stopDemo(demo: Demo): Promise<number | null> {
    if (demo.child.exitCode !== null) return Promise.resolve(demo.child.exitCode);
    return new Promise((resolve) => {
      demo.child.once('exit', (code) => resolve(code));
      demo.child.kill('SIGTERM');
    });
  }

  afterAll(async () => {
    for (const demo of demos) if (demo.child.exitCode === null) demo.child.kill('SIGKILL');
  });

  it('share keys, cookies and clients: a code issued by one is redeemed by the other, and both stop cleanly on SIGTERM', async () => {
    const [portA, portB] = [await freePort(), await freePort()];
    const env = {
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: `platform-auth-demo-test:${randomUUID()}:`,
      BASE_URL: `http://127.0.0.1:${portA}`,
      DEMO_SECRET: randomBytes(24).toString('base64url'),
    };
    const [first, second] = await Promise.all([startDemo(portA, env), startDemo(portB, env)]);
    for (const demo of [first, second]) {
      expect(demo.output).toContain(`storage          Redis at ${redis.url}`);
      expect(demo.output).toContain('derived from DEMO_SECRET');
      expect(demo.output).not.toContain(env.DEMO_SECRET);
      // no "generated secret" warnings: both use the derived ones
      expect(demo.output).not.toMatch(/not set|ephemeral/);
    }
    // the operator client's secret, derived from DEMO_SECRET as server.ts does: the same on both, and not printed
    const operatorSecret = Buffer.from(hkdfSync('sha256', env.DEMO_SECRET, 'platform-auth demo', 'operator client secret', 32)).toString('base64url');
    for (const demo of [first, second]) {
      expect(demo.output).not.toContain(operatorSecret);
      const res = await postForm(`${demo.origin}/api/oauth/token`, {
        grant_type: 'authorization_code', code: 'no-such-code', redirect_uri: `${env.BASE_URL}/demo/callback`,
        code_verifier: 'x'.repeat(43), client_id: 'demo-operator-app', client_secret: operatorSecret,
      });
      expect(((await res.json()) as { error: string }).error).toBe('invalid_grant'); // not invalid_client
    }
    const jwks = await Promise.all([first, second].map(async (d) => (await fetch(`${d.origin}/api/oauth/jwks`)).json()));
    expect(jwks[1]).toEqual(jwks[0]);

    // sign in on the first (its BASE_URL), redeem on the second
    const { verifier, challenge } = pkcePair();
    const redirect = await signIn(new Browser(first.origin), buildAuthorizeUrl(first.origin, MEMBER, { scope: SCOPE, challenge, state: randomState() }), STUDENT);
    const code = new URL(redirect).searchParams.get('code')!;
    const tokens = await redeem(second.origin, { code, verifier, state: '', callback: new URL(redirect) });
    expect((await userinfo(first.origin, tokens.access_token)).status).toBe(200);

    expect(await Promise.all([stopDemo(first), stopDemo(second)])).toEqual([0, 0]);
  });
});
