/**
 * What a host's data source throws never reaches the caller as it was: a GraphQLError it
 * re-throws from an upstream GraphQL call is masked and logged like any failure (not passed
 * on as the caller's input error); a document nested deeper than the parser's stack, or
 * fragments nested deeper than the rules' and the executor's, is a 400, not a 500; and a
 * page-size cap below the default lowers the default with it.
 */
import { GraphQLError } from 'graphql';

import { createDemoMemberData } from '../../examples/host/member-data.ts';
import type { MemberDataSource } from '../../lib/index.ts';
import { STUDENT } from '../support/flows.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import { graphql, memberToken } from './support.ts';

describe('a data source that throws a GraphQLError (an upstream GraphQL call)', () => {
  let app: RunningApp;
  let token: string;
  let upstream: GraphQLError | undefined;
  beforeAll(async () => {
    const demo = createDemoMemberData();
    const source: MemberDataSource = {
      ...demo,
      async findMember(member) {
        if (upstream) throw upstream;
        return demo.findMember(member);
      },
    };
    app = await startApp({ auth: { memberData: source, accountApi: { maxTokens: 10_000 } } });
    token = await memberToken(app, STUDENT);
  });
  afterAll(() => app.stop());
  afterEach(() => { upstream = undefined; });

  it.each([
    ['without a code', new GraphQLError('upstream users-db at 10.0.3.7:5432: password authentication failed for user "svc_account"')],
    ['with a code of its own', new GraphQLError('SELECT * FROM members WHERE id=$1 timed out', { extensions: { code: 'DB_TIMEOUT' } })],
  ])('%s: masked as INTERNAL_SERVER_ERROR at its field, and logged with the request id', async (_label, error) => {
    upstream = error;
    const before = app.warnings.length;
    const res = await graphql(app, token, '{ viewer { id email } }');
    expect(res.status).toBe(200);
    expect(res.body.errors).toEqual([{ message: 'Unexpected error.', locations: expect.any(Array), path: ['viewer', 'email'], extensions: { code: 'INTERNAL_SERVER_ERROR' } }]);
    expect(JSON.stringify(res.body)).not.toContain(error.message.slice(0, 20));
    const logged = app.warnings.slice(before).filter((w) => w.includes('the Account API failed'));
    expect(logged).toEqual([expect.stringContaining(error.message)]);
    expect(logged[0]).toMatch(/\[request [0-9a-f-]{36}\]/);
  });

  it('graphql-js\'s own input errors stay the caller\'s (BAD_USER_INPUT), unlogged', async () => {
    const before = app.warnings.length;
    const res = await graphql(app, token, 'query ($n: Int) { viewer { orders(first: $n) { totalCount } } }', { n: 'ten' });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(app.warnings.slice(before)).toEqual([]);
  });

  it('a variable of the wrong type is named, with where it is defined (graphql-js\'s message, not the scalar\'s inside it)', async () => {
    const res = await graphql(app, token,
      'query ($a: Int, $b: Int) { viewer { orders(first: $a) { totalCount } enrolledCourses(first: $b) { totalCount } } }',
      { a: 1, b: 'x' });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{
      message: expect.stringMatching(/^Variable "\$b" got invalid value "x"; Int cannot represent non-integer value: "x"$/),
      locations: [{ line: 1, column: 17 }],
      extensions: { code: 'BAD_USER_INPUT' },
    }]);
  });

  it('a document nested deeper than the parser\'s stack (within a raised maxTokens) is 400 GRAPHQL_PARSE_FAILED, not a 500', async () => {
    const depth = 2500;
    const res = await graphql(app, token, `{ viewer { ${'...{'.repeat(depth)} id ${'}'.repeat(depth)} } }`);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('GRAPHQL_PARSE_FAILED');
  });
});

describe('fragments nested in one another, within the largest maxTokens', () => {
  let app: RunningApp;
  let token: string;
  beforeAll(async () => {
    app = await startApp({ auth: { accountApi: { maxTokens: 100_000, maxBodyBytes: 1024 * 1024 } } });
    token = await memberToken(app, STUDENT);
  });
  afterAll(() => app.stop());

  it.each([12_000, 5_000, 101])('a chain of %i named fragments (parsed flat within a raised maxTokens) is 400 QUERY_TOO_DEEP, not a 500 or a stack overflow', async (n) => {
    const fragments = Array.from({ length: n }, (_, i) => `fragment F${i} on Viewer { ${i + 1 < n ? `...F${i + 1}` : 'id'} }`);
    const before = app.warnings.length;
    const res = await graphql(app, token, `{ viewer { ...F0 } }\n${fragments.join('\n')}`);
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { extensions: { code: string } }) => e.extensions.code)).toContain('QUERY_TOO_DEEP');
    expect(res.body.errors.map((e: { extensions: { code: string } }) => e.extensions.code)).not.toContain('INTERNAL_SERVER_ERROR');
    expect(app.warnings.slice(before)).toEqual([]);
  });
});

describe('maxPageSize below the default page size', () => {
  let app: RunningApp;
  let token: string;
  beforeAll(async () => {
    app = await startApp({ auth: { accountApi: { maxPageSize: 10 } } });
    token = await memberToken(app, STUDENT);
  });
  afterAll(() => app.stop());

  it('a list that names no first answers a page of the cap, not PAGE_SIZE_TOO_LARGE', async () => {
    const res = await graphql(app, token, '{ viewer { enrolledCourses { totalCount nodes { slug } } orders { totalCount } } }');
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.viewer.enrolledCourses.nodes).toHaveLength(10);
    expect(res.body.data.viewer.enrolledCourses.totalCount).toBeGreaterThan(10);
  });

  it('/auth.md states the default this deployment applies', async () => {
    const md = await (await fetch(`${app.baseUrl}/auth.md`)).text();
    expect(md).toContain('first: Int = 10');
    expect(md).not.toContain('first: Int = 20');
  });
});
