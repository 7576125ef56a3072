/**
 * The member-data service over a recording fake source: the member it asks for, formats,
 * batching, and the demo data walked through every page.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { jest } from '@jest/globals';

import { createDemoMemberData } from '../../examples/host/member-data.ts';
import { MemberDataInputError, createMemberDataService, formatMoney, toIsoInstant } from '../../lib/member-data/index.ts';
import type {
  EnrolmentRecord, LectureProgressRecord, MemberDataSource, MemberIdentity, MemberRef, PageRequest,
} from '../../lib/member-data/index.ts';

const STUDENT: MemberIdentity = { sub: 'acc-1', site: 'school-a', audience: 'member' };

interface Call {
  method: string;
  member: MemberRef;
  arg: unknown;
}

function fakeSource(enrolments: EnrolmentRecord[], progress: LectureProgressRecord[] = []) {
  const calls: Call[] = [];
  const record = (method: string, member: MemberRef, arg: unknown) => calls.push({ method, member: { ...member }, arg });
  const source: MemberDataSource = {
    async findMember(member) {
      record('findMember', member, undefined);
      return { email: 'one@example.com' };
    },
    async listEnrolments(member, page: PageRequest) {
      record('listEnrolments', member, page);
      return { items: enrolments.slice(page.offset, page.offset + page.limit), totalCount: enrolments.length };
    },
    async findLastWatchedLectures(member, slugs) {
      record('findLastWatchedLectures', member, [...slugs]);
      // answers more than it was asked for: the service must not pass the extra on
      return progress;
    },
    async listOrders(member, page) {
      record('listOrders', member, page);
      return { items: [], totalCount: 0 };
    },
    async listEventRegistrations(member, page) {
      record('listEventRegistrations', member, page);
      return { items: [], totalCount: 0 };
    },
  };
  return { source, calls };
}

const course = (slug: string, extra: Partial<EnrolmentRecord> = {}): EnrolmentRecord => ({
  courseSlug: slug, courseTitle: slug.toUpperCase(), enrolledAt: '2025-01-01T00:00:00Z', hasLifetimeAccess: false, expiresAt: null, ...extra,
});

describe('forMember', () => {
  it('asks the source for exactly the token\'s member and site', async () => {
    const { source, calls } = fakeSource([course('a')]);
    const account = createMemberDataService(source).forMember(STUDENT);
    expect(account.member).toEqual({ site: 'school-a', memberId: 'acc-1' });
    await account.profile();
    await account.enrolledCourses();
    await account.orders({ first: 3 });
    await account.eventRegistrations();
    expect(calls.map((c) => c.member)).toEqual(Array(4).fill({ site: 'school-a', memberId: 'acc-1' }));
    expect(calls.find((c) => c.method === 'listOrders')!.arg).toEqual({ offset: 0, limit: 3 });
  });

  it('refuses operator tokens and tokens without a site', () => {
    const service = createMemberDataService(fakeSource([]).source);
    expect(() => service.forMember({ ...STUDENT, audience: 'operator' })).toThrow(TypeError);
    expect(() => service.forMember({ ...STUDENT, site: undefined })).toThrow(TypeError);
  });

  it('memoises the profile for the life of the account', async () => {
    const { source, calls } = fakeSource([]);
    const account = createMemberDataService(source).forMember(STUDENT);
    expect(await account.profile()).toEqual({ id: 'acc-1', email: 'one@example.com' });
    await account.profile();
    expect(calls.filter((c) => c.method === 'findMember')).toHaveLength(1);
  });

  it('fetches a page asked for again (an alias) once, however its arguments are spelt', async () => {
    const { source, calls } = fakeSource(['a', 'b', 'c'].map((s) => course(s)));
    const account = createMemberDataService(source).forMember(STUDENT);
    const [plain, same, withProgress, again] = await Promise.all([
      account.enrolledCourses({ first: 2 }), account.enrolledCourses({ first: 2, after: null }),
      account.enrolledCoursesWithProgress({ first: 2 }), account.enrolledCoursesWithProgress({ first: 2 }),
    ]);
    expect(same).toBe(plain);
    expect(again).toBe(withProgress);
    expect(calls.map((c) => c.method)).toEqual(['listEnrolments', 'findLastWatchedLectures']);
    // another page, another list: their own calls
    const next = await account.enrolledCourses({ first: 2, after: plain.pageInfo.endCursor });
    await Promise.all([account.orders({ first: 2 }), account.eventRegistrations({ first: 2 }), account.orders({ first: 3 })]);
    expect(next.nodes.map((n) => n.slug)).toEqual(['c']);
    expect(calls.map((c) => c.method)).toEqual(['listEnrolments', 'findLastWatchedLectures', 'listEnrolments', 'listOrders', 'listEventRegistrations', 'listOrders']);
  });
});

describe('values', () => {
  it('answers ISO 8601 in UTC, and a null expireDate for lifetime access', async () => {
    const { source } = fakeSource([
      course('lifetime', { hasLifetimeAccess: true, expiresAt: '2030-01-01T00:00:00Z' }),
      course('dated', { enrolledAt: new Date(Date.UTC(2024, 1, 29, 12)), expiresAt: '2025-03-01T10:00:00+02:00' }),
      course('date-only', { enrolledAt: '2025-06-01', expiresAt: null }),
    ]);
    const { nodes } = await createMemberDataService(source).forMember(STUDENT).enrolledCourses();
    expect(nodes).toEqual([
      { slug: 'lifetime', title: 'LIFETIME', enrolledAt: '2025-01-01T00:00:00.000Z', expireDate: null, hasLifetimeAccess: true },
      { slug: 'dated', title: 'DATED', enrolledAt: '2024-02-29T12:00:00.000Z', expireDate: '2025-03-01T08:00:00.000Z', hasLifetimeAccess: false },
      { slug: 'date-only', title: 'DATE-ONLY', enrolledAt: '2025-06-01T00:00:00.000Z', expireDate: null, hasLifetimeAccess: false },
    ]);
  });

  it('refuses a value that is not a point in time', () => {
    expect(() => toIsoInstant('next tuesday')).toThrow(TypeError);
  });

  it('formats an instant it has seen once: the same dates answer after answer', () => {
    const toIso = jest.spyOn(Date.prototype, 'toISOString');
    try {
      const at = Date.UTC(2031, 4, 6, 7, 8, 9, 10);
      expect(toIsoInstant(new Date(at))).toBe('2031-05-06T07:08:09.010Z');
      for (let i = 0; i < 50; i += 1) {
        expect(toIsoInstant(new Date(at))).toBe('2031-05-06T07:08:09.010Z');
        expect(toIsoInstant('2031-05-06T07:08:09Z')).toBe('2031-05-06T07:08:09.000Z');
      }
      // a Date changed after it was formatted is formatted by its new time
      const moved = new Date(at);
      moved.setUTCFullYear(2032);
      expect(toIsoInstant(moved)).toBe('2032-05-06T07:08:09.010Z');
      expect(toIso).toHaveBeenCalledTimes(3);
      expect(() => toIsoInstant(new Date(Number.NaN))).toThrow(TypeError);
      expect(() => toIsoInstant('next tuesday')).toThrow(TypeError);
    } finally {
      toIso.mockRestore();
    }
  });

  it('formats money as an exact decimal in the currency\'s major unit', () => {
    expect(formatMoney({ amountMinor: 4990, currency: 'EUR' })).toEqual({ amount: '49.90', currency: 'EUR' });
    expect(formatMoney({ amountMinor: 5, currency: 'eur' })).toEqual({ amount: '0.05', currency: 'EUR' });
    expect(formatMoney({ amountMinor: -500, currency: 'USD' })).toEqual({ amount: '-5.00', currency: 'USD' });
    expect(formatMoney({ amountMinor: 1200, currency: 'JPY' })).toEqual({ amount: '1200', currency: 'JPY' });
    expect(formatMoney({ amountMinor: 1234, currency: 'KWD' })).toEqual({ amount: '1.234', currency: 'KWD' });
    expect(() => formatMoney({ amountMinor: 1.5, currency: 'EUR' })).toThrow(TypeError);
  });

  it.each([
    // ISO 4217's minor units, where ICU's display digits (Intl.NumberFormat) say 0
    [499000, 'HUF', '4990.00'], [15000000, 'IDR', '150000.00'], [9990000, 'COP', '99900.00'], [150, 'PKR', '1.50'],
    [25000, 'IQD', '25.000'], [12345, 'CLF', '1.2345'], [990, 'ISK', '990'], [1, 'TND', '0.001'],
  ])('reads %i minor units of %s as %s, by ISO 4217', (amountMinor, currency, amount) => {
    expect(formatMoney({ amountMinor, currency })).toEqual({ amount, currency });
  });

  it.each([
    ['EURO', /not an ISO 4217 code/], ['E1R', /not an ISO 4217 code/], ['', /not an ISO 4217 code/],
    ['XAU', /XAU has no minor unit in ISO 4217/], ['XXX', /no minor unit/],
  ])('refuses the currency %p: its amount cannot be read', (currency, message) => {
    expect(() => formatMoney({ amountMinor: 100, currency })).toThrow(TypeError);
    expect(() => formatMoney({ amountMinor: 100, currency })).toThrow(message);
  });

  describe('instants given as strings', () => {
    /** toIsoInstant of each of `values` in a Node process of its own, whose zone is `tz` (jest's process.env does not reach the clock) */
    function inZone(tz: string, values: readonly string[]): string[] {
      const module = fileURLToPath(new URL('../../lib/member-data/values.ts', import.meta.url));
      const script = `import { toIsoInstant } from ${JSON.stringify(module)};
        const offset = new Date(2025, 2, 1).getTimezoneOffset();
        process.stdout.write(JSON.stringify([offset, ...${JSON.stringify(values)}.map((v) => toIsoInstant(v))]));`;
      const [offset, ...answers] = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, TZ: tz }, encoding: 'utf8' })) as [number, ...string[]];
      expect(offset).toBe({ UTC: 0, 'America/New_York': 300, 'Asia/Kolkata': -330 }[tz]);
      return answers;
    }

    it.each(['UTC', 'America/New_York', 'Asia/Kolkata'])('reads a date and time without an offset as UTC, whatever the server\'s zone (%s)', (tz) => {
      expect(inZone(tz, ['2025-03-01T09:00:00', '2025-03-01 09:00:07.123456', '2025-03-02'])).toEqual([
        '2025-03-01T09:00:00.000Z', '2025-03-01T09:00:07.123Z', '2025-03-02T00:00:00.000Z',
      ]);
    });

    it('honours an offset in any ISO 8601 spelling', () => {
      expect(toIsoInstant('2025-03-01T09:00:00+01:00')).toBe('2025-03-01T08:00:00.000Z');
      expect(toIsoInstant('2025-03-01T09:00+0530')).toBe('2025-03-01T03:30:00.000Z');
      expect(toIsoInstant('2025-03-01T09:00:00-05')).toBe('2025-03-01T14:00:00.000Z');
      expect(toIsoInstant('2025-03-01t09:00:00,5z')).toBe('2025-03-01T09:00:00.500Z');
    });

    it.each(['March 2, 2025', '03/02/2025', '2025-03-01T25:00:00Z', '2025-13-01', '1740819600000', 'now'])('refuses %p, which is not ISO 8601 (Date would guess at it)', (value) => {
      expect(() => toIsoInstant(value)).toThrow(TypeError);
    });

    // Date rolls them over (February 30th is March 2nd), and the canonical form passed unread
    it.each(['2025-02-30', '2025-02-30 09:00:00', '2025-02-29T00:00:00Z', '2025-13-01T00:00:00.000Z', '2025-02-30T00:00:00.000Z', '2025-04-31T10:00:00+02:00', '2025-01-01T23:59:60Z'])(
      'refuses the impossible date %p', (value) => {
        expect(() => toIsoInstant(value)).toThrow('member data: a date is not a valid point in time');
      },
    );

    it('takes the last day of a month, a leap day and an offset across midnight', () => {
      expect(toIsoInstant('2024-02-29')).toBe('2024-02-29T00:00:00.000Z');
      expect(toIsoInstant('2025-04-30T23:30:00-02:00')).toBe('2025-05-01T01:30:00.000Z');
      expect(toIsoInstant('2025-03-01T00:30:00+05:30')).toBe('2025-02-28T19:00:00.000Z');
    });
  });
});

