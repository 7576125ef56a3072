/**
 * Resolvers: thin calls into the member-data service, which does the paging, formatting and
 * batching. The root `viewer` is the request's MemberAccount, bound to the token's member.
 *
 * @module
 */
import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import type { GraphQLResolveInfo } from 'graphql';

import type { PageArgs } from '../member-data/pagination.ts';
import type { EnrolledCourse, EnrolledCourseWithProgress, MemberAccount } from '../member-data/service.ts';
import { selects } from './selection.ts';

export interface AccountApiContext {
  readonly account: MemberAccount;
  /** the access token's scopes: the identity fields follow them, as UserInfo's claims do */
  readonly scopes: ReadonlySet<string>;
}

const PROGRESS_PATH = ['nodes', 'lastWatchedLecture'] as const;

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function parseInstant(value: unknown): string {
  if (typeof value !== 'string' || !ISO_INSTANT.test(value) || Number.isNaN(Date.parse(value))) {
    throw new GraphQLError('DateTime must be an ISO 8601 date-time string', { extensions: { code: 'BAD_USER_INPUT' } });
  }
  return new Date(value).toISOString();
}

const DateTime = new GraphQLScalarType({
  name: 'DateTime',
  // the service already answers ISO 8601 strings
  serialize: (value) => (value instanceof Date ? value.toISOString() : String(value)),
  parseValue: parseInstant,
  parseLiteral: (ast) => parseInstant(ast.kind === Kind.STRING ? ast.value : undefined),
});

/** GraphQL enum values ↔ the service's lower-case strings. */
function enumValues<T extends string>(values: readonly T[]): Record<Uppercase<T>, T> {
  return Object.fromEntries(values.map((v) => [v.toUpperCase(), v])) as Record<Uppercase<T>, T>;
}

export const resolvers = {
  DateTime,
  Query: {
    viewer: (_root: unknown, _args: unknown, context: AccountApiContext) => context.account,
  },
  Viewer: {
    id: (account: MemberAccount) => account.member.memberId,
    // the member consented to share the address only with `email` (spec §2.1), as in UserInfo
    // and the ID token; `account:read` is their enrolments, progress, orders and registrations
    email: async (account: MemberAccount, _args: unknown, context: AccountApiContext) => (context.scopes.has('email') ? (await account.profile()).email : null),
    // progress asked for: fetched with the page in one lookup, so the items resolve without a promise each
    enrolledCourses: (account: MemberAccount, args: PageArgs, _context: AccountApiContext, info: GraphQLResolveInfo) =>
      (selects(info, PROGRESS_PATH) ? account.enrolledCoursesWithProgress(args) : account.enrolledCourses(args)),
    orders: (account: MemberAccount, args: PageArgs) => account.orders(args),
    eventRegistrations: (account: MemberAccount, args: PageArgs) => account.eventRegistrations(args),
  },
  EnrolledCourse: {
    // fetched with the page, or else batched per request: a page of courses is one progress lookup
    lastWatchedLecture: (course: EnrolledCourse | EnrolledCourseWithProgress, _args: unknown, context: AccountApiContext) =>
      ('lastWatchedLecture' in course ? course.lastWatchedLecture : context.account.lastWatchedLecture(course.slug)),
  },
  OrderStatus: enumValues(['pending', 'paid', 'refunded', 'cancelled', 'failed'] as const),
  OrderItemKind: enumValues(['course', 'event', 'digital_product', 'membership_plan', 'other'] as const),
  RegistrationStatus: enumValues(['registered', 'waitlisted', 'cancelled', 'attended'] as const),
};
