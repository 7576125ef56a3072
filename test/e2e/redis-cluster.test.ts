/**
 * Two instances of the demo host on one real Redis Cluster (3 masters, 3 replicas, spawned on
 * free loopback ports), each with its own ioredis `Cluster` client set up as the README
 * recommends (fail fast, auto-pipelining on): the code flow, refresh and revocation work
 * across instances, and a manual failover, a master that hangs (SIGSTOP), a master killed and
 * a live resharding in the middle of a refresh loop of 20 clients pass without a single 500. Every failed request is 503 `temporarily_unavailable`,
 * and every client that retries keeps its grant: a refresh retried after a 503 whose consume
 * was written but whose new tokens were not is served within the refresh grace
 * (lib/policies/refresh-grace.ts), never taken for reuse. Counts are logged with
 * REDIS_CLUSTER_REPORT=1.
 *
 * jest fails the running test on any unhandled rejection, so passing also means that no
 * storage error escaped as one.
 */

import type { Cluster } from 'ioredis';

import { createRedisAdapter } from '../../adapters/redis.ts';
import type { ClosableAdapterFactory } from '../../adapters/types.ts';
import { MEMBER, STUDENT, exchangeCode, obtainCode, postForm } from '../support/flows.ts';
import type { TokenSet } from '../support/flows.ts';
import { connectCluster, startRedisCluster } from '../support/redis-cluster.ts';
import type { ClusterHandle } from '../support/redis-cluster.ts';
import { sharedDeployment } from '../support/instances.ts';
import type { RunningApp } from '../support/start-app.ts';

const SCOPE = 'openid profile email account:read';
const silent = { info() {}, warn() {} };
const CLIENTS = 20;
const LOOP_MS = 15_000;
const KILL_AFTER_MS = 3_000;
/** between two refreshes of one client */
const PAUSE_MS = 100;
/** How long a call may wait for storage before it is answered 503 (README "When Redis is unreachable"). */
const STORAGE_BOUND_MS = 3_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let cluster: ClusterHandle;
const clients: Cluster[] = [];
const adapters: ClosableAdapterFactory[] = [];
let a: RunningApp;
let b: RunningApp;
let origins: string[];

beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
  // the refresh loops refresh each grant far faster than any client: the refresh rate raised
  // out of their reach, not off, so every refresh still counts on the Cluster through its faults
  const deployment = await sharedDeployment({ refreshTokenRateLimit: { perGrant: 1_000_000, windowSeconds: 60 } });
  const start = async (baseUrl?: string) => {
    const client = await connectCluster(cluster);
    clients.push(client);
    const adapter = createRedisAdapter({ client, keyPrefix: deployment.keyPrefix, logger: silent });
    adapters.push(adapter);
    return deployment.start(adapter, baseUrl);
  };
  a = await start();
  // one issuer for both: B serves A's baseUrl, as behind a load balancer
  b = await start(a.baseUrl);
  origins = [a, b].map((app) => `http://127.0.0.1:${app.port}`);
}, 60_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await Promise.all(adapters.map((adapter) => adapter.close()));
  await Promise.all(clients.map((client) => client.quit().catch(() => client.disconnect())));
  await cluster?.stop();
});

const refresh = (origin: string, refreshToken: string) => postForm(`${origin}/api/oauth/token`, {
  grant_type: 'refresh_token', refresh_token: refreshToken, client_id: MEMBER.clientId,
});
const revoke = (origin: string, token: string) => postForm(`${origin}/api/oauth/revoke`, { token, client_id: MEMBER.clientId });
const introspect = async (origin: string, token: string) => (await (await postForm(`${origin}/api/oauth/introspect`, {
  token, client_id: MEMBER.clientId,
})).json()) as { active: boolean; sub?: string };
const userinfo = (origin: string, token: string) => fetch(`${origin}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${token}` } });

/** Signs in on A, redeems the code on B. */
async function grant(): Promise<TokenSet> {
  const { code, verifier } = await obtainCode(a.baseUrl, MEMBER, { scope: SCOPE }, STUDENT);
  const res = await exchangeCode(origins[1]!, MEMBER, code, verifier);
  const body = await res.json();
  expect({ status: res.status, body }).toEqual({ status: 200, body: expect.objectContaining({ refresh_token: expect.any(String) }) });
  return body as TokenSet;
}

