/**
 * The member-data service: the one layer between a verified member token and the host's
 * {@link MemberDataSource}. The Account API resolvers and the MCP member tools both call it,
 * so paging rules, date and money formats and batching are the same everywhere. It knows
 * nothing of GraphQL or HTTP.
 *
 * @example
 * ```ts
 * const service = createMemberDataService(options.memberData, { maxPageSize: 100 });
 * const account = service.forMember(auth);              // auth: a verified member BearerAuth
 * const page = await account.enrolledCourses({ first: 10 });
 * const next = await account.enrolledCourses({ first: 10, after: page.pageInfo.endCursor });
 * ```
 *
 * @module
 */
import type { Audience } from '../scopes/catalogue.ts';
import { createBatchLoader } from './batch.ts';
import { createCatalogueService } from './catalogue.ts';
import type { CatalogueService } from './catalogue.ts';
import { MAX_PAGE_SIZE, resolvePage, toConnection } from './pagination.ts';
import type { Connection, PageArgs } from './pagination.ts';
import type {
  EnrolmentRecord, EventRegistrationRecord, MemberDataSource, MemberRef, OrderItemKind, OrderRecord, OrderStatus, PageRequest, RegistrationStatus,
} from '../contracts.ts';
import { formatMoney, toIsoInstant } from './values.ts';
import type { Money } from './values.ts';

export interface MemberProfile {
  readonly id: string;
  readonly email: string | null;
}

export interface EnrolledCourse {
  readonly slug: string;
  readonly title: string;
  /** ISO 8601 */
  readonly enrolledAt: string;
  /** ISO 8601; null when `hasLifetimeAccess` (or when the host keeps no end date) */
  readonly expireDate: string | null;
  readonly hasLifetimeAccess: boolean;
}

export interface LectureProgress {
  readonly lectureId: string;
  readonly positionSeconds: number;
}

export interface EnrolledCourseWithProgress extends EnrolledCourse {
  readonly lastWatchedLecture: LectureProgress | null;
}

export interface OrderItem {
  readonly title: string;
  readonly kind: OrderItemKind;
  readonly quantity: number;
  readonly total: Money;
}

export interface Order {
  readonly id: string;
  readonly number: string;
  readonly status: OrderStatus;
  /** ISO 8601 */
  readonly createdAt: string;
  readonly total: Money;
  readonly items: readonly OrderItem[];
}

export interface EventSummary {
  readonly id: string;
  readonly title: string;
  /** ISO 8601 */
  readonly startsAt: string;
}

export interface EventRegistration {
  readonly id: string;
  readonly status: RegistrationStatus;
  /** ISO 8601 */
  readonly registeredAt: string;
  readonly event: EventSummary;
}

/**
 * The signed-in member's data. Bound to one member at one site when created; no call can name
 * another. A page asked for twice (the same list, `first` and `after`: two aliases of one
 * query) is fetched once for the life of this object, as the profile is.
 */
export interface MemberAccount {
  readonly member: MemberRef;
  /** The member's own record (memoised for the life of this object). */
  profile(): Promise<MemberProfile>;
  enrolledCourses(args?: PageArgs): Promise<Connection<EnrolledCourse>>;
  /** `enrolledCourses` plus each course's last-watched lecture, in one progress lookup per page. */
  enrolledCoursesWithProgress(args?: PageArgs): Promise<Connection<EnrolledCourseWithProgress>>;
  /** Batched: calls made in the same tick reach the data source as one lookup. */
  lastWatchedLecture(courseSlug: string): Promise<LectureProgress | null>;
  orders(args?: PageArgs): Promise<Connection<Order>>;
  eventRegistrations(args?: PageArgs): Promise<Connection<EventRegistration>>;
}

/** The fields of a verified token that name the member (a `BearerAuth` has them). */
export interface MemberIdentity {
  readonly sub: string;
  readonly site: string | undefined;
  readonly audience: Audience;
}

export interface MemberDataServiceOptions {
  /**
   * The cap on `first`; larger requests are refused.
   * @default MAX_PAGE_SIZE (100)
   */
  readonly maxPageSize?: number;
}

export interface MemberDataService {
  readonly maxPageSize: number;
  /**
   * The data of the member a verified token speaks for. Create one per request: it memoises
   * and batches for that request. Throws a TypeError for a non-member token or one without
   * a site, which the caller's guard must have refused already.
   */
  forMember(identity: MemberIdentity): MemberAccount;
  /** The public catalogue, when the data source has one. */
  readonly catalogue: CatalogueService | undefined;
}

function toEnrolledCourse(r: EnrolmentRecord): EnrolledCourse {
  return {
    slug: r.courseSlug,
    title: r.courseTitle,
    enrolledAt: toIsoInstant(r.enrolledAt),
    expireDate: r.hasLifetimeAccess || r.expiresAt == null ? null : toIsoInstant(r.expiresAt),
    hasLifetimeAccess: r.hasLifetimeAccess,
  };
}

