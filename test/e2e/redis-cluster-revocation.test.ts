/**
 * A revocation (RFC 7009) on a real Cluster whose node of the grant's records stops answering
 * for a few seconds (no failover: shorter than its node timeout). The access token's record
 * lives on another node. oidc-provider deleted the token there, then the grant's revocation
 * timed out: 503, and the client's retry found no token, was answered 200, and the grant lived
 * on (its refresh token refreshed, the app stayed in Connected apps). The token now goes with
 * its grant (lib/provider/revoked-with-grant.ts), so the retry ends the grant.
 */
import { randomUUID } from 'node:crypto';

import type { Cluster } from 'ioredis';

import { keyIdOf } from '../../adapters/redis-keys.ts';
import { createRedisAdapter } from '../../adapters/redis.ts';
import type { ClosableAdapterFactory } from '../../adapters/types.ts';
import { MEMBER, STUDENT, exchangeCode, obtainCode, postForm } from '../support/flows.ts';
import type { TokenSet } from '../support/flows.ts';
import { connectCluster, startRedisCluster } from '../support/redis-cluster.ts';
import type { ClusterHandle } from '../support/redis-cluster.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

let cluster: ClusterHandle;
let client: Cluster;
let probe: Cluster;
let adapter: ClosableAdapterFactory;
let app: RunningApp;
const prefix = `revocation-${randomUUID()}:`;

beforeAll(async () => {
  // a long node timeout: a node paused for a few seconds is not failed over
  cluster = await startRedisCluster({ masters: 3, nodeTimeoutMs: 30_000 });
  client = await connectCluster(cluster);
  probe = await connectCluster(cluster, { enableAutoPipelining: false });
  adapter = createRedisAdapter({ client, keyPrefix: prefix, logger: { info() {}, warn() {} } });
  app = await startApp({ auth: { adapter } });
}, 60_000);

afterAll(async () => {
  await app?.stop();
  await adapter?.close();
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
