/**
 * Member tools through the SDK's client, with member tokens from real code flows: the seeded
 * student's own data at the token's site, the same token at `/account/graphql`, the step-up
 * answer for a token without `account:read`, and 401 (never anonymous) for a token that is
 * garbage, revoked or bound to another origin.
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import { createAccountStore } from '../../examples/host/seed.ts';
import { MEMBER, STUDENT, ADMIN, obtainTokens, operator, postForm } from '../support/flows.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import {
  challengeParams, connect, connectFailure, expectHttpError, LIBRARY_MEMBER_TOOLS, LIBRARY_PUBLIC_TOOLS, rejection, structured,
  toolErrorText, toolNames,
} from './support.ts';
import type { Connected } from './support.ts';

let app: RunningApp;
let memberToken: string;
let sam: Connected;

beforeAll(async () => {
  app = await startApp();
  memberToken = (await obtainTokens(app.baseUrl, MEMBER, { scope: 'openid profile account:read', resource: app.baseUrl }, STUDENT)).access_token;
  sam = await connect(app, { token: memberToken });
});
afterAll(async () => {
  await sam.close();
  await app.stop();
});

interface EnrolledCourse {
  slug: string;
  title: string;
  enrolledAt: string;
  expireDate: string | null;
  hasLifetimeAccess: boolean;
  lastWatchedLecture: { lectureId: string; positionSeconds: number } | null;
}
interface Page { pageInfo: { hasNextPage: boolean; endCursor: string | null }; totalCount: number }

describe('a member token with account:read', () => {
  it('lists the public tools and the member tools, not the operator tools', async () => {
    expect(await toolNames(sam.client)).toEqual([...LIBRARY_PUBLIC_TOOLS, ...LIBRARY_MEMBER_TOOLS]);
  });

  it('whoami names the student at demo-school', async () => {
    expect(structured(await sam.client.callTool({ name: 'whoami', arguments: {} }))).toEqual(expect.objectContaining({
      authenticated: true, subject: 'acc-student', audience: 'member', site: 'demo-school', clientId: 'demo-member-app',
      roles: ['student'], scopes: ['account:read', 'openid', 'profile'],
    }));
  });

  it('list_my_courses: enrolments with expiry and progress, paged; nothing from another school', async () => {
    const first = structured<Page & { courses: EnrolledCourse[] }>(await sam.client.callTool({ name: 'list_my_courses', arguments: {} }));
    expect(first.totalCount).toBe(27);
    expect(first.courses).toHaveLength(20);
    expect(first.courses[0]).toEqual({
      slug: 'watercolour-basics', title: 'Watercolour Basics', enrolledAt: '2025-06-01T00:00:00.000Z',
      expireDate: null, hasLifetimeAccess: true, lastWatchedLecture: { lectureId: 'watercolour-basics-l1', positionSeconds: 67 },
    });
    expect(first.courses[1]).toEqual(expect.objectContaining({ slug: 'colour-theory', hasLifetimeAccess: false, expireDate: '2026-02-01T00:00:00.000Z' }));
    expect(first.courses[2]!.lastWatchedLecture).toBeNull();

    const rest = structured<Page & { courses: EnrolledCourse[] }>(await sam.client.callTool({ name: 'list_my_courses', arguments: { first: 20, after: first.pageInfo.endCursor } }));
    expect(rest.courses).toHaveLength(7);
    expect(rest.pageInfo.hasNextPage).toBe(false);
    const all = [...first.courses, ...rest.courses].map((c) => c.slug);
    expect(new Set(all).size).toBe(27);
    expect(all).not.toContain('alumni-masterclass');
  });

  it('get_my_progress: where the student left off, with the lecture title from the outline', async () => {
    expect(structured(await sam.client.callTool({ name: 'get_my_progress', arguments: { course: 'watercolour-basics' } }))).toEqual({
      course: 'watercolour-basics',
      lastWatchedLecture: { lectureId: 'watercolour-basics-l1', positionSeconds: 67, title: 'Getting started: part 1' },
      resumeAt: '1:07',
    });
    expect(structured(await sam.client.callTool({ name: 'get_my_progress', arguments: { course: 'figure-drawing' } })))
      .toEqual(expect.objectContaining({ course: 'figure-drawing', lastWatchedLecture: null }));
    // progress at another school is not this token's to read
    expect(structured(await sam.client.callTool({ name: 'get_my_progress', arguments: { course: 'alumni-masterclass' } })))
      .toEqual(expect.objectContaining({ lastWatchedLecture: null }));
  });

  it('list_my_orders: amounts as exact decimals', async () => {
    const { orders, totalCount } = structured<{ orders: { number: string; status: string; total: unknown; items: unknown[] }[]; totalCount: number }>(
      await sam.client.callTool({ name: 'list_my_orders', arguments: { first: 2 } }),
    );
    expect(totalCount).toBe(3);
    expect(orders.map((o) => [o.number, o.status, o.total])).toEqual([
      ['2025-0103', 'refunded', { amount: '29.00', currency: 'EUR' }],
      ['2025-0102', 'paid', { amount: '39.99', currency: 'EUR' }],
    ]);
    expect(orders[1]!.items).toHaveLength(2);
  });

  it('list_my_event_registrations', async () => {
    const { registrations } = structured<{ registrations: { status: string; event: { title: string } }[] }>(
      await sam.client.callTool({ name: 'list_my_event_registrations', arguments: {} }),
    );
    expect(registrations.map((r) => [r.status, r.event.title])).toEqual([
      ['registered', 'Live Q&A: Colour Theory'],
      ['attended', 'Urban Sketching Meetup'],
    ]);
  });

  it('public tools default to the token\'s school', async () => {
    expect(structured(await sam.client.callTool({ name: 'search_courses', arguments: { query: 'ink' } }))).toEqual(expect.objectContaining({ site: 'demo-school' }));
  });

  it('the same token works at /account/graphql', async () => {
    const res = await fetch(`${app.baseUrl}/account/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${memberToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ viewer { id email enrolledCourses(first: 1) { nodes { slug } } } }' }),
    });
    expect(res.status).toBe(200);
    // the token holds no `email`: the address is not shared (as in UserInfo)
    expect((await res.json()).data.viewer).toEqual({ id: 'acc-student', email: null, enrolledCourses: { nodes: [{ slug: 'watercolour-basics' }] } });
  });

  it('a bad page argument is a tool error, not an HTTP error', async () => {
    expect(toolErrorText(await sam.client.callTool({ name: 'list_my_orders', arguments: { after: 'Y2F0YWxvZ3VlOjE' } }))).toMatch(/^after: /);
  });

  it('an operator tool is refused with 403 insufficient_scope naming no scope (member tokens never get operator tools: no step-up reaches it)', async () => {
    const before = sam.seen.length;
    expectHttpError(await rejection(sam.client.callTool({ name: 'list_site_courses', arguments: {} })), 403);
    const response = sam.seen[before]!;
    expect(response.status).toBe(403);
    expect(challengeParams(response.challenge)).toEqual({
      error: 'insufficient_scope',
      error_description: 'the list_site_courses tool is for operator clients; this token is from a member client',
      resource_metadata: `${app.baseUrl}/.well-known/oauth-protected-resource`,
    });
  });
});

describe('step-up: a member token without account:read', () => {
  let thin: Connected;
  beforeAll(async () => {
    const { access_token } = await obtainTokens(app.baseUrl, MEMBER, { scope: 'openid profile', resource: app.baseUrl }, STUDENT);
    thin = await connect(app, { token: access_token });
  });
  afterAll(() => thin.close());

  it('tools/list shows only what it may call', async () => {
    expect(await toolNames(thin.client)).toEqual(LIBRARY_PUBLIC_TOOLS);
  });

  it.each(LIBRARY_MEMBER_TOOLS)('%s: 403 insufficient_scope with scope="account:read" and resource_metadata', async (name) => {
    const before = thin.seen.length;
    expectHttpError(await rejection(thin.client.callTool({ name, arguments: name === 'get_my_progress' ? { course: 'perspective' } : {} })), 403);
    const response = thin.seen[before]!;
    expect(response.status).toBe(403);
    expect(challengeParams(response.challenge)).toEqual({
      error: 'insufficient_scope',
      error_description: expect.stringContaining('account:read'),
      scope: 'account:read',
      resource_metadata: `${app.baseUrl}/.well-known/oauth-protected-resource`,
    });
  });

  it('public tools still answer', async () => {
    expect(structured(await thin.client.callTool({ name: 'whoami', arguments: {} }))).toEqual(expect.objectContaining({ scopes: ['openid', 'profile'] }));
  });
});

describe('an operator token calling member tools', () => {
  it('is refused with 403 insufficient_scope naming no scope: member tools are for member clients, and an operator client asking for account:read is refused invalid_scope', async () => {
    const { access_token } = await obtainTokens(app.baseUrl, operator(app.baseUrl, app.operatorSecret), { scope: 'openid courses:read' }, ADMIN);
    const op = await connect(app, { token: access_token });
    try {
      expect(await toolNames(op.client)).toEqual([...LIBRARY_PUBLIC_TOOLS, 'list_site_courses']);
      const before = op.seen.length;
      expectHttpError(await rejection(op.client.callTool({ name: 'list_my_courses', arguments: {} })), 403);
      expect(challengeParams(op.seen[before]!.challenge)).toEqual({
        error: 'insufficient_scope',
        error_description: 'the list_my_courses tool is for member clients; this token is from an operator client',
        resource_metadata: `${app.baseUrl}/.well-known/oauth-protected-resource`,
      });
    } finally {
      await op.close();
    }
  });
});

describe('tokens that are not good: 401 invalid_token, never served as anonymous', () => {
  function expectInvalidToken(result: Awaited<ReturnType<typeof connectFailure>>, baseUrl = app.baseUrl) {
    expectHttpError(result.error, 401);
    expect(result.seen[0]!.status).toBe(401);
    expect(challengeParams(result.seen[0]!.challenge)).toEqual({
      error: 'invalid_token',
      error_description: expect.any(String),
      resource_metadata: `${baseUrl}/.well-known/oauth-protected-resource`,
    });
  }

  it('a garbage token: the client sees 401 with the challenge', async () => {
    expectInvalidToken(await connectFailure(app, 'not-a-real-token'));
  });

  it('a malformed header value', async () => {
    expectInvalidToken(await connectFailure(app, 'a b'));
  });

  it('a revoked token', async () => {
    const { access_token } = await obtainTokens(app.baseUrl, MEMBER, { scope: 'openid account:read', resource: app.baseUrl }, STUDENT);
    const live = await connect(app, { token: access_token });
    await live.client.callTool({ name: 'list_my_orders', arguments: {} });
    const revoked = await postForm(`${app.baseUrl}/api/oauth/revoke`, { token: access_token, client_id: MEMBER.clientId });
    expect(revoked.status).toBe(200);
    // the same connected client: its next call is refused
    const before = live.seen.length;
    expectHttpError(await rejection(live.client.callTool({ name: 'search_courses', arguments: {} })), 401);
    expect(live.seen[before]!.status).toBe(401);
    await live.close();
  });

  it('a token whose account is gone: 401 invalid_token, as UserInfo and the Account API refuse it', async () => {
    const hidden = new Set<string>();
    const seeded = createAccountStore();
    const here = await startApp({ auth: { accounts: { authenticate: seeded.authenticate, findById: async (id) => (hidden.has(id) ? undefined : seeded.findById(id)) } } });
    try {
      const { access_token } = await obtainTokens(here.baseUrl, MEMBER, { scope: 'openid account:read', resource: here.baseUrl }, STUDENT);
      const live = await connect(here, { token: access_token });
      expect(structured(await live.client.callTool({ name: 'whoami', arguments: {} }))).toMatchObject({ authenticated: true, clientId: MEMBER.clientId });
      hidden.add('acc-student');
      const before = live.seen.length;
      expectHttpError(await rejection(live.client.callTool({ name: 'whoami', arguments: {} })), 401);
      expect(challengeParams(live.seen[before]!.challenge)).toEqual({
        error: 'invalid_token', error_description: 'the account of this access token no longer exists',
        resource_metadata: `${here.baseUrl}/.well-known/oauth-protected-resource`,
      });
      await live.close();
      expectInvalidToken(await connectFailure(here, access_token), here.baseUrl);
    } finally {
      await here.stop();
    }
  });

  it('a token bound to another origin (same storage, different baseUrl)', async () => {
    const adapter = createMemoryAdapter();
    const here = await startApp({ auth: { adapter } });
    const elsewhere = await startApp({ auth: { adapter } });
    try {
      const { access_token } = await obtainTokens(elsewhere.baseUrl, MEMBER, { scope: 'openid account:read', resource: elsewhere.baseUrl }, STUDENT);
      // good where it was issued for
      const ok = await connect(elsewhere, { token: access_token });
      await ok.close();
      const result = await connectFailure(here, access_token);
      expectInvalidToken(result, here.baseUrl);
      expect(challengeParams(result.seen[0]!.challenge).error_description).toContain('not meant for');
    } finally {
      await here.stop();
      await elsewhere.stop();
    }
  });
});
