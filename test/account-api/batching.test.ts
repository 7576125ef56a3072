/**
 * No N+1: a page of courses costs one enrolment call and one progress call, however the
 * query spells it (fragments, aliases), counted at the data source. Aliases do not multiply
 * the calls past the query limits: a paged list is charged its page, a query takes at most
 * MAX_LISTS of them, and aliases of one page share its call.
 */
import { createDemoMemberData } from '../../examples/host/member-data.ts';
import { MAX_LISTS } from '../../lib/account-api/index.ts';
import type { MemberDataSource } from '../../lib/member-data/index.ts';
import { encodeCursor } from '../../lib/member-data/pagination.ts';
import { STUDENT } from '../support/flows.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import { graphql, memberToken } from './support.ts';

const calls: { method: string; arg: unknown }[] = [];

function countingSource(inner: MemberDataSource): MemberDataSource {
  return {
    findMember: (m) => { calls.push({ method: 'findMember', arg: undefined }); return inner.findMember(m); },
    listEnrolments: (m, p) => { calls.push({ method: 'listEnrolments', arg: p }); return inner.listEnrolments(m, p); },
    findLastWatchedLectures: (m, slugs) => { calls.push({ method: 'findLastWatchedLectures', arg: [...slugs] }); return inner.findLastWatchedLectures(m, slugs); },
    listOrders: (m, p) => { calls.push({ method: 'listOrders', arg: p }); return inner.listOrders(m, p); },
    listEventRegistrations: (m, p) => { calls.push({ method: 'listEventRegistrations', arg: p }); return inner.listEventRegistrations(m, p); },
  };
}

let app: RunningApp;
let token: string;

beforeAll(async () => {
  app = await startApp({ auth: { memberData: countingSource(createDemoMemberData()) } });
  token = await memberToken(app, STUDENT);
});
afterAll(() => app.stop());
beforeEach(() => {
  calls.length = 0;
});

const count = (method: string) => calls.filter((c) => c.method === method).length;

describe('data loading', () => {
  it('loads a page of 25 courses with their progress in one call each', async () => {
    const res = await graphql(app, token, '{ viewer { id email enrolledCourses(first: 25) { nodes { slug lastWatchedLecture { lectureId positionSeconds } } totalCount } } }');
    expect(res.status).toBe(200);
    const nodes = res.body.data.viewer.enrolledCourses.nodes;
    expect(nodes).toHaveLength(25);
    expect(nodes.filter((n: { lastWatchedLecture: unknown }) => n.lastWatchedLecture !== null).length).toBeGreaterThan(10);
    expect(calls.map((c) => c.method).sort()).toEqual(['findLastWatchedLectures', 'findMember', 'listEnrolments']);
    expect(calls.find((c) => c.method === 'findLastWatchedLectures')!.arg).toEqual(nodes.map((n: { slug: string }) => n.slug));
    expect(calls.find((c) => c.method === 'listEnrolments')!.arg).toEqual({ offset: 0, limit: 25 });
  });

  it('does not look up progress when it is not asked for', async () => {
    await graphql(app, token, '{ viewer { enrolledCourses(first: 25) { nodes { slug } } } }');
    expect(count('findLastWatchedLectures')).toBe(0);
    expect(count('findMember')).toBe(0);
  });

  it('finds progress asked for through fragments and inline fragments', async () => {
    const res = await graphql(app, token, `{ viewer { enrolledCourses(first: 12) { ...Page } } }
      fragment Page on EnrolledCourseConnection { nodes { slug ... on EnrolledCourse { ...Progress } } }
      fragment Progress on EnrolledCourse { lastWatchedLecture { lectureId } }`);
    expect(res.body.data.viewer.enrolledCourses.nodes).toHaveLength(12);
    expect(count('findLastWatchedLectures')).toBe(1);
  });

  it('makes one call per list, not per item, with aliases', async () => {
    const res = await graphql(app, token, `{ viewer {
      a: enrolledCourses(first: 10) { nodes { slug lastWatchedLecture { lectureId } } }
      b: enrolledCourses(first: 5, after: null) { nodes { title lastWatchedLecture { positionSeconds } } }
      orders(first: 3) { nodes { items { title } } }
      eventRegistrations { nodes { event { title } } }
      email e2: email
    } }`);
    expect(res.status).toBe(200);
    expect(count('listEnrolments')).toBe(2);
    expect(count('findLastWatchedLectures')).toBe(2);
    expect(count('listOrders')).toBe(1);
    expect(count('listEventRegistrations')).toBe(1);
    expect(count('findMember')).toBe(1);
    expect(calls).toHaveLength(7);
  });

  it('does not reach the data source for a refused query', async () => {
    await graphql(app, token, '{ viewer { enrolledCourses(first: 1000) { nodes { slug } } } }');
    await graphql(app, token, '{ viewer { nope } }');
    await graphql(app, undefined, '{ viewer { id email } }');
    expect(calls).toEqual([]);
  });
});

