/**
 * The contracts a host implements: its accounts and sites, its logger, and its member data
 * (what the Account API and the MCP member tools read). This module imports nothing, so every
 * layer of the library may depend on it and it depends on none.
 *
 * Every member-data method takes a {@link MemberRef} that the library builds from a verified
 * member token (`sub` and `org_id`), never from request input: an implementation answers for
 * exactly that member at exactly that site and has no parameter that could name another.
 *
 * @example
 * ```ts
 * const memberData: MemberDataSource = {
 *   async findMember({ site, memberId }) { … },
 *   async listEnrolments({ site, memberId }, { offset, limit }) {
 *     const rows = await db.enrolments.where({ site, memberId }).orderBy('enrolledAt', 'desc');
 *     return { items: rows.slice(offset, offset + limit), totalCount: rows.length };
 *   },
 *   …
 * };
 * ```
 *
 * @module
 */

// ---- accounts and sites -------------------------------------------------------------------

/** A person who can sign in. */
export interface Account {
  /** stable identifier; becomes the `sub` claim */
  readonly id: string;
  readonly email: string;
  readonly name: string;
  /** site id → the account's roles at that site (`student`, `admin`, …) */
  readonly roles: Readonly<Record<string, readonly string[]>>;
}

/** Who is signing in: passed to {@link AccountStore.authenticate}, for a host's own throttling or audit log. */
export interface SignInContext {
  /**
   * The client's address: the socket's peer, or with `options.proxy` the one
   * `X-Forwarded-For` names (`options.proxyHops`). As given: IPv4, or IPv6 in full.
   */
  readonly ip: string;
  /** the `User-Agent` header, `''` when absent */
  readonly userAgent: string;
}

/** The host's account directory. The library never sees or stores a password. */
export interface AccountStore {
  /**
   * Returns the account when the credentials are right, otherwise `undefined`. The library
   * calls it only for attempts its sign-in throttle lets through, and always passes
   * `context`; it is optional so that implementations and calls with two arguments still
   * compile.
   */
  authenticate(email: string, password: string, context?: SignInContext): Promise<Account | undefined>;
  findById(id: string): Promise<Account | undefined>;
}

export interface Site {
  readonly id: string;
  readonly name: string;
}

/** The host's sites (schools); used to show a site's name. */
export interface SiteStore {
  findById(id: string): Promise<Site | undefined>;
}

// ---- logging ------------------------------------------------------------------------------

/** Where the library writes warnings and errors. Nothing it logs ever contains a token, a code or a secret. */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

// ---- member data ---------------------------------------------------------------------------

/** The member whose data is asked for; built by the library from a verified member token. */
export interface MemberRef {
  /** the site (school) of the token, its `org_id` */
  readonly site: string;
  /** the member's account id, the token's `sub` */
  readonly memberId: string;
}

/**
 * A window of a list. Lists must come back in a stable order (newest first is what the demo
 * does), so that walking the pages returns every item exactly once.
 */
export interface PageRequest {
  /** how many items to skip, ≥ 0 */
  readonly offset: number;
  /** how many items to return at most, ≥ 0 (0: only `totalCount` is wanted) */
  readonly limit: number;
}

export interface PageResult<T> {
  /** at most `limit` items, starting at `offset` */
  readonly items: readonly T[];
  /** the length of the whole list */
  readonly totalCount: number;
}

/** A point in time: a `Date` or an ISO 8601 string; the service answers ISO 8601 (UTC). */
export type Instant = Date | string;

export interface MemberRecord {
  readonly email: string | null;
}

export interface EnrolmentRecord {
  readonly courseSlug: string;
  readonly courseTitle: string;
  readonly enrolledAt: Instant;
  readonly hasLifetimeAccess: boolean;
  /** when access ends; ignored (answered as null) when `hasLifetimeAccess` */
  readonly expiresAt: Instant | null;
}

