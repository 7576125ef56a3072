/**
 * The demo host's member data: an in-memory MemberDataSource over the seeded accounts of
 * seed.ts, and the public catalogue. A real host answers the same calls from its database,
 * always filtered by the (site, member) it is given.
 *
 * Seed: Sam Student (acc-student) has 27 enrolments at demo-school (lifetime and dated
 * access, progress on some), 3 orders and 2 event registrations, plus one enrolment at
 * other-school where Sam is not a member; Ada Admin has one enrolment at demo-school;
 * Otto Outsider has his own enrolments, order and registration at other-school.
 */
import type {
  CourseOutlineRecord, EnrolmentRecord, EventRegistrationRecord, LectureProgressRecord, MemberDataSource, MemberRef,
  OrderRecord, PageRequest, PageResult, PublicCatalogueSource, PublicCourseRecord,
} from '../../lib/index.ts';
import { createAccountStore } from './seed.ts';

export interface DemoCourse {
  readonly site: string;
  readonly slug: string;
  readonly title: string;
  readonly summary: string;
  /** listed in the public catalogue */
  readonly public: boolean;
}

const SUBJECTS = [
  'Watercolour Basics', 'Colour Theory', 'Figure Drawing', 'Perspective', 'Ink and Wash', 'Oil Painting',
  'Digital Illustration', 'Portraits', 'Landscapes', 'Still Life', 'Printmaking', 'Calligraphy',
  'Urban Sketching', 'Botanical Art', 'Acrylic Techniques', 'Pastels', 'Charcoal', 'Composition',
  'Art History', 'Comics', 'Animation Basics', 'Typography', 'Photography', 'Ceramics',
  'Sculpture', 'Mixed Media', 'Art Business', 'Gouache', 'Pen Drawing', 'Life Drawing',
];

const slugOf = (title: string) => title.toLowerCase().replace(/[^a-z0-9]+/g, '-');

const COURSES: readonly DemoCourse[] = [
  ...SUBJECTS.map((title, i): DemoCourse => ({
    site: 'demo-school', slug: slugOf(title), title, summary: `Learn ${title.toLowerCase()} step by step.`, public: i !== 29,
  })),
  { site: 'demo-school', slug: 'staff-onboarding', title: 'Staff Onboarding', summary: 'For the school team.', public: false },
  { site: 'other-school', slug: 'guitar-for-beginners', title: 'Guitar for Beginners', summary: 'Your first chords.', public: true },
  { site: 'other-school', slug: 'music-theory', title: 'Music Theory', summary: 'Scales, keys and harmony.', public: true },
  { site: 'other-school', slug: 'alumni-masterclass', title: 'Alumni Masterclass', summary: 'Invitation only.', public: false },
];

/** The courses of a site, public or not (the admin API lists them). */
export function demoCourses(site: string): readonly DemoCourse[] {
  return COURSES.filter((c) => c.site === site);
}

const day = (n: number) => new Date(Date.UTC(2025, 5, 1) - n * 86_400_000);

interface MemberSeed {
  readonly enrolments: readonly EnrolmentRecord[];
  readonly progress: readonly LectureProgressRecord[];
  readonly orders: readonly OrderRecord[];
  readonly registrations: readonly EventRegistrationRecord[];
}

function studentAtDemoSchool(): MemberSeed {
  // newest first; the first is lifetime, the second ends on a date, then they alternate
  const enrolments = SUBJECTS.slice(0, 27).map((title, i): EnrolmentRecord => ({
    courseSlug: slugOf(title),
    courseTitle: title,
    enrolledAt: day(i * 3),
    hasLifetimeAccess: i % 2 === 0,
    expiresAt: i % 2 === 0 ? null : new Date(Date.UTC(2026, i % 12, 1)).toISOString(),
  }));
  const progress = enrolments
    .filter((_, i) => i % 3 !== 2)
    .map((e, i): LectureProgressRecord => ({ courseSlug: e.courseSlug, lectureId: `${e.courseSlug}-l${(i % 4) + 1}`, positionSeconds: 60 * (i + 1) + 7 }));
  const orders: OrderRecord[] = [
    {
      id: 'ord-1003', number: '2025-0103', status: 'refunded', createdAt: '2025-05-20T10:15:00Z',
      total: { amountMinor: 2900, currency: 'EUR' },
      items: [{ title: 'Perspective', kind: 'course', quantity: 1, total: { amountMinor: 2900, currency: 'EUR' } }],
    },
    {
      id: 'ord-1002', number: '2025-0102', status: 'paid', createdAt: '2025-04-02T08:00:00Z',
      total: { amountMinor: 3999, currency: 'EUR' },
      items: [
        { title: 'Live Q&A: Colour Theory (ticket)', kind: 'event', quantity: 2, total: { amountMinor: 3000, currency: 'EUR' } },
        { title: 'Brush Cheat Sheet', kind: 'digital_product', quantity: 1, total: { amountMinor: 999, currency: 'EUR' } },
      ],
    },
    {
      id: 'ord-1001', number: '2025-0101', status: 'paid', createdAt: '2025-01-15T12:30:00Z',
      total: { amountMinor: 4990, currency: 'EUR' },
      items: [{ title: 'Watercolour Basics', kind: 'course', quantity: 1, total: { amountMinor: 4990, currency: 'EUR' } }],
    },
  ];
  const registrations: EventRegistrationRecord[] = [
    { id: 'reg-2', status: 'registered', registeredAt: '2025-05-28T09:00:00Z', event: { id: 'ev-qa-colour', title: 'Live Q&A: Colour Theory', startsAt: '2025-07-10T17:00:00Z' } },
    { id: 'reg-1', status: 'attended', registeredAt: '2025-03-01T09:00:00Z', event: { id: 'ev-sketch-meetup', title: 'Urban Sketching Meetup', startsAt: '2025-03-15T14:00:00Z' } },
  ];
  return { enrolments, progress, orders, registrations };
}

