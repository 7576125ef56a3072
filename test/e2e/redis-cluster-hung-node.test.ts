/**
 * A real Cluster one node of which stops answering for a few seconds (no failover: shorter
 * than its node timeout) and then applies what it had received:
 * - a revocation (RFC 7009) whose grant's records are on that node, the access token's on
 *   another: oidc-provider deleted the token there, then the grant's revocation timed out:
 *   503, and the client's retry found no token, was answered 200, and the grant lived on (its
 *   refresh token refreshed, the app stayed in Connected apps). The token now goes with its
 *   grant (lib/provider/revoked-with-grant.ts), so the retry ends the grant;
 * - a member client created while its record's node hangs: answered 503, the site's list
 *   entry (another node) was taken back, and the node then stored the client: a working
 *   client no list showed, with no TTL. Its record is now deleted behind the write, and the
 *   entry kept until that delete is confirmed (lib/member-clients/manager.ts).
 */
import { randomUUID } from 'node:crypto';

import type { Cluster } from 'ioredis';

import { keyIdOf } from '../../adapters/redis-keys.ts';
import { createRedisAdapter } from '../../adapters/redis.ts';
import type { Adapter, AdapterFactory, AdapterPayload } from '../../adapters/types.ts';
import { MEMBER, STUDENT, exchangeCode, obtainCode, postForm } from '../support/flows.ts';
import type { TokenSet } from '../support/flows.ts';
import { connectCluster, startRedisCluster } from '../support/redis-cluster.ts';
import type { ClusterHandle } from '../support/redis-cluster.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

let cluster: ClusterHandle;
let client: Cluster;
let probe: Cluster;
let inner: ReturnType<typeof createRedisAdapter>;
let app: RunningApp;
const prefix = `hung-node-${randomUUID()}:`;
const SITE = 'demo-school';

/** armed: the next member client's record write first pauses its node, when that is not the site list's */
const clientWrite = { armed: false, paused: 0, clientId: '' };

/** The Redis adapter, with the fault above on `Client` writes. */
function withClientWriteFault(redis: ReturnType<typeof createRedisAdapter>): AdapterFactory {
  const factory: AdapterFactory = (model) => {
    const adapter = redis(model);
    if (model !== 'Client') return adapter;
    return new Proxy(adapter, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== 'function') return value;
        if (property !== 'upsert') return value.bind(target);
        return async (id: string, payload: AdapterPayload, expiresIn: number) => {
          if (clientWrite.armed && id.startsWith('mc_')) {
            clientWrite.armed = false;
            const node = await masterOf(`${prefix}Client:{${id}}`);
            if (node !== await masterOf(`${prefix}SiteMemberClients:{${SITE}}`)) {
              cluster.pauseNode(node);
              clientWrite.paused = node;
              clientWrite.clientId = id;
            }
          }
          return (value as Adapter['upsert']).call(target, id, payload, expiresIn);
        };
      },
    });
  };
  return Object.assign(factory, { putRecords: redis.putRecords, close: redis.close });
}

beforeAll(async () => {
  // a long node timeout: a node paused for a few seconds is not failed over
  cluster = await startRedisCluster({ masters: 3, nodeTimeoutMs: 30_000 });
  client = await connectCluster(cluster);
  // the test's own reads (CLUSTER SLOTS, KEYSLOT) may be sent again after a failover, as ioredis does
  // by default: they change nothing, unlike the app's commands (README: retryDelayOnFailover: 0)
  probe = await connectCluster(cluster, { enableAutoPipelining: false, retryDelayOnFailover: 100 });
  inner = createRedisAdapter({ client, keyPrefix: prefix, logger: { info() {}, warn() {} } });
  app = await startApp({ auth: { adapter: withClientWriteFault(inner) } });
}, 60_000);

afterAll(async () => {
  if (clientWrite.paused) cluster.resumeNode(clientWrite.paused);
  await app?.stop();
  await inner?.close();
  await Promise.all([client, probe].map((c) => c?.quit().catch(() => c.disconnect())));
  await cluster?.stop();
});