describe('two instances on a Redis Cluster', () => {
  it('code flow, refresh, replay detection and revocation across instances', async () => {
    const tokens = await grant();
    expect(await introspect(origins[0]!, tokens.access_token)).toMatchObject({ active: true, sub: 'acc-student' });
    expect((await userinfo(origins[1]!, tokens.access_token)).status).toBe(200);

    const res = await refresh(origins[0]!, tokens.refresh_token);
    expect(res.status).toBe(200);
    const rotated = (await res.json()) as TokenSet;
    expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
    expect((await introspect(origins[1]!, rotated.access_token)).active).toBe(true);

    // revoking the refresh token on B kills the grant everywhere, on every node of the Cluster
    expect((await revoke(origins[1]!, rotated.refresh_token)).status).toBe(200);
    const again = await refresh(origins[0]!, rotated.refresh_token);
    expect({ status: again.status, error: ((await again.json()) as { error: string }).error }).toEqual({ status: 400, error: 'invalid_grant' });
    expect((await introspect(origins[0]!, rotated.access_token)).active).toBe(false);
    expect((await userinfo(origins[0]!, rotated.access_token)).status).toBe(401);
  });

  it('a manual failover (the old master, still up, answers MOVED) under a refresh loop of 20 clients: 0 × 500, every failure a clean 503', async () => {
    const [master] = await cluster.masters();
    const report = await refreshLoop(10_000, async () => {
      await cluster.failover(master!);
    });
    expectNoServerErrors(report);
  }, 60_000);

  it('a master that hangs (SIGSTOP) under a refresh loop of 20 clients: every request answered within the bound, 0 × 500, every grant kept', async () => {
    const [victim] = await cluster.masters();
    try {
      const report = await refreshLoop(LOOP_MS, async () => {
        cluster.pauseNode(victim!);
        // its replica takes over once the other nodes time it out (cluster-node-timeout)
        await cluster.waitUntilHealthy({ deadPort: victim, timeoutMs: LOOP_MS });
      });
      expectNoServerErrors(report);
      expect(report.statuses['503 temporarily_unavailable'] ?? 0).toBeGreaterThan(0);
      expect(report.okRefreshesAfterDisruption).toBeGreaterThan(0);
      // the adapter's bound (3 s, adapters/redis.ts CALL_TIMEOUT_MS) plus a request's own time
      // on a loaded machine, for a node that accepts connections and answers nothing: not the
      // 10 s and more of commands queued unsent behind a stuck auto-pipeline
      expect(report.slowestMs).toBeLessThan(STORAGE_BOUND_MS + 2_000);
    } finally {
      // back, it rejoins as a replica of the node that took over: the pair has a replica again
      cluster.resumeNode(victim!);
      await cluster.waitUntilHealthy({ timeoutMs: LOOP_MS });
    }
  }, 60_000);

  it('a master killed under a refresh loop of 20 clients: 0 × 500, every failure a clean 503, every grant kept, service back after the failover', async () => {
    const [victim] = await cluster.masters();
    const report = await refreshLoop(LOOP_MS, async () => {
      await cluster.killNode(victim!);
      await cluster.waitUntilHealthy({ deadPort: victim, timeoutMs: LOOP_MS });
    });
    expectNoServerErrors(report);
    // a dead master is an outage until its replica takes over, and the service comes back
    expect(report.statuses['503 temporarily_unavailable'] ?? 0).toBeGreaterThan(0);
    expect(report.okRefreshesAfterDisruption).toBeGreaterThan(0);
  }, 60_000);

  it('a live resharding (keys migrated slot by slot: MOVED, ASK, TRYAGAIN) under a refresh loop of 20 clients: 0 × 500, every grant kept', async () => {
    const [first, second] = await cluster.masters();
    const report = await refreshLoop(LOOP_MS, async () => {
      // there and back: 1000 slots of one master's, with their keys, moved while clients refresh
      await cluster.reshard(first!, second!, 1000);
      await cluster.reshard(second!, first!, 1000);
    });
    expectNoServerErrors(report);
    expect(report.okRefreshesAfterDisruption).toBeGreaterThan(0);
  }, 90_000);
});

