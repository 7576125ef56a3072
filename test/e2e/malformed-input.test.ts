/**
 * Bad input gets a clear 4xx, never a 500, a stack trace, a hang or lost data: about 3,000
 * malformed requests (test/support/malformed-cases.ts) against every endpoint of the demo
 * host, on the memory adapter and on a real Redis. Each offender is sent again alone to
 * confirm it; afterwards the tokens, clients and registrations made before still work, and
 * a new sign-in does. The host app's Koa `error` event must not fire but for requests the
 * client cut off.
 */
import { createRedisAdapter } from '../../adapters/redis.ts';
import type { ClosableAdapterFactory } from '../../adapters/types.ts';
import type { DemoOptions } from '../../examples/host/app.ts';
import { Browser } from '../support/browser.ts';
import { ADMIN, MEMBER, STUDENT, buildAuthorizeUrl, obtainTokens, operator, postForm } from '../support/flows.ts';
import { buildCases } from '../support/malformed-cases.ts';
import { check, runAll, send } from '../support/malformed-requests.ts';
import type { Finding } from '../support/malformed-requests.ts';
import { pkcePair } from '../support/pkce.ts';
import { startRedis } from '../support/redis-server.ts';
import type { RedisHandle } from '../support/redis-server.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

interface Outcome {
  /** confirmed offenders: `[problem] request -> status` */
  readonly findings: string[];
  /** what no longer worked afterwards */
  readonly integrity: string[];
  /** errors that reached the host app's Koa `error` event */
  readonly errors: string[];
}

async function sendMalformed(app: RunningApp): Promise<Outcome> {
  const errors: string[] = [];
  app.app.on('error', (err: Error & { code?: string }) => {
    // Node's parser on a request the client cut off after the app began on it (a body shorter
    // than its Content-Length, broken chunks): Koa hands it to every app's error event, with
    // the socket gone and nothing to answer
    if (err.code?.startsWith('HPE_')) return;
    errors.push(err.stack?.split('\n').slice(0, 3).join(' | ') ?? String(err));
  });
  const scope = { scope: 'openid profile account:read', resource: app.baseUrl };
  const kept = await obtainTokens(app.baseUrl, MEMBER, scope, STUDENT);
  const sent = await obtainTokens(app.baseUrl, MEMBER, scope, STUDENT);
  const refreshed = await obtainTokens(app.baseUrl, MEMBER, scope, STUDENT);
  const op = operator(app.baseUrl, app.operatorSecret);
  const operatorTokens = await obtainTokens(app.baseUrl, op, { scope: 'openid courses:read' }, ADMIN);
  const memberClient = await app.auth.memberClients.create('demo-school', {
    name: 'Malformed input target', redirectUris: ['http://127.0.0.1/cb'], type: 'public', scopes: ['openid', 'account:read'],
  });

  // an interaction waiting for sign-in, and its browser's cookies
  const browser = new Browser(app.baseUrl);
  const { challenge } = pkcePair();
  const started = await browser.request(buildAuthorizeUrl(app.baseUrl, MEMBER, { scope: 'openid account:read', resource: app.baseUrl, challenge, state: 'abc' }));
  const uid = new URL(started.headers.get('location')!, app.baseUrl).pathname.split('/').pop()!;
  const cookies = ['_interaction', '_interaction.sig', '_interaction_resume', '_interaction_resume.sig', '_session', '_session.sig']
    .map((name) => [name, browser.cookie(name)] as const).filter(([, value]) => value).map(([name, value]) => `${name}=${value}`).join('; ');

  const cases = buildCases({
    baseUrl: app.baseUrl, memberToken: sent.access_token, refreshToken: refreshed.refresh_token!, operatorToken: operatorTokens.access_token,
    operatorSecret: app.operatorSecret, uid, cookies,
  });
  expect(cases.length).toBeGreaterThan(2_000);
  const { findings: first } = await runAll(app.port, cases, 6);
  // an offender counts when it offends alone too (a hang under load may be load)
  const confirmed: Finding[] = [];
  for (const name of new Set(first.map((f) => f.name))) {
    const request = cases.find((c) => c.name === name)!;
    confirmed.push(...check(request, await send(app.port, request)));
  }

  const integrity: string[] = [];
  const graphql = await fetch(`${app.baseUrl}/account/graphql`, {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${kept.access_token}` }, body: '{"query":"{ viewer { id } }"}',
  });
  const graphqlBody = await graphql.text();
  if (graphql.status !== 200 || !graphqlBody.includes('"id":"acc-student"')) integrity.push(`kept token at /account/graphql: ${graphql.status} ${graphqlBody.slice(0, 200)}`);
  const introspected = await (await postForm(`${app.baseUrl}/api/oauth/introspect`, { token: kept.access_token, client_id: MEMBER.clientId })).json();
  if (introspected.active !== true) integrity.push(`kept token introspected: ${JSON.stringify(introspected)}`);
  const refresh = await postForm(`${app.baseUrl}/api/oauth/token`, { grant_type: 'refresh_token', refresh_token: kept.refresh_token!, client_id: MEMBER.clientId });
  if (refresh.status !== 200) integrity.push(`kept refresh token: ${refresh.status} ${(await refresh.text()).slice(0, 200)}`);
  const courses = await fetch(`${app.baseUrl}/admin/api/courses`, { headers: { authorization: `Bearer ${operatorTokens.access_token}` } });
  if (courses.status !== 200) integrity.push(`operator token at the host's API: ${courses.status}`);
  const clients = await app.auth.memberClients.list('demo-school');
  if (!clients.some((c) => c.clientId === memberClient.client.clientId)) integrity.push('the member client made before is gone');
  const registered = await (await fetch(`${app.baseUrl}/api/oauth/register`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"client_name":"Acme LMS"}',
  })).json();
  if (registered.client_id !== 'acme-lms') integrity.push(`Variant A lookup of Acme LMS: ${JSON.stringify(registered)}`);
  try {
    await obtainTokens(app.baseUrl, MEMBER, scope, STUDENT);
  } catch (err) {
    integrity.push(`a new sign-in afterwards: ${(err as Error).message}`);
  }
  return { findings: confirmed.map((f) => `[${f.problem}] ${f.request} -> ${f.status}: ${f.excerpt.slice(0, 160)}`), integrity, errors };
}

async function expectClean(options: DemoOptions): Promise<void> {
  const app = await startApp(options);
  try {
    const outcome = await sendMalformed(app);
    expect(outcome).toEqual({ findings: [], integrity: [], errors: [] });
  } finally {
    await app.stop();
  }
}

it('on the memory adapter', async () => {
  await expectClean({});
}, 300_000);

describe('on Redis', () => {
  let redis: RedisHandle;
  let adapter: ClosableAdapterFactory;
  beforeAll(async () => {
    redis = await startRedis({ forceSpawn: true });
    adapter = createRedisAdapter({ url: redis.url, keyPrefix: 'malformed:', logger: { info() {}, warn() {} } });
  });
  afterAll(async () => {
    await adapter?.close();
    await redis?.stop();
  });

  it('the same', async () => {
    await expectClean({ auth: { adapter } });
  }, 300_000);
});