const origin = () => `http://127.0.0.1:${app.port}`;
const revoke = (token: string) => postForm(`${origin()}/api/oauth/revoke`, { token, client_id: MEMBER.clientId });
const grantsOf = async (accountId: string) => new Set((await app.auth.connectedApps.list(accountId)).flatMap((a) => a.grants.map((g) => g.grantId)));

/** the port of the master serving `key` now */
async function masterOf(key: string): Promise<number> {
  const slot = Number(await probe.cluster('KEYSLOT', key));
  const shards = await probe.cluster('SLOTS') as unknown as [number, number, [string, number, string]][];
  return shards.find(([from, to]) => slot >= from && slot <= to)![2][1];
}

it('an access token revoked while the node of its grant hangs: the retry ends the grant', async () => {
  let tokens: TokenSet | undefined;
  let grantId: string | undefined;
  // a grant whose index lives on another node than the access token's record
  for (let i = 0; i < 20 && grantId === undefined; i += 1) {
    const known = await grantsOf('acc-student');
    const { code, verifier } = await obtainCode(app.baseUrl, MEMBER, { scope: 'openid profile email account:read' }, STUDENT);
    const res = await exchangeCode(origin(), MEMBER, code, verifier);
    expect(res.status).toBe(200);
    const candidate = (await res.json()) as TokenSet;
    const id = [...await grantsOf('acc-student')].find((g) => !known.has(g))!;
    const tokenNode = await masterOf(`${prefix}AccessToken:{${keyIdOf('AccessToken', candidate.access_token)}}`);
    if (await masterOf(`${prefix}index:grant:{${id}}`) !== tokenNode) {
      tokens = candidate;
      grantId = id;
    }
  }
  expect(grantId).toBeDefined();
  const grantNode = await masterOf(`${prefix}index:grant:{${grantId}}`);

  cluster.pauseNode(grantNode);
  let first: number;
  try {
    first = (await revoke(tokens!.access_token)).status;
  } finally {
    cluster.resumeNode(grantNode);
  }
  expect(first).toBe(503);
  // the client retries once storage answers again
  let retry = 0;
  for (let i = 0; i < 50 && retry !== 200; i += 1) {
    retry = (await revoke(tokens!.access_token)).status;
    if (retry !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(retry).toBe(200);
  expect((await grantsOf('acc-student')).has(grantId!)).toBe(false);
  const refreshed = await postForm(`${origin()}/api/oauth/token`, { grant_type: 'refresh_token', refresh_token: tokens!.refresh_token, client_id: MEMBER.clientId });
  expect(refreshed.status).toBe(400);
}, 90_000);

it('a member client created while its record\'s node hangs: answered 503, and no stored client that the site\'s list does not show', async () => {
  for (let i = 0; i < 20 && !clientWrite.paused; i += 1) {
    clientWrite.armed = true;
    const outcome = await app.auth.memberClients.create(SITE, {
      name: 'Buddy', type: 'public', scopes: ['openid', 'account:read'], redirectUris: ['https://buddy.example/cb'],
    }).then(() => 'created', (error: { status?: number }) => `rejected ${error.status}`);
    if (clientWrite.paused) expect(outcome).toBe('rejected 503');
  }
  expect(clientWrite.paused).toBeGreaterThan(0);
  cluster.resumeNode(clientWrite.paused);
  // what the node had received is applied once it answers again
  await probe.ping();
  await new Promise((resolve) => setTimeout(resolve, 500));
  const listed = (await app.auth.memberClients.list(SITE)).map((c) => c.clientId);
  const stored = await app.auth.memberClients.get(SITE, clientWrite.clientId).then(() => true, () => false);
  // either the client is listed, or it does not exist
  expect(stored ? { stored, listed: listed.includes(clientWrite.clientId) } : { stored }).toEqual(stored ? { stored: true, listed: true } : { stored: false });
  expect(await probe.exists(`${prefix}Client:{${clientWrite.clientId}}`)).toBe(stored ? 1 : 0);
}, 90_000);
