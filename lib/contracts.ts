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
   *
   * The throttle counts an account by the email as typed, NFKC-normalised, trimmed and
   * lower-cased. Find the account by no looser a match than that: a lookup that also ignores
   * accents or dots, as some database collations do, lets each spelling of one address count
   * as another account, each with its own free failures.
   */
  authenticate(email: string, password: string, context?: SignInContext): Promise<Account | undefined>;
  findById(id: string): Promise<Account | undefined>;
}

/**
 * A sign-in the library is waiting for, as the host's sign-in sees it (`options.signIn`):
 * passed to `signIn.session`, and returned by `auth.interactions.pendingSignIn(ctx)` for the
 * host's own sign-in page.
 */
export interface SignInRequest {
  /** the client the person is signing in to */
  readonly clientId: string;
  /** its name, as shown on the pages (for a self-registered client, its own claim) */
  readonly clientName: string;
  /** the site of a member client; `undefined` for operator clients (the operator picks one at consent) */
  readonly site: string | undefined;
  /**
   * The client asked for a fresh sign-in (`prompt=login`): an existing session must not be
   * used, the person must sign in now. `signIn.session` is not asked then, and
   * `finishSignIn` refuses an `authTime` from before the request.
   */
  readonly fresh: boolean;
  /** `max_age` of the request, in seconds: a session signed in longer ago than this does not count */
  readonly maxAge: number | undefined;
  /** `login_hint` of the request (usually an email), to prefill a form */
  readonly loginHint: string | undefined;
  /** `ui_locales` of the request, by preference */
  readonly uiLocales: readonly string[];
  /** the library's page for this sign-in: send the person here to start over */
  readonly returnTo: string;
  /**
   * Where the flow ends: the client's `redirect_uri` of this request. Browsers apply a page's
   * CSP `form-action` to the redirects that follow its form, and finishing or cancelling the
   * sign-in ends with a redirect there, so the host's page must allow its origin:
   * `setPageHeaders(ctx, nonce, request.redirectUri)` does (with `form-action 'self'` alone,
   * Chromium blocks the chain and the person stays on the host's page).
   */
  readonly redirectUri: string;
}

/** A sign-in the host vouches for. */
export interface HostSignIn {
  /** the account, as `accounts.findById` knows it */
  readonly accountId: string;
  /**
   * When the person signed in (epoch seconds, `Math.floor(Date.now() / 1000)`, not
   * milliseconds): the ID token's `auth_time`, checked against `max_age` and, for a fresh
   * sign-in, against the start of the request. More than 60 s ahead of now is refused
   * (`finishSignIn` throws a `TypeError`; a session with it is not used).
   * @default from `finishSignIn`: now; from `signIn.session`: unknown, so no request with
   * `max_age` is satisfied by the session (the person signs in), neither this one nor a later
   * one in the same browser (the sign-in is recorded at `0`: unknown, never recent)
   */
  readonly authTime?: number;
  /** authentication methods (`pwd`, `mfa`, …), the ID token's `amr` */
  readonly amr?: readonly string[];
  /** the ID token's `acr`: one of `options.signIn.acrValues` */
  readonly acr?: string;
}

export interface Site {
  readonly id: string;
  readonly name: string;
  /**
   * How the sign-in and consent pages look for this site's members. Checked on every page:
   * an invalid value is ignored (and logged once), never written into the page.
   * @default the library's look (`options.pages.brand`)
   */
  readonly branding?: SiteBranding;
}

/** A site's look on the library's pages. */
export interface SiteBranding {
  /** An `https:` URL of the site's logo, shown beside its name (the page's CSP allows its origin). */
  readonly logoUrl?: string;
  /** The accent colour (buttons, the name), `#rrggbb` or `#rgb` only; the text on it is black or white, whichever contrasts more. */
  readonly accentColor?: string;
}

/** The host's sites (schools); used to show a site's name and brand. */
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

/**
 * A point in time: a `Date` or an ISO 8601 string (a date; or a date and time, with `T` or a
 * space, read as UTC when it has no offset); the service answers ISO 8601 (UTC). Other strings
 * are refused.
 */
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
  /** where in the lecture, in seconds; answered in whole seconds (rounded down) */
  readonly positionSeconds: number;
}

/** An amount in the currency's minor unit (cents), as payment systems store it. */
export interface MoneyRecord {
  /**
   * integer, in the minor unit ISO 4217 gives the currency: 4990 for 49.90 EUR, 1200 for
   * 1200 JPY, 499000 for 4990.00 HUF, 25000 for 25.000 IQD
   */
  readonly amountMinor: number;
  /** ISO 4217 code, e.g. `EUR` (one with no minor unit, such as `XAU`, is refused) */
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
