/**
 * An outage of the member-data source (StorageUnavailableError or TemporarilyUnavailableError,
 * also as the cause of the source's own error) is not a bug: the failed field is a
 * SERVICE_UNAVAILABLE error saying to retry, nothing is logged, and an answer left without
 * data is a 503 with Retry-After, never a 500. Any other failure is still masked as
 * INTERNAL_SERVER_ERROR and logged.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import Koa from 'koa';

import { StorageUnavailableError } from '../../adapters/types.ts';
import { createDemoMemberData } from '../../examples/host/member-data.ts';
import { createAccountApi, createAccountApiEngine, resolveAccountApiOptions } from '../../lib/account-api/index.ts';
import type { AccountApiContext } from '../../lib/account-api/index.ts';
import type { Logger } from '../../lib/contracts.ts';
import { TemporarilyUnavailableError } from '../../lib/errors.ts';
import type { MemberDataSource } from '../../lib/member-data/index.ts';
import { RETRY_AFTER_SECONDS } from '../../lib/storage/outage.ts';
import { STUDENT } from '../support/flows.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import { GRAPHQL_PATH, graphql, memberToken } from './support.ts';

const UNAVAILABLE = { message: 'The service is temporarily unavailable; retry later.', extensions: { code: 'SERVICE_UNAVAILABLE' } };

interface LogLine { level: 'warn' | 'error'; message: string }

function recordingLogger(lines: LogLine[]): Logger {
  return { info() {}, warn: (message) => lines.push({ level: 'warn', message }), error: (message) => lines.push({ level: 'error', message }) };
}

describe('an outage of the data source, over HTTP', () => {
  let app: RunningApp;
  let token: string;
  const lines: LogLine[] = [];
  beforeAll(async () => {
    const demo = createDemoMemberData();
    const source: MemberDataSource = {
      ...demo,
      async listOrders() {
        throw new StorageUnavailableError('orders database unreachable');
      },
      async listEventRegistrations() {
        // the host's own error, caused by the outage
        throw new Error('registrations lookup failed', { cause: new StorageUnavailableError('ECONNREFUSED') });
      },
      async findMember() {
        throw new TemporarilyUnavailableError();
      },
      async listEnrolments() {
        throw new Error('connect ECONNREFUSED db.internal:5432 (password=hunter2)');
      },
    };
    app = await startApp({ auth: { memberData: source, logger: recordingLogger(lines) } });
    token = await memberToken(app, STUDENT);
  });
  afterAll(() => app.stop());

  /** What the library logged while `run` ran. */
  async function loggedDuring<T>(run: () => Promise<T>): Promise<{ result: T; logged: LogLine[] }> {
    const before = lines.length;
    const result = await run();
    return { result, logged: lines.slice(before) };
  }

  it.each([
    ['StorageUnavailableError', 'orders', 'orders { totalCount }'],
    ['an Error caused by StorageUnavailableError', 'eventRegistrations', 'eventRegistrations { totalCount }'],
    ['TemporarilyUnavailableError', 'email', 'email'],
  ])('%s on a nullable field: 200, that field null, SERVICE_UNAVAILABLE, nothing logged', async (_name, field, selection) => {
    const { result: res, logged } = await loggedDuring(() => graphql(app, token, `{ viewer { id ${selection} } }`));
    expect(res.status).toBe(200);
    expect(res.body.data.viewer).toEqual({ id: 'acc-student', [field]: null });
    expect(res.body.errors).toEqual([{ ...UNAVAILABLE, locations: [{ line: 1, column: 15 }], path: ['viewer', field] }]);
    // partial data: the coded error says to retry; Retry-After belongs to a 503
    expect(res.headers.get('retry-after')).toBeNull();
    for (const secret of ['unreachable', 'ECONNREFUSED', 'lookup failed', 'stack']) expect(JSON.stringify(res.body)).not.toContain(secret);
    expect(logged).toEqual([]);
  });

  it('next to another failure: each field keeps its own code, and only the fault is logged', async () => {
    const { result: res, logged } = await loggedDuring(() => graphql(app, token, '{ viewer { id orders { totalCount } enrolledCourses { totalCount } } }'));
    expect(res.status).toBe(200);
    expect(res.body.data.viewer).toEqual({ id: 'acc-student', orders: null, enrolledCourses: null });
    const codes = Object.fromEntries(res.body.errors.map((e: any) => [e.path.join('.'), e.extensions.code]));
    expect(codes).toEqual({ 'viewer.orders': 'SERVICE_UNAVAILABLE', 'viewer.enrolledCourses': 'INTERNAL_SERVER_ERROR' });
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: 'error' });
    expect(logged[0]!.message).toContain('viewer.enrolledCourses');
  });

  it('any other failure is still INTERNAL_SERVER_ERROR "Unexpected error.", logged as an error', async () => {
    const { result: res, logged } = await loggedDuring(() => graphql(app, token, '{ viewer { id enrolledCourses { totalCount } } }'));
    expect(res.status).toBe(200);
    expect(res.body.errors).toEqual([{
      message: 'Unexpected error.', locations: [{ line: 1, column: 15 }], path: ['viewer', 'enrolledCourses'], extensions: { code: 'INTERNAL_SERVER_ERROR' },
    }]);
    expect(logged).toEqual([{ level: 'error', message: expect.stringContaining('ECONNREFUSED') }]);
  });
});