function toOrder(r: OrderRecord): Order {
  return {
    id: r.id,
    number: r.number,
    status: r.status,
    createdAt: toIsoInstant(r.createdAt),
    total: formatMoney(r.total),
    items: r.items.map((i) => ({ title: i.title, kind: i.kind, quantity: i.quantity, total: formatMoney(i.total) })),
  };
}

function toEventRegistration(r: EventRegistrationRecord): EventRegistration {
  return {
    id: r.id,
    status: r.status,
    registeredAt: toIsoInstant(r.registeredAt),
    event: { id: r.event.id, title: r.event.title, startsAt: toIsoInstant(r.event.startsAt) },
  };
}

/**
 * A position in whole seconds, as both endpoints answer it (the Account API's `Int`): hosts
 * often keep a video's `currentTime` (67.5), and the Account API refused it per course
 * (`lastWatchedLecture: null`, an internal error logged) where `/mcp` answered it. Rounded
 * down: resuming a little early loses nothing. A value that is no number at all is left as
 * it is, for the API to refuse.
 */
const wholeSeconds = (seconds: number) => (Number.isFinite(seconds) ? Math.floor(seconds) : seconds);

function createMemberAccount(source: MemberDataSource, member: MemberRef, maxPageSize: number): MemberAccount {
  let profile: Promise<MemberProfile> | undefined;

  async function findProgress(slugs: readonly string[]): Promise<Map<string, LectureProgress>> {
    const found = await source.findLastWatchedLectures(member, slugs);
    const wanted = new Set(slugs);
    const bySlug = new Map<string, LectureProgress>();
    for (const p of found) {
      // a source answering for other courses must not leak them into this page
      if (wanted.has(p.courseSlug)) bySlug.set(p.courseSlug, { lectureId: p.lectureId, positionSeconds: wholeSeconds(p.positionSeconds) });
    }
    return bySlug;
  }
  const progress = createBatchLoader(findProgress);

  // a page asked for again (aliases) shares the first call: the same data, and one call less
  const pages = new Map<string, Promise<unknown>>();
  function once<T>(key: string, load: () => Promise<T>): Promise<T> {
    let page = pages.get(key) as Promise<T> | undefined;
    if (!page) {
      page = load();
      pages.set(key, page);
    }
    return page;
  }
  const keyOf = (list: string, page: PageRequest) => `${list}:${page.offset}:${page.limit}`;

  const account: MemberAccount = {
    member,
    profile() {
      profile ??= source.findMember(member).then((r) => ({ id: member.memberId, email: r?.email ?? null }));
      return profile;
    },
    async enrolledCourses(args = {}) {
      const page = resolvePage('enrolments', args, maxPageSize);
      return once(keyOf('enrolments', page), async () => toConnection('enrolments', page, await source.listEnrolments(member, page), toEnrolledCourse));
    },
    async enrolledCoursesWithProgress(args = {}) {
      const page = resolvePage('enrolments', args, maxPageSize);
      return once(keyOf('enrolments+progress', page), async () => {
        const connection = await account.enrolledCourses(args);
        if (connection.nodes.length === 0) return { ...connection, nodes: [] };
        // one lookup for the page, and plain values after it: no promise per course
        const found = await findProgress(connection.nodes.map((c) => c.slug));
        const nodes = connection.nodes.map((course) => ({ ...course, lastWatchedLecture: found.get(course.slug) ?? null }));
        return { ...connection, nodes };
      });
    },
    lastWatchedLecture(courseSlug) {
      return progress(courseSlug).then((found) => found ?? null);
    },
    async orders(args = {}) {
      const page = resolvePage('orders', args, maxPageSize);
      return once(keyOf('orders', page), async () => toConnection('orders', page, await source.listOrders(member, page), toOrder));
    },
    async eventRegistrations(args = {}) {
      const page = resolvePage('eventRegistrations', args, maxPageSize);
      return once(keyOf('eventRegistrations', page), async () => toConnection('eventRegistrations', page, await source.listEventRegistrations(member, page), toEventRegistration));
    },
  };
  return Object.freeze(account);
}

export function createMemberDataService(source: MemberDataSource, options: MemberDataServiceOptions = {}): MemberDataService {
  const maxPageSize = options.maxPageSize ?? MAX_PAGE_SIZE;
  if (!Number.isSafeInteger(maxPageSize) || maxPageSize < 1) throw new TypeError('maxPageSize must be a positive whole number');
  const catalogue = source.catalogue ? createCatalogueService(source.catalogue, maxPageSize) : undefined;
  return Object.freeze({
    maxPageSize,
    catalogue,
    forMember(identity: MemberIdentity) {
      if (identity.audience !== 'member') throw new TypeError('member data is only for member tokens');
      if (!identity.site) throw new TypeError('member data needs the site (org_id) of the token');
      return createMemberAccount(source, Object.freeze({ site: identity.site, memberId: identity.sub }), maxPageSize);
    },
  });
}
