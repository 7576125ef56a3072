/**
 * "Connected apps" across two instances of the demo host on one real Redis (the same keys,
 * secrets and key prefix, one issuer behind a small forwarder that sends each request to
 * the instance the test names): an app authorized on A is listed on B, with its name, site,
 * scopes and first and last use; disconnected on A, its access token is refused at B's
 * UserInfo and /mcp and its refresh token answered `invalid_grant` by B, at once.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, request } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { createRedisAdapter } from '../../adapters/redis.ts';
import type { ClosableAdapterFactory } from '../../adapters/types.ts';
import { createSecrets } from '../../lib/keys/secrets.ts';
import { GrantIndex } from '../../lib/storage/grant-index.ts';
import { connect, connectFailure, expectHttpError } from '../mcp/support.ts';
import { MEMBER, STUDENT, exchangeCode, obtainCode, postForm } from '../support/flows.ts';
import type { TokenSet } from '../support/flows.ts';
import { startRedis } from '../support/redis-server.ts';
import type { RedisHandle } from '../support/redis-server.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import { HOME, MemberPage, shownApps } from './member-page.ts';

const SCOPE = 'openid profile email account:read';
const silent = { info() {}, warn() {} };

/** Forwards every request to the instance named by `to`, Host unchanged (as a reverse proxy does). */
interface Forwarder {
  readonly url: string;
  to: 'A' | 'B';
  setTargets(a: number, b: number): void;
  stop(): Promise<void>;
}

async function startForwarder(): Promise<Forwarder> {
  const ports = { A: 0, B: 0 };
  const forwarder: Forwarder = {
    url: '',
    to: 'A',
    setTargets(a, b) {
      ports.A = a;
      ports.B = b;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((req, res) => {
    const upstream = request({ host: '127.0.0.1', port: ports[forwarder.to], method: req.method, path: req.url, headers: req.headers }, (answer) => {
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
  (forwarder as { url: string }).url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return forwarder;
}

let redis: RedisHandle;
let front: Forwarder;
let a: RunningApp;
let b: RunningApp;
const adapters: ClosableAdapterFactory[] = [];

beforeAll(async () => {
  redis = await startRedis();
  front = await startForwarder();
  const { jwks, cookieKeys } = await createSecrets();
  const keyPrefix = `platform-auth-test:${randomUUID()}:`;
  // the page sessions too are shared: signed with the same secret on both
  const adminSecret = randomBytes(32).toString('base64url');
  const start = () => {
    const adapter = createRedisAdapter({ url: redis.url, keyPrefix, logger: silent });
    adapters.push(adapter);
    return startApp({
      baseUrl: front.url, adminSecret, operatorSecret: 'operator-secret-shared-by-both-0123456789',
      auth: { adapter, jwks: jwks as never, cookieKeys },
    });
  };
  [a, b] = await Promise.all([start(), start()]);
  front.setTargets(a.port, b.port);
});

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await Promise.all(adapters.map((adapter) => adapter.close()));
  await front?.stop();
  await redis?.stop();
});

/** Runs `work` with every request forwarded to `instance`. */
async function on<T>(instance: 'A' | 'B', work: () => Promise<T>): Promise<T> {
  const before = front.to;
  front.to = instance;
  try {
    return await work();
  } finally {
    front.to = before;
  }
}

const userinfo = (token: string) => fetch(`${front.url}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${token}` } });
const refresh = (token: string) => postForm(`${front.url}/api/oauth/token`, { grant_type: 'refresh_token', refresh_token: token, client_id: MEMBER.clientId });

async function authorizeOnA(): Promise<TokenSet> {
  return on('A', async () => {
    const { code, verifier } = await obtainCode(front.url, MEMBER, { scope: SCOPE, resource: front.url }, STUDENT);
    const res = await exchangeCode(front.url, MEMBER, code, verifier, front.url);
    expect(res.status).toBe(200);
    return (await res.json()) as TokenSet;
  });
}

it('a member lists on B an app authorized on A, disconnects it on A, and B refuses its tokens at once', async () => {
  const before = Math.floor(Date.now() / 1000);
  const tokens = await authorizeOnA();
  // the refresh token works on B before (and is rotated there: a use)
  const rotated = await on('B', () => refresh(tokens.refresh_token));
  expect(rotated.status).toBe(200);
  const live = (await rotated.json()) as TokenSet;

  const member = new MemberPage(front.url);
  const page = await on('B', async () => {
    await member.signIn(STUDENT);
    return member.open();
  });
  const [shown, ...others] = shownApps(page.html);
  expect(others).toEqual([]);
  expect(shown).toMatchObject({
    clientId: 'demo-member-app',
    name: 'Demo Member App',
    meta: 'For Demo School · demo-member-app',
    scopes: ['openid', 'profile', 'email', 'account:read'],
  });
  const connectedAt = Date.parse(shown!.connected) / 1000;
  const lastUsedAt = Date.parse(shown!.lastUsed) / 1000;
  expect(connectedAt).toBeGreaterThanOrEqual(before);
  expect(lastUsedAt).toBeGreaterThanOrEqual(connectedAt);
  // the same on A: one storage
  expect(shownApps((await on('A', () => member.open())).html)).toEqual([shown]);

  // good on B before: UserInfo and /mcp
  expect((await on('B', () => userinfo(live.access_token))).status).toBe(200);
  await on('B', async () => (await connect(b, { token: live.access_token })).close());

  const answer = await on('A', () => member.disconnect(page, MEMBER.clientId));
  expect(answer.response.status).toBe(303);
  expect(answer.response.headers.get('location')).toBe(`${HOME}?revoked=1`);

  await on('B', async () => {
    const info = await userinfo(live.access_token);
    expect(info.status).toBe(401);
    expect(info.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const mcp = await connectFailure(b, live.access_token);
    expectHttpError(mcp.error, 401);
    expect(mcp.seen[0]!.challenge).toContain('error="invalid_token"');
    const refreshed = await refresh(live.refresh_token);
    expect({ status: refreshed.status, error: (await refreshed.json()).error }).toEqual({ status: 400, error: 'invalid_grant' });
    // the first refresh token, rotated before, is no way back either
    const old = await refresh(tokens.refresh_token);
    expect({ status: old.status, error: (await old.json()).error }).toEqual({ status: 400, error: 'invalid_grant' });
    expect(shownApps((await member.open()).html)).toEqual([]);
  });
  expect((await on('A', () => userinfo(tokens.access_token))).status).toBe(401);
  expect(await a.auth.connectedApps.list('acc-student')).toEqual([]);
});

it('loses no grant of an account when two instances index grants of it at the same time (compare-and-set on Redis)', async () => {
  const keyPrefix = `platform-auth-test:${randomUUID()}:`;
  const [one, two] = [0, 1].map(() => createRedisAdapter({ url: redis.url, keyPrefix, logger: silent }));
  adapters.push(one!, two!);
  const indexes = [new GrantIndex(one!, { grantSeconds: 600 }), new GrantIndex(two!, { grantSeconds: 600 })];
  const exp = Math.floor(Date.now() / 1000) + 600;
  const ids = Array.from({ length: 20 }, (_, i) => `grant-${i}`);
  await Promise.all(ids.map((id, i) => indexes[i % 2]!.add('acc-racing', id, exp)));
  expect((await indexes[0]!.grantsOf('acc-racing')).sort()).toEqual([...ids].sort());
});
