/**
 * The viewer query over real HTTP with tokens from a real code flow: the seeded data, only
 * the member's own at the token's site, pagination, and the cap on `first`.
 */
import { createDemoMemberData } from '../../examples/host/member-data.ts';
import { ADMIN, OUTSIDER, STUDENT } from '../support/flows.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import { OTHER_SCHOOL_MEMBER, VIEWER_QUERY, clientsWithOtherSchool, graphql, memberToken } from './support.ts';

let app: RunningApp;
let student: string;

beforeAll(async () => {
  app = await startApp();
  student = await memberToken(app, STUDENT);
});
afterAll(() => app.stop());

type Json = any;

async function allEnrolments(token: string, first: number): Promise<{ pages: Json[]; slugs: string[] }> {
  const pages: Json[] = [];
  let after: string | null = null;
  for (let i = 0; i < 50; i += 1) {
    const res = await graphql(app, token, 'query ($first: Int, $after: String) { viewer { enrolledCourses(first: $first, after: $after) { nodes { slug } pageInfo { hasNextPage endCursor } totalCount } } }', { first, after });
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    const connection = res.body.data.viewer.enrolledCourses;
    pages.push(connection);
    if (!connection.pageInfo.hasNextPage) break;
    after = connection.pageInfo.endCursor;
  }
  return { pages, slugs: pages.flatMap((p) => p.nodes.map((n: Json) => n.slug)) };
}

describe('the viewer', () => {
  let viewer: Json;
  beforeAll(async () => {
    const res = await graphql(app, student, VIEWER_QUERY, { first: 3 });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body.errors).toBeUndefined();
    viewer = res.body.data.viewer;
  });

  it('is the signed-in member', () => {
    expect(viewer.id).toBe('acc-student');
    expect(viewer.email).toBe('student@example.com');
  });

  it('shares the email address only with the email scope, as UserInfo does (the member consented to account:read, not to the address)', async () => {
    const withoutEmail = await memberToken(app, STUDENT, 'openid profile account:read');
    const res = await graphql(app, withoutEmail, '{ viewer { id email } }');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { viewer: { id: 'acc-student', email: null } } });
    const userinfo = await (await fetch(`${app.baseUrl}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${withoutEmail}` } })).json() as Json;
    expect(userinfo.email).toBeUndefined();
  });

  it('lists enrolments with ISO dates, lifetime access without an expiry, and progress', () => {
    const { nodes, pageInfo, totalCount } = viewer.enrolledCourses;
    expect(totalCount).toBe(27);
    expect(pageInfo.hasNextPage).toBe(true);
    expect(nodes.map((n: Json) => n.slug)).toEqual(['watercolour-basics', 'colour-theory', 'figure-drawing']);
    expect(nodes[0]).toEqual({
      slug: 'watercolour-basics', title: 'Watercolour Basics', enrolledAt: '2025-06-01T00:00:00.000Z',
      expireDate: null, hasLifetimeAccess: true, lastWatchedLecture: { lectureId: 'watercolour-basics-l1', positionSeconds: 67 },
    });
    expect(nodes[1]).toMatchObject({ hasLifetimeAccess: false, expireDate: '2026-02-01T00:00:00.000Z' });
    // every third course has no progress yet
    expect(nodes[2].lastWatchedLecture).toBeNull();
    for (const n of nodes) expect(new Date(n.enrolledAt).toISOString()).toBe(n.enrolledAt);
  });

  it('lists orders with items and exact totals, and event registrations', () => {
    expect(viewer.orders.totalCount).toBe(3);
    const paid = viewer.orders.nodes.find((o: Json) => o.id === 'ord-1002');
    expect(paid).toEqual({
      id: 'ord-1002', number: '2025-0102', status: 'PAID', createdAt: '2025-04-02T08:00:00.000Z',
      total: { amount: '39.99', currency: 'EUR' },
      items: [
        { title: 'Live Q&A: Colour Theory (ticket)', kind: 'EVENT', quantity: 2, total: { amount: '30.00', currency: 'EUR' } },
        { title: 'Brush Cheat Sheet', kind: 'DIGITAL_PRODUCT', quantity: 1, total: { amount: '9.99', currency: 'EUR' } },
      ],
    });
    expect(viewer.orders.nodes.map((o: Json) => o.status)).toEqual(['REFUNDED', 'PAID', 'PAID']);
    expect(viewer.eventRegistrations).toEqual({
      nodes: [
        { id: 'reg-2', status: 'REGISTERED', registeredAt: '2025-05-28T09:00:00.000Z', event: { id: 'ev-qa-colour', title: 'Live Q&A: Colour Theory', startsAt: '2025-07-10T17:00:00.000Z' } },
        { id: 'reg-1', status: 'ATTENDED', registeredAt: '2025-03-01T09:00:00.000Z', event: { id: 'ev-sketch-meetup', title: 'Urban Sketching Meetup', startsAt: '2025-03-15T14:00:00.000Z' } },
      ],
      pageInfo: { hasNextPage: false, endCursor: expect.any(String) },
      totalCount: 2,
    });
  });
});