interface LoopReport {
  scenario: string;
  disruptedAtMs: number;
  /** from the start of the disruption until every node agreed the cluster was healthy again */
  disruptionMs: number;
  /** status and error of every response */
  statuses: Record<string, number>;
  grantsSurvived: string;
  okRefreshesAfterDisruption: number;
  /** the slowest answer of the loop, whatever its status */
  slowestMs: number;
  unexpected: string[];
}

/**
 * 20 clients, each with its own grant, refresh in a loop for `durationMs` through A and B in
 * turn, retrying the same token after a 503 as a client told "retry later" does; `disrupt`
 * runs after KILL_AFTER_MS. Then every grant still alive must refresh once more.
 */
async function refreshLoop(durationMs: number, disrupt: () => Promise<void>): Promise<LoopReport> {
  const grants = await Promise.all(Array.from({ length: CLIENTS }, () => grant()));
  const started = Date.now();
  let disruptedAt = 0;
  let recoveredAt = 0;
  let okAfter = 0;
  let slowest = 0;
  const statuses: Record<string, number> = {};
  const unexpected: string[] = [];
  const count = (key: string) => {
    statuses[key] = (statuses[key] ?? 0) + 1;
  };

  const loop = async (index: number): Promise<boolean> => {
    let token = grants[index]!.refresh_token;
    let retrying = false;
    let turn = index;
    while (Date.now() - started < durationMs) {
      const asked = Date.now();
      const res = await refresh(origins[turn++ % 2]!, token);
      const body = (await res.json().catch(() => ({}))) as { error?: string; refresh_token?: string };
      slowest = Math.max(slowest, Date.now() - asked);
      if (res.status === 200) {
        count('200');
        token = body.refresh_token!;
        retrying = false;
        if (recoveredAt && Date.now() > recoveredAt) okAfter += 1;
      } else if (res.status === 503 && body.error === 'temporarily_unavailable') {
        count('503 temporarily_unavailable');
        retrying = true;
      } else {
        // a 400 invalid_grant on a retry would be the grant lost to the fault: refresh grace forbids it
        count(`${res.status} ${body.error ?? ''}`);
        unexpected.push(`client ${index}${retrying ? ' (retrying after a 503)' : ''}: ${res.status} ${JSON.stringify(body)}`);
        return false;
      }
      // a client refreshes now and then, not back to back: keeps 2 cores from saturating
      await sleep(PAUSE_MS);
    }
    grants[index]!.refresh_token = token;
    return true;
  };

  const disruption = (async () => {
    await sleep(KILL_AFTER_MS);
    disruptedAt = Date.now();
    await disrupt();
    recoveredAt = Date.now();
  })();
  const alive = await Promise.all(Array.from({ length: CLIENTS }, (_, i) => loop(i)));
  await disruption;

  let survived = 0;
  for (const [i, isAlive] of alive.entries()) {
    if (!isAlive) continue;
    // as in the loop, a client told "retry later" retries (a node that hung keeps its slots in
    // the client's map until a call to it times out and the adapter has them refreshed)
    let res = await refresh(origins[i % 2]!, grants[i]!.refresh_token);
    for (const until = Date.now() + 10_000; res.status === 503 && Date.now() < until;) {
      await sleep(PAUSE_MS);
      res = await refresh(origins[i % 2]!, grants[i]!.refresh_token);
    }
    expect(res.status).toBe(200);
    survived += 1;
  }
  const report: LoopReport = {
    scenario: expect.getState().currentTestName ?? '',
    disruptedAtMs: disruptedAt - started,
    disruptionMs: recoveredAt - disruptedAt,
    statuses,
    grantsSurvived: `${survived}/${CLIENTS}`,
    okRefreshesAfterDisruption: okAfter,
    slowestMs: slowest,
    unexpected,
  };
  if (process.env.REDIS_CLUSTER_REPORT) console.log(JSON.stringify(report, null, 2));
  // refresh grace (lib/policies/refresh-grace.ts): every client that retried keeps its grant
  expect(survived).toBe(CLIENTS);
  return report;
}

/** Not one 500 (nor any other 5xx but the outage answer), nor any unexplained error. */
function expectNoServerErrors(report: LoopReport): void {
  expect(report.unexpected).toEqual([]);
  expect(Object.keys(report.statuses).filter((key) => key.startsWith('5') && key !== '503 temporarily_unavailable')).toEqual([]);
  expect(report.statuses['200']).toBeGreaterThan(0);
}
