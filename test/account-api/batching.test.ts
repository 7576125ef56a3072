/**
 * No N+1: a page of courses costs one enrolment call and one progress call, however the
 * query spells it (fragments, aliases), counted at the data source.
 */
import { createDemoMemberData } from '../../examples/host/member-data.ts';
import type { MemberDataSource } from '../../lib/member-data/index.ts';
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
      b: enrolledCourses(first: 10, after: null) { nodes { title lastWatchedLecture { positionSeconds } } }
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