describe('progress batching', () => {
  const progress = [
    { courseSlug: 'a', lectureId: 'a-3', positionSeconds: 12 },
    { courseSlug: 'c', lectureId: 'c-1', positionSeconds: 0 },
    { courseSlug: 'not-asked', lectureId: 'x', positionSeconds: 1 },
  ];

  it('sends the lookups of one tick as one call, each course once', async () => {
    const { source, calls } = fakeSource([], progress);
    const account = createMemberDataService(source).forMember(STUDENT);
    const answers = await Promise.all(['a', 'b', 'c', 'a', 'not-asked-here'].map((s) => account.lastWatchedLecture(s)));
    expect(answers).toEqual([{ lectureId: 'a-3', positionSeconds: 12 }, null, { lectureId: 'c-1', positionSeconds: 0 }, { lectureId: 'a-3', positionSeconds: 12 }, null]);
    const lookups = calls.filter((c) => c.method === 'findLastWatchedLectures');
    expect(lookups).toHaveLength(1);
    expect(lookups[0]!.arg).toEqual(['a', 'b', 'c', 'not-asked-here']);
  });

  it('answers a position in whole seconds, rounded down, as the Account API\'s Int and /mcp both answer it', async () => {
    const { source } = fakeSource([course('a')], [{ courseSlug: 'a', lectureId: 'a-3', positionSeconds: 67.9 }]);
    const account = createMemberDataService(source).forMember(STUDENT);
    expect(await account.lastWatchedLecture('a')).toEqual({ lectureId: 'a-3', positionSeconds: 67 });
    const page = await createMemberDataService(source).forMember(STUDENT).enrolledCoursesWithProgress({ first: 1 });
    expect(page.nodes[0]!.lastWatchedLecture).toEqual({ lectureId: 'a-3', positionSeconds: 67 });
  });

  it('does not answer a course the caller did not ask about', async () => {
    const { source } = fakeSource([], progress);
    const account = createMemberDataService(source).forMember(STUDENT);
    expect(await account.lastWatchedLecture('b')).toBeNull();
  });

  it('reports a failing lookup to every caller of the batch', async () => {
    const { source } = fakeSource([]);
    source.findLastWatchedLectures = async () => {
      throw new Error('progress store down');
    };
    const account = createMemberDataService(source).forMember(STUDENT);
    const results = await Promise.allSettled([account.lastWatchedLecture('a'), account.lastWatchedLecture('b')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });

  it('fetches a page with its progress in two calls', async () => {
    const { source, calls } = fakeSource(['a', 'b', 'c', 'd'].map((s) => course(s)), progress);
    const page = await createMemberDataService(source).forMember(STUDENT).enrolledCoursesWithProgress({ first: 3 });
    expect(page.nodes.map((n) => [n.slug, n.lastWatchedLecture?.lectureId ?? null])).toEqual([['a', 'a-3'], ['b', null], ['c', 'c-1']]);
    expect(calls.map((c) => c.method)).toEqual(['listEnrolments', 'findLastWatchedLectures']);
    expect(calls[1]!.arg).toEqual(['a', 'b', 'c']);
  });
});

describe('the demo data through the service', () => {
  const service = createMemberDataService(createDemoMemberData(), { maxPageSize: 10 });

  it('walks the student\'s enrolments page by page, each once', async () => {
    const account = service.forMember({ sub: 'acc-student', site: 'demo-school', audience: 'member' });
    const slugs: string[] = [];
    let after: string | null = null;
    let pages = 0;
    do {
      const page: Awaited<ReturnType<typeof account.enrolledCourses>> = await account.enrolledCourses({ first: 10, after });
      slugs.push(...page.nodes.map((n) => n.slug));
      after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
      pages += 1;
    } while (after);
    expect(pages).toBe(3);
    expect(slugs).toHaveLength(27);
    expect(new Set(slugs).size).toBe(27);
    expect(slugs).not.toContain('alumni-masterclass');
  });

  it('applies its own cap, and lowers the default page to it', async () => {
    const account = service.forMember({ sub: 'acc-student', site: 'demo-school', audience: 'member' });
    await expect(account.orders({ first: 11 })).rejects.toBeInstanceOf(MemberDataInputError);
    expect((await account.enrolledCourses()).nodes).toHaveLength(10);
  });

  it('searches the public catalogue with cursors bound to the search', async () => {
    const catalogue = service.catalogue!;
    const first = await catalogue.searchCourses('demo-school', '', { first: 10 });
    expect(first.totalCount).toBe(29);
    expect(first.nodes.map((c) => c.slug)).not.toContain('staff-onboarding');
    const second = await catalogue.searchCourses('demo-school', '', { first: 10, after: first.pageInfo.endCursor });
    expect(second.nodes[0]!.slug).not.toBe(first.nodes[0]!.slug);
    await expect(catalogue.searchCourses('demo-school', 'drawing', { after: first.pageInfo.endCursor })).rejects.toMatchObject({ code: 'INVALID_CURSOR' });
    // nor by the same search at another school
    await expect(catalogue.searchCourses('other-school', '', { after: first.pageInfo.endCursor })).rejects.toMatchObject({ code: 'INVALID_CURSOR' });
    const drawing = await catalogue.searchCourses('demo-school', 'Drawing');
    // life-drawing is not public
    expect(drawing.nodes.map((c) => c.slug).sort()).toEqual(['figure-drawing', 'pen-drawing']);
  });

  it('gives the outline of public courses only', async () => {
    const catalogue = service.catalogue!;
    const outline = await catalogue.courseOutline('demo-school', 'perspective');
    expect(outline?.sections).toHaveLength(3);
    expect(outline?.sections.flatMap((s) => s.lectures).filter((l) => l.freePreview)).toHaveLength(1);
    expect(await catalogue.courseOutline('demo-school', 'staff-onboarding')).toBeUndefined();
    expect(await catalogue.courseOutline('other-school', 'perspective')).toBeUndefined();
  });
});