describe('pagination', () => {
  it.each([1, 7, 10, 27, 100])('walks every enrolment exactly once with first: %i', async (first) => {
    const { pages, slugs } = await allEnrolments(student, first);
    expect(pages).toHaveLength(Math.ceil(27 / first));
    expect(slugs).toHaveLength(27);
    expect(new Set(slugs).size).toBe(27);
    expect(pages.every((p) => p.totalCount === 27)).toBe(true);
    expect(pages.at(-1).pageInfo.hasNextPage).toBe(false);
  });

  it('answers 20 items when first is left out', async () => {
    const res = await graphql(app, student, '{ viewer { enrolledCourses { nodes { slug } } } }');
    expect(res.body.data.viewer.enrolledCourses.nodes).toHaveLength(20);
  });

  it('refuses first above the cap with a BAD_USER_INPUT error naming the cap', async () => {
    const res = await graphql(app, student, '{ viewer { id enrolledCourses(first: 101) { totalCount } orders(first: 2) { totalCount } } }');
    expect(res.status).toBe(200);
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0]).toMatchObject({
      message: expect.stringContaining('at most 100'),
      path: ['viewer', 'enrolledCourses'],
      extensions: { code: 'BAD_USER_INPUT', reason: 'PAGE_SIZE_TOO_LARGE', argument: 'first', maximum: 100 },
    });
    // the error stays on its field: the rest of the answer is there
    expect(res.body.data.viewer).toEqual({ id: 'acc-student', enrolledCourses: null, orders: { totalCount: 3 } });
  });

  it('refuses the same through a variable, and a negative first', async () => {
    const viaVariable = await graphql(app, student, 'query ($n: Int) { viewer { orders(first: $n) { totalCount } } }', { n: 1000 });
    expect(viaVariable.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'PAGE_SIZE_TOO_LARGE' });
    const negative = await graphql(app, student, '{ viewer { orders(first: -1) { totalCount } } }');
    expect(negative.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'INVALID_PAGE_SIZE' });
  });

  it('refuses a forged cursor and a cursor of another list', async () => {
    const orders = await graphql(app, student, '{ viewer { orders(first: 1) { pageInfo { endCursor } } } }');
    const ordersCursor = orders.body.data.viewer.orders.pageInfo.endCursor;
    for (const after of [ordersCursor, 'bm9wZQ', 'x'.repeat(300)]) {
      const res = await graphql(app, student, 'query ($after: String) { viewer { enrolledCourses(after: $after) { totalCount } } }', { after });
      expect(res.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'INVALID_CURSOR', argument: 'after' });
    }
  });
});

describe('only the member\'s own data', () => {
  it('never shows the student\'s enrolment at another site', async () => {
    const { slugs } = await allEnrolments(student, 100);
    expect(slugs).not.toContain('alumni-masterclass');
    expect(slugs).not.toContain('staff-onboarding');
  });

  it('shows another member of the same site only their own', async () => {
    const admin = await memberToken(app, ADMIN);
    const res = await graphql(app, admin, VIEWER_QUERY);
    expect(res.body.data.viewer).toMatchObject({
      id: 'acc-admin',
      email: 'admin@example.com',
      enrolledCourses: { totalCount: 1, nodes: [{ slug: 'staff-onboarding' }] },
      orders: { totalCount: 0, nodes: [] },
      eventRegistrations: { totalCount: 0, nodes: [] },
    });
  });

  it('shows a member at another site only theirs, at that site', async () => {
    const other = await startApp({ auth: { clients: clientsWithOtherSchool() } });
    try {
      const outsider = await memberToken(other, OUTSIDER, 'openid email account:read', OTHER_SCHOOL_MEMBER);
      const res = await graphql(other, outsider, VIEWER_QUERY);
      expect(res.status).toBe(200);
      const viewer = res.body.data.viewer;
      expect(viewer.id).toBe('acc-outsider');
      expect(viewer.email).toBe('outsider@example.com');
      expect(viewer.enrolledCourses.nodes.map((n: Json) => n.slug)).toEqual(['music-theory', 'guitar-for-beginners']);
      expect(viewer.orders.nodes.map((o: Json) => [o.number, o.total])).toEqual([['OS-0001', { amount: '15.00', currency: 'USD' }]]);
      expect(viewer.eventRegistrations.nodes.map((r: Json) => r.status)).toEqual(['WAITLISTED']);

      // the student at other-school (no role there) cannot use its member client at all
      await expect(memberToken(other, STUDENT, 'openid account:read', OTHER_SCHOOL_MEMBER)).rejects.toThrow();
    } finally {
      await other.stop();
    }
  });
});

it('answers a position kept in fractions of a second (a video\'s currentTime) in whole seconds, not as an error', async () => {
  const demo = createDemoMemberData();
  const fractional = await startApp({
    auth: {
      memberData: {
        ...demo,
        findLastWatchedLectures: async (member, slugs) => (await demo.findLastWatchedLectures(member, slugs))
          .map((p) => ({ ...p, positionSeconds: p.positionSeconds + 0.5 })),
      },
    },
  });
  try {
    const token = await memberToken(fractional, STUDENT);
    const query = '{ viewer { enrolledCourses(first: 5) { nodes { slug lastWatchedLecture { lectureId positionSeconds } } } } }';
    const res = await graphql(fractional, token, query);
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    const expected = await graphql(app, student, query);
    expect(res.body.data).toEqual(expected.body.data);
    expect(JSON.stringify(res.body.data)).toContain('positionSeconds');
    // nothing logged as an error of the query (start-up warnings aside)
    expect(fractional.warnings.filter((line) => /Int cannot represent|Unexpected error/.test(line))).toEqual([]);
  } finally {
    await fractional.stop();
  }
});