describe('aliases of the paged lists', () => {
  const aliases = (n: number, field: (i: number) => string) => `{ viewer { ${Array.from({ length: n }, (_, i) => `a${i}: ${field(i)}`).join(' ')} } }`;
  const expectTooCostly = (res: Awaited<ReturnType<typeof graphql>>) => {
    expect({ status: res.status, codes: res.body.errors?.map((e: { extensions: { code: string } }) => e.extensions.code) }).toMatchObject({ status: 400, codes: expect.arrayContaining(['QUERY_TOO_COSTLY']) });
    expect(res.body.data).toBeUndefined();
  };

  it('refuses 180 full pages that select only __typename (a cost of 1-2 each, 18,000 items fetched), without a data-source call', async () => {
    const res = await graphql(app, token, aliases(180, () => 'orders(first: 100) { __typename }'));
    expect(count('listOrders')).toBe(0);
    expectTooCostly(res);
    expect(res.body.errors[0].extensions).toEqual({ code: 'QUERY_TOO_COSTLY', cost: 1 + 180 * 101, maxCost: 10_000 });
    expect(calls).toEqual([]);
  });

  it(`refuses more than ${MAX_LISTS} paged lists however cheap, without a data-source call`, async () => {
    const many = await graphql(app, token, aliases(332, () => 'orders { __typename }'));
    expect(count('listOrders')).toBe(0);
    expectTooCostly(many);
    expect(many.body.errors).toContainEqual(expect.objectContaining({ extensions: { code: 'QUERY_TOO_COSTLY', lists: 332, maxLists: MAX_LISTS } }));
    // small pages, each another one
    const pages = await graphql(app, token, aliases(MAX_LISTS + 1, (i) => `orders(first: 1, after: "${encodeCursor('orders', i)}") { totalCount }`));
    expect(count('listOrders')).toBe(0);
    expectTooCostly(pages);
    expect(pages.body.errors.map((e: { extensions: unknown }) => e.extensions)).toEqual([{ code: 'QUERY_TOO_COSTLY', lists: MAX_LISTS + 1, maxLists: MAX_LISTS }]);
    expect(calls).toEqual([]);
  });

  it(`answers ${MAX_LISTS} of them, one call each`, async () => {
    const res = await graphql(app, token, aliases(MAX_LISTS, (i) => `orders(first: 1, after: "${encodeCursor('orders', i)}") { totalCount }`));
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(count('listOrders')).toBe(MAX_LISTS);
  });

  it('shares one call among the aliases of one page', async () => {
    const res = await graphql(app, token, `{ viewer {
      a: orders(first: 2) { totalCount }
      b: orders(first: 2, after: null) { nodes { id } }
      c: enrolledCourses(first: 3) { nodes { slug lastWatchedLecture { lectureId } } }
      d: enrolledCourses(first: 3) { nodes { slug lastWatchedLecture { lectureId } } }
      e: enrolledCourses(first: 3) { totalCount }
    } }`);
    expect(res.status).toBe(200);
    const { a, b, c, d, e } = res.body.data.viewer;
    expect({ a: a.totalCount, b: b.nodes.length, e: e.totalCount }).toEqual({ a: 3, b: 2, e: 27 });
    expect(d).toEqual(c);
    expect(calls.map((call) => call.method).sort()).toEqual(['findLastWatchedLectures', 'listEnrolments', 'listOrders']);
  });

  it('still answers every list of the viewer at the cap, one call each', async () => {
    const res = await graphql(app, token, `{ viewer { id email
      enrolledCourses(first: 100) { nodes { slug title enrolledAt expireDate hasLifetimeAccess lastWatchedLecture { lectureId positionSeconds } } pageInfo { hasNextPage endCursor } totalCount }
      orders(first: 100) { nodes { id number status createdAt total { amount currency } items { title kind quantity total { amount currency } } } pageInfo { hasNextPage endCursor } totalCount }
      eventRegistrations(first: 100) { nodes { id status registeredAt event { id title startsAt } } pageInfo { hasNextPage endCursor } totalCount }
    } }`);
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.viewer.enrolledCourses.nodes).toHaveLength(27);
    expect(calls.map((call) => call.method).sort()).toEqual(['findLastWatchedLectures', 'findMember', 'listEnrolments', 'listEventRegistrations', 'listOrders']);
  });
});