const EMPTY: MemberSeed = { enrolments: [], progress: [], orders: [], registrations: [] };

const keyOf = (site: string, memberId: string) => `${site}\u0000${memberId}`;

function seed(): Map<string, MemberSeed> {
  const data = new Map<string, MemberSeed>();
  data.set(keyOf('demo-school', 'acc-student'), studentAtDemoSchool());
  data.set(keyOf('demo-school', 'acc-admin'), {
    ...EMPTY,
    enrolments: [{ courseSlug: 'staff-onboarding', courseTitle: 'Staff Onboarding', enrolledAt: '2024-09-01T00:00:00Z', hasLifetimeAccess: true, expiresAt: null }],
  });
  // Sam has a past enrolment at other-school; it must never show at demo-school
  data.set(keyOf('other-school', 'acc-student'), {
    ...EMPTY,
    enrolments: [{ courseSlug: 'alumni-masterclass', courseTitle: 'Alumni Masterclass', enrolledAt: '2023-02-01T00:00:00Z', hasLifetimeAccess: true, expiresAt: null }],
  });
  data.set(keyOf('other-school', 'acc-outsider'), {
    enrolments: [
      { courseSlug: 'music-theory', courseTitle: 'Music Theory', enrolledAt: '2025-02-01T00:00:00Z', hasLifetimeAccess: false, expiresAt: '2025-12-31T23:59:59Z' },
      { courseSlug: 'guitar-for-beginners', courseTitle: 'Guitar for Beginners', enrolledAt: '2025-01-10T00:00:00Z', hasLifetimeAccess: true, expiresAt: null },
    ],
    progress: [{ courseSlug: 'guitar-for-beginners', lectureId: 'guitar-for-beginners-l2', positionSeconds: 95 }],
    orders: [{
      id: 'ord-9001', number: 'OS-0001', status: 'paid', createdAt: '2025-01-10T00:00:00Z',
      total: { amountMinor: 1500, currency: 'USD' },
      items: [{ title: 'Guitar for Beginners', kind: 'course', quantity: 1, total: { amountMinor: 1500, currency: 'USD' } }],
    }],
    registrations: [{ id: 'reg-9001', status: 'waitlisted', registeredAt: '2025-05-01T00:00:00Z', event: { id: 'ev-jam', title: 'Open Jam Session', startsAt: '2025-08-01T18:00:00Z' } }],
  });
  return data;
}

function window<T>(list: readonly T[], page: PageRequest): PageResult<T> {
  return { items: list.slice(page.offset, page.offset + page.limit), totalCount: list.length };
}

function outlineOf(course: DemoCourse): CourseOutlineRecord {
  const sections = ['Getting started', 'Practice', 'Projects'].map((title, s) => ({
    title,
    lectures: [1, 2, 3, 4].map((n) => {
      const number = s * 4 + n;
      return { id: `${course.slug}-l${number}`, title: `${title}: part ${n}`, durationSeconds: 300 + 60 * n, freePreview: number === 1 };
    }),
  }));
  return { slug: course.slug, title: course.title, summary: course.summary, sections };
}

function createDemoCatalogue(): PublicCatalogueSource {
  return {
    async searchCourses(site, text, page) {
      const needle = text.toLowerCase();
      const found = COURSES.filter((c) => c.site === site && c.public
        && (needle === '' || c.title.toLowerCase().includes(needle) || c.summary.toLowerCase().includes(needle)));
      return window(found.map((c): PublicCourseRecord => ({ slug: c.slug, title: c.title, summary: c.summary })), page);
    },
    async findCourseOutline(site, slug) {
      const course = COURSES.find((c) => c.site === site && c.slug === slug && c.public);
      return course && outlineOf(course);
    },
  };
}

export function createDemoMemberData(): MemberDataSource {
  const data = seed();
  const accounts = createAccountStore();
  const of = (m: MemberRef) => data.get(keyOf(m.site, m.memberId)) ?? EMPTY;

  return {
    async findMember(member) {
      const account = await accounts.findById(member.memberId);
      // a member of the site only: the record of someone without a role there is not shown
      if (!account || !Object.hasOwn(account.roles, member.site)) return undefined;
      return { email: account.email };
    },
    async listEnrolments(member, page) {
      return window(of(member).enrolments, page);
    },
    async findLastWatchedLectures(member, courseSlugs) {
      const wanted = new Set(courseSlugs);
      return of(member).progress.filter((p) => wanted.has(p.courseSlug));
    },
    async listOrders(member, page) {
      return window(of(member).orders, page);
    },
    async listEventRegistrations(member, page) {
      return window(of(member).registrations, page);
    },
    catalogue: createDemoCatalogue(),
  };
}