/** Where the member stopped in a course. */
export interface LectureProgressRecord {
  readonly courseSlug: string;
  readonly lectureId: string;
  readonly positionSeconds: number;
}

/** An amount in the currency's minor unit (cents), as payment systems store it. */
export interface MoneyRecord {
  /** integer, e.g. 4990 for 49.90 EUR */
  readonly amountMinor: number;
  /** ISO 4217 code, e.g. `EUR` */
  readonly currency: string;
}

export type OrderStatus = 'pending' | 'paid' | 'refunded' | 'cancelled' | 'failed';

export type OrderItemKind = 'course' | 'event' | 'digital_product' | 'membership_plan' | 'other';

export interface OrderItemRecord {
  readonly title: string;
  readonly kind: OrderItemKind;
  readonly quantity: number;
  /** the line total */
  readonly total: MoneyRecord;
}

export interface OrderRecord {
  readonly id: string;
  /** the human-facing order number, e.g. `2025-0042` */
  readonly number: string;
  readonly status: OrderStatus;
  readonly createdAt: Instant;
  readonly total: MoneyRecord;
  readonly items: readonly OrderItemRecord[];
}

export type RegistrationStatus = 'registered' | 'waitlisted' | 'cancelled' | 'attended';

export interface EventRecord {
  readonly id: string;
  readonly title: string;
  readonly startsAt: Instant;
}

export interface EventRegistrationRecord {
  readonly id: string;
  readonly status: RegistrationStatus;
  readonly registeredAt: Instant;
  readonly event: EventRecord;
}

/**
 * The host's member data, always for one member at one site. Methods may throw: the error is
 * logged and the caller sees a masked "unexpected error", never its message.
 */
export interface MemberDataSource {
  /** The member's own record, `undefined` when the site does not know them. */
  findMember(member: MemberRef): Promise<MemberRecord | undefined>;
  /** The member's enrolments at the site, in a stable order. */
  listEnrolments(member: MemberRef, page: PageRequest): Promise<PageResult<EnrolmentRecord>>;
  /**
   * Where the member stopped in each of `courseSlugs` (one call for a whole page: the
   * service batches). Courses without progress are simply absent from the answer.
   */
  findLastWatchedLectures(member: MemberRef, courseSlugs: readonly string[]): Promise<readonly LectureProgressRecord[]>;
  /** The member's orders at the site, in a stable order. */
  listOrders(member: MemberRef, page: PageRequest): Promise<PageResult<OrderRecord>>;
  /** The member's event registrations at the site, in a stable order. */
  listEventRegistrations(member: MemberRef, page: PageRequest): Promise<PageResult<EventRegistrationRecord>>;
  /**
   * The site's public course catalogue, for anonymous callers (the MCP public tools).
   * Separate on purpose: nothing in it is about a member.
   * @default undefined (no public catalogue)
   */
  readonly catalogue?: PublicCatalogueSource;
}

// ---- the public catalogue ------------------------------------------------------------------

export interface PublicCourseRecord {
  readonly slug: string;
  readonly title: string;
  readonly summary: string | null;
}

export interface OutlineLectureRecord {
  readonly id: string;
  readonly title: string;
  readonly durationSeconds: number | null;
  /** watchable without enrolling */
  readonly freePreview: boolean;
}

export interface OutlineSectionRecord {
  readonly title: string;
  readonly lectures: readonly OutlineLectureRecord[];
}

export interface CourseOutlineRecord extends PublicCourseRecord {
  readonly sections: readonly OutlineSectionRecord[];
}

/** Implemented by the host; answers only for published, public courses. */
export interface PublicCatalogueSource {
  /** Public courses whose title or summary matches `text` (empty: all), in a stable order. */
  searchCourses(site: string, text: string, page: PageRequest): Promise<PageResult<PublicCourseRecord>>;
  /** A public course's outline; `undefined` for unknown, unpublished or private courses. */
  findCourseOutline(site: string, slug: string): Promise<CourseOutlineRecord | undefined>;
}
