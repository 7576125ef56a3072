/**
 * Requests that cannot run get a 4xx with a coded error, never a 500: bad JSON, wrong media
 * type, oversized bodies, syntax errors, unknown fields, too deep or too costly queries,
 * introspection when it is off. Internal failures are masked.
 */
import { createDemoMemberData } from '../../examples/host/member-data.ts';
import type { MemberDataSource } from '../../lib/member-data/index.ts';
import { STUDENT } from '../support/flows.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import { GRAPHQL_PATH, graphql, memberToken, post } from './support.ts';
import type { GraphQLAnswer } from './support.ts';

let app: RunningApp;
let token: string;

beforeAll(async () => {
  app = await startApp();
  token = await memberToken(app, STUDENT);
});
afterAll(() => app.stop());

function expectRefused(res: GraphQLAnswer, status: number, code: string) {
  expect({ status: res.status, code: res.body?.errors?.[0]?.extensions?.code }).toEqual({ status, code });
  expect(res.body.data).toBeUndefined();
  expect(typeof res.body.errors[0].message).toBe('string');
}

describe('the HTTP request', () => {
  it('non-JSON body: 400 BAD_REQUEST', async () => {
    expectRefused(await post(app, { token, body: '{"query": "{ viewer { id } }"' }), 400, 'BAD_REQUEST');
    expectRefused(await post(app, { token, body: '' }), 400, 'BAD_REQUEST');
  });

  it.each([
    ['a batch', '[{"query": "{ viewer { id } }"}]'],
    ['a JSON string', '"{ viewer { id } }"'],
    ['null', 'null'],
    ['no query', '{"variables": {}}'],
    ['an empty query', '{"query": "  "}'],
    ['a query that is not a string', '{"query": {"viewer": true}}'],
    ['variables that are not an object', '{"query": "{ viewer { id } }", "variables": [1]}'],
    ['an operationName that is not a string', '{"query": "{ viewer { id } }", "operationName": 3}'],
  ])('%s: 400 BAD_REQUEST', async (_name, body) => {
    expectRefused(await post(app, { token, body }), 400, 'BAD_REQUEST');
  });

  it('another media type: 415', async () => {
    expectRefused(await post(app, { token, body: '{ viewer { id } }', contentType: 'application/graphql' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectRefused(await post(app, { token, body: 'query={viewer{id}}', contentType: 'application/x-www-form-urlencoded' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectRefused(await post(app, { token, body: '{"query":"{ viewer { id } }"}', contentType: 'application/json; charset=latin1' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    const ok = await post(app, { token, body: '{"query":"{ viewer { id } }"}', contentType: 'Application/JSON; charset=UTF-8' });
    expect(ok.status).toBe(200);
  });

  it('a body over the limit: 413, by Content-Length or while streaming', async () => {
    const big = JSON.stringify({ query: `{ viewer { id } } # ${'x'.repeat(40_000)}` });
    expectRefused(await post(app, { token, body: big }), 413, 'REQUEST_ENTITY_TOO_LARGE');
    // chunked, so no Content-Length to go by: counted while reading
    const chunk = new TextEncoder().encode(`{"query": "{ viewer { id } }", "pad": "${'y'.repeat(8_000)}`);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += 1;
        controller.enqueue(chunk);
        if (sent > 20) controller.close();
      },
    });
    const res = await post(app, { token, body: stream });
    expectRefused(res, 413, 'REQUEST_ENTITY_TOO_LARGE');
    expect(res.headers.get('connection')).toBe('close');
  });

  it('a method other than POST: 405 with Allow: POST', async () => {
    const res = await fetch(`${app.baseUrl}${GRAPHQL_PATH}?query=%7Bviewer%7Bid%7D%7D`, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect((await res.json()).errors[0].extensions.code).toBe('METHOD_NOT_ALLOWED');
  });
});

describe('the GraphQL document', () => {
  it('a syntax error: 400 GRAPHQL_PARSE_FAILED with its location', async () => {
    const res = await graphql(app, token, '{ viewer { id ');
    expectRefused(res, 400, 'GRAPHQL_PARSE_FAILED');
    expect(res.body.errors[0].locations).toEqual([{ line: 1, column: 15 }]);
  });

  it('too many tokens: 400 before validation', async () => {
    const ids = Array.from({ length: 2100 }, () => 'id').join(' ');
    const res = await graphql(app, token, `{ viewer { ${ids} } }`);
    expectRefused(res, 400, 'GRAPHQL_PARSE_FAILED');
    expect(res.body.errors[0].message).toMatch(/2000 tokens/);
  });

  it('an unknown field: 400 GRAPHQL_VALIDATION_FAILED', async () => {
    expectRefused(await graphql(app, token, '{ viewer { password } }'), 400, 'GRAPHQL_VALIDATION_FAILED');
    expectRefused(await graphql(app, token, '{ member(id: "acc-admin") { email } }'), 400, 'GRAPHQL_VALIDATION_FAILED');
  });

  it('a mutation: 400 OPERATION_NOT_SUPPORTED (the API is read-only)', async () => {
    expectRefused(await graphql(app, token, 'mutation { viewer { id } }'), 400, 'OPERATION_NOT_SUPPORTED');
  });

  it('variables of the wrong type, or an unnamed pick among operations: 400 BAD_USER_INPUT', async () => {
    expectRefused(await graphql(app, token, 'query ($n: Int) { viewer { orders(first: $n) { totalCount } } }', { n: 'ten' }), 400, 'BAD_USER_INPUT');
    expectRefused(await graphql(app, token, 'query A { viewer { id } } query B { viewer { email } }'), 400, 'BAD_USER_INPUT');
    expectRefused(await post(app, { token, body: JSON.stringify({ query: 'query A { viewer { id } }', operationName: 'C' }) }), 400, 'BAD_USER_INPUT');
    const named = await post(app, { token, body: JSON.stringify({ query: 'query A { viewer { id } } query B { viewer { email } }', operationName: 'B' }) });
    expect(named.body).toEqual({ data: { viewer: { email: 'student@example.com' } } });
  });

  it('too costly: 400 QUERY_TOO_COSTLY, every time (the refusal is cached, not skipped)', async () => {
    const aliases = Array.from({ length: 5 }, (_, i) => `o${i}: orders(first: 100) { nodes { items { title kind quantity } } }`).join(' ');
    for (let i = 0; i < 2; i += 1) {
      const res = await graphql(app, token, `{ viewer { ${aliases} } }`);
      expectRefused(res, 400, 'QUERY_TOO_COSTLY');
      expect(res.body.errors[0].extensions.maxCost).toBe(10_000);
    }
  });

  it('a misspelt field in development: the suggestion is kept', async () => {
    const res = await graphql(app, token, '{ viewer { emial } }');
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toMatch(/^Cannot query field "emial" on type "Viewer"\. Did you mean "email"\?/);
  });

  it('introspection works in development', async () => {
    const res = await graphql(app, token, '{ __schema { queryType { name } } }');
    expect(res.body).toEqual({ data: { __schema: { queryType: { name: 'Query' } } } });
  });
});

describe('with tighter limits and introspection off', () => {
  let strict: RunningApp;
  let strictToken: string;
  beforeAll(async () => {
    strict = await startApp({ auth: { accountApi: { maxDepth: 4, maxCost: 50, introspection: false, graphiql: false, maxBodyBytes: 2048 } } });
    strictToken = await memberToken(strict, STUDENT);
  });
  afterAll(() => strict.stop());

  it('too deep: 400 QUERY_TOO_DEEP', async () => {
    const res = await graphql(strict, strictToken, '{ viewer { enrolledCourses(first: 1) { nodes { lastWatchedLecture { lectureId } } } } }');
    expectRefused(res, 400, 'QUERY_TOO_DEEP');
    expect(res.body.errors[0].extensions).toMatchObject({ depth: 5, maxDepth: 4 });
    expect((await graphql(strict, strictToken, '{ viewer { enrolledCourses(first: 1) { nodes { slug } } } }')).status).toBe(200);
  });

  it('too costly for its budget: 400 QUERY_TOO_COSTLY', async () => {
    expectRefused(await graphql(strict, strictToken, '{ viewer { enrolledCourses(first: 30) { nodes { slug title } } } }'), 400, 'QUERY_TOO_COSTLY');
  });

  it('introspection off: 400 INTROSPECTION_DISABLED, __typename still answered', async () => {
    expectRefused(await graphql(strict, strictToken, '{ __schema { types { name } } }'), 400, 'INTROSPECTION_DISABLED');
    expectRefused(await graphql(strict, strictToken, '{ __type(name: "Viewer") { name } }'), 400, 'INTROSPECTION_DISABLED');
    expect((await graphql(strict, strictToken, '{ __typename viewer { __typename } }')).body).toEqual({ data: { __typename: 'Query', viewer: { __typename: 'Viewer' } } });
  });

  it('introspection off: a misspelt field is refused without "Did you mean", which would name the schema', async () => {
    const res = await graphql(strict, strictToken, '{ viewer { emial } }');
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toBe('Cannot query field "emial" on type "Viewer".');
    expect(JSON.stringify(res.body)).not.toContain('Did you mean');
  });

  it('its own body limit', async () => {
    expectRefused(await post(strict, { token: strictToken, body: JSON.stringify({ query: `{ viewer { id } } #${'z'.repeat(3000)}` }) }), 413, 'REQUEST_ENTITY_TOO_LARGE');
  });

  it('no GraphiQL: a browser GET is 405', async () => {
    const res = await fetch(`${strict.baseUrl}${GRAPHQL_PATH}`, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(405);
  });
});

describe('GraphiQL', () => {
  it('is served to a browser in development', async () => {
    const res = await fetch(`${app.baseUrl}${GRAPHQL_PATH}`, { headers: { accept: 'text/html,application/xhtml+xml' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toContain('Account API');
  });

  it('cannot be framed, sniffed or given a <base> (it shares its origin with the sign-in and consent pages)', async () => {
    const res = await fetch(`${app.baseUrl}${GRAPHQL_PATH}`, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp.split('; ').sort()).toEqual(["base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'", "object-src 'none'"]);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('cache-control')).toBe('no-store');
  });
});

describe('a failing data source', () => {
  let broken: RunningApp;
  let brokenToken: string;
  beforeAll(async () => {
    const demo = createDemoMemberData();
    const source: MemberDataSource = {
      ...demo,
      async listOrders() {
        throw new Error('connect ECONNREFUSED db.internal:5432 (password=hunter2)');
      },
    };
    broken = await startApp({ auth: { memberData: source } });
    brokenToken = await memberToken(broken, STUDENT);
  });
  afterAll(() => broken.stop());

  it('is masked: 200 with the other fields, one INTERNAL_SERVER_ERROR, nothing of the cause', async () => {
    const res = await graphql(broken, brokenToken, '{ viewer { id orders { totalCount } enrolledCourses(first: 1) { totalCount } } }');
    expect(res.status).toBe(200);
    expect(res.body.data.viewer).toEqual({ id: 'acc-student', orders: null, enrolledCourses: { totalCount: 27 } });
    expect(res.body.errors).toEqual([{
      message: 'Unexpected error.', locations: [{ line: 1, column: 15 }], path: ['viewer', 'orders'], extensions: { code: 'INTERNAL_SERVER_ERROR' },
    }]);
    const text = JSON.stringify(res.body);
    for (const secret of ['hunter2', 'ECONNREFUSED', 'stack', 'at ']) expect(text).not.toContain(secret);
    // the cause goes to the host's logger instead
    expect(broken.warnings.some((w) => w.includes('ECONNREFUSED') && w.includes('viewer.orders'))).toBe(true);
  });
});
