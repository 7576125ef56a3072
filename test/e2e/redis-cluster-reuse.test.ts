/**
 * Refresh-token reuse on a real Cluster whose revocation is cut off by a lost master (README
 * "Refresh tokens"): the records of one grant live on several nodes, so the revocation is one
 * DEL per node. When the node of another token of the grant (here the live chain's newest
 * refresh token) is lost at that moment, the reuse is a 503, and the reused token may already
 * be gone on its own node, so the client's retry finds nothing to revoke. The grant must still
 * be over: the Grant record is deleted first (adapters/redis.ts, revokeGrant;
 * lib/policies/deleted-clients.ts), and every token needs it.
 */
import { hash, randomUUID } from 'node:crypto';

import type { Cluster } from 'ioredis';

import { createRedisAdapter } from '../../adapters/redis.ts';
import type { ClosableAdapterFactory } from '../../adapters/types.ts';
import { MEMBER, STUDENT, obtainTokens, operator, postForm } from '../support/flows.ts';
import type { TokenSet } from '../support/flows.ts';
import { connectCluster, startRedisCluster } from '../support/redis-cluster.ts';
import type { ClusterHandle } from '../support/redis-cluster.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import { keyIdOf } from '../../adapters/redis-keys.ts';

let cluster: ClusterHandle;
let appClient: Cluster;
let probe: Cluster;
let adapter: ClosableAdapterFactory;
let app: RunningApp;
const prefix = `reuse-${randomUUID()}:`;

// a Cluster per case: each kills a master, and a second kill could find one without a replica
beforeEach(async () => {
  cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
  appClient = await connectCluster(cluster);
  // the test's own reads (CLUSTER SLOTS, KEYSLOT) may be sent again after a failover, as ioredis does
  // by default: they change nothing, unlike the app's commands (README: retryDelayOnFailover: 0)
  probe = await connectCluster(cluster, { enableAutoPipelining: false, retryDelayOnFailover: 100 });
  adapter = createRedisAdapter({ client: appClient, keyPrefix: prefix, logger: { info() {}, warn() {} } });
  app = await startApp({ auth: { adapter } });
}, 60_000);

afterEach(async () => {
  await app?.stop();
  await adapter?.close();
  await Promise.all([appClient, probe].map((c) => c?.quit().catch(() => c.disconnect())));
  await cluster?.stop();
});

const refresh = (token: string) => postForm(`${app.baseUrl}/api/oauth/token`, { grant_type: 'refresh_token', refresh_token: token, client_id: MEMBER.clientId });
/** the same token presented by another client (the operator client of the demo host) */
const foreignRefresh = (token: string) => {
  const op = operator(app.baseUrl, app.operatorSecret);
  return postForm(`${app.baseUrl}/api/oauth/token`, { grant_type: 'refresh_token', refresh_token: token, client_id: op.clientId, client_secret: op.clientSecret });
};
/** the port of the master serving `key` now */
async function masterOf(key: string): Promise<number> {
  const slot = Number(await probe.cluster('KEYSLOT', key));
  const shards = await probe.cluster('SLOTS') as unknown as [number, number, [string, number, string]][];
  const shard = shards.find(([from, to]) => slot >= from && slot <= to)!;
  return shard[2][1];
}

test.each(['own client (successor used)', 'another client'])('a reuse (%s) whose Cluster revocation was cut off by a lost master still ends the grant', async (who) => {
  const present = who === 'another client' ? foreignRefresh : refresh;
  // a grant whose reused token, grant index and use record (that a successor of the reused
  // token was used, keyed by its name: lib/policies/refresh-grace.ts) leave one master free
  let first!: TokenSet;
  let grantId!: string;
  let busy!: number[];
  for (let attempt = 0; attempt < 20; attempt += 1) {
    first = await obtainTokens(app.baseUrl, MEMBER, { scope: 'openid account:read', resource: app.baseUrl }, STUDENT);
    grantId = (JSON.parse((await probe.get(`${prefix}RefreshToken:{${keyIdOf('RefreshToken', first.refresh_token)}}`))!) as { grantId: string }).grantId;
    busy = await Promise.all([
      `${prefix}RefreshToken:{${keyIdOf('RefreshToken', first.refresh_token)}}`, `${prefix}index:grant:{${grantId}}`, `${prefix}RefreshTokenUse:{${hash('sha256', first.refresh_token, 'base64url').slice(0, 22)}}`,
    ].map(masterOf));
    if (new Set(busy).size < 3) break;
  }
  // rotate until the chain's newest refresh token sits on a master that the reuse request
  // needs only for the revocation's DELs
  let latest: TokenSet = first;
  let victim: number | undefined;
  for (let i = 0; i < 60; i += 1) {
    const res = await refresh(latest.refresh_token);
    expect(res.status).toBe(200);
    latest = await res.json() as TokenSet;
    const node = await masterOf(`${prefix}RefreshToken:{${keyIdOf('RefreshToken', latest.refresh_token)}}`);
    if (i >= 1 && !busy.includes(node)) {
      victim = node;
      break;
    }
  }
  expect(victim).toBeDefined();

  await cluster.killNode(victim!);
  const reuse = await present(first.refresh_token);
  const reuseBody = await reuse.json() as { error: string };
  // the outage is reported as it should be
  expect({ status: reuse.status, error: reuseBody.error }).toEqual({ status: 503, error: 'temporarily_unavailable' });
  await cluster.waitUntilHealthy({ deadPort: victim!, timeoutMs: 30_000 });
  await new Promise((resolve) => setTimeout(resolve, 1_000));

  // the client's retry: refused, and the grant over, whether or not the reused token survived
  const retry = await present(first.refresh_token);
  const chain = await refresh(latest.refresh_token);
  const grantStored = await probe.exists(`${prefix}Grant:{${grantId}}`);
  expect({ retry: retry.status, chainAfterRetry: chain.status, grantStored })
    .toEqual({ retry: 400, chainAfterRetry: 400, grantStored: 0 });
  // and no access token of the grant is accepted
  const userinfo = await fetch(`${app.baseUrl}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${latest.access_token}` } });
  expect(userinfo.status).toBe(401);
}, 120_000);