/**
 * No data at all: the schema's data-source fields are nullable, so an outage reaches the root
 * only through a non-null field or the executor. Driven through the engine (the schema, the
 * resolvers and the masking as served) with an account that fails where no source can today.
 */
describe('an outage that leaves no data', () => {
  const lines: LogLine[] = [];
  const engine = createAccountApiEngine(resolveAccountApiOptions(undefined, false), recordingLogger(lines));
  beforeEach(() => { lines.length = 0; });

  /** An account whose member cannot be read: Viewer.id (non-null) fails and nulls the root. */
  function accountFailingWith(error: Error): AccountApiContext {
    return { account: { get member(): never { throw error; } }, scopes: new Set(['account:read']) } as unknown as AccountApiContext;
  }

  const params = { query: '{ viewer { id } }', variables: undefined, operationName: undefined };

  it.each([
    ['StorageUnavailableError', () => new StorageUnavailableError()],
    ['an Error caused by TemporarilyUnavailableError', () => new Error('member lookup failed', { cause: new TemporarilyUnavailableError() })],
  ])('%s under a non-null field: 503 with Retry-After and SERVICE_UNAVAILABLE, nothing logged', async (_name, error) => {
    const answer = await engine.run(params, accountFailingWith(error()));
    expect(answer.status).toBe(503);
    expect(answer.headers).toEqual({ 'Retry-After': String(RETRY_AFTER_SECONDS) });
    expect(answer.body.data).toBeNull();
    expect(answer.body.errors).toEqual([{ ...UNAVAILABLE, locations: [{ line: 1, column: 12 }], path: ['viewer', 'id'] }]);
    expect(lines).toEqual([]);
  });

  it('an outage that stops the executor itself: 503 with Retry-After', async () => {
    // reading the variables is the executor's first step, before any resolver
    const variables = new Proxy({}, { getOwnPropertyDescriptor() { throw new StorageUnavailableError(); } });
    const answer = await engine.run({ query: 'query ($first: Int) { viewer { enrolledCourses(first: $first) { totalCount } } }', variables, operationName: undefined }, accountFailingWith(new Error('unused')));
    expect(answer.status).toBe(503);
    expect(answer.headers).toEqual({ 'Retry-After': String(RETRY_AFTER_SECONDS) });
    expect(answer.body.data).toBeUndefined();
    expect(answer.body.errors).toEqual([UNAVAILABLE]);
    expect(lines).toEqual([]);
  });

  it('any other failure there is still INTERNAL_SERVER_ERROR with data null (200, as before), logged, without Retry-After', async () => {
    const answer = await engine.run(params, accountFailingWith(new TypeError('member is broken')));
    expect(answer.status).toBe(200);
    expect(answer.headers).toBeUndefined();
    expect(answer.body.data).toBeNull();
    expect(answer.body.errors).toEqual([{ message: 'Unexpected error.', locations: [{ line: 1, column: 12 }], path: ['viewer', 'id'], extensions: { code: 'INTERNAL_SERVER_ERROR' } }]);
    expect(lines).toEqual([{ level: 'error', message: expect.stringContaining('member is broken') }]);
  });
});

describe('an outage that leaves no data, over HTTP', () => {
  it('is answered 503 with Retry-After and Cache-Control: no-store', async () => {
    // the stand-in of the engine tests, through the router: a member id that fails with the
    // outage (here when Viewer.id serializes it), so that the non-null field nulls the root
    const sub = { valueOf(): never { throw new StorageUnavailableError(); } };
    const caller = { sub, clientId: 'app', audience: 'member', site: 'demo-school', roles: [], scopes: new Set(['account:read']), expiresAt: 0, grantId: 'grant' };
    const app = new Koa();
    app.use(createAccountApi({
      bearer: { verifyHeader: async () => caller } as never,
      // the account is there: the outage is the data source's
      accounts: { findById: async () => ({ id: 'acc', email: 'a@example.com', roles: {} }) } as never,
      resourceMetadata: 'http://127.0.0.1/.well-known/oauth-protected-resource',
      dataSource: createDemoMemberData(),
      options: resolveAccountApiOptions(undefined, false),
      production: false,
      logger: recordingLogger([]),
    }));
    const server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}${GRAPHQL_PATH}`, {
        method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer unused' }, body: JSON.stringify({ query: '{ viewer { id } }' }),
      });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe(String(RETRY_AFTER_SECONDS));
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(await res.json()).toEqual({ data: null, errors: [{ ...UNAVAILABLE, locations: [{ line: 1, column: 12 }], path: ['viewer', 'id'] }] });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
