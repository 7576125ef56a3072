/**
 * The Account API schema (SDL). Read-only: the signed-in member at the token's site, and
 * nothing that could name another member or site.
 *
 * @module
 */
import { DEFAULT_PAGE_SIZE } from '../member-data/pagination.ts';

/**
 * The schema with `defaultFirst` as the page size of a list that names none: the default page
 * size, or the deployment's cap when lower (`maxPageSize`). A fixed default above the cap
 * would make every list that leaves out `first` a PAGE_SIZE_TOO_LARGE error.
 */
export function typeDefsFor(defaultFirst: number): string {
  return /* GraphQL */ `
"""
A point in time: an ISO 8601 string in UTC, e.g. "2025-03-01T09:00:00.000Z".
"""
scalar DateTime @specifiedBy(url: "https://scalars.graphql.org/chillicream/date-time.html")

type Query {
  """
  The signed-in member, at the site (school) the access token was issued for.
  """
  viewer: Viewer!
}

type Viewer {
  """
  The member's account id (the token's sub).
  """
  id: ID!
  """
  The member's email address, with the email scope (as in UserInfo); null without it, or
  when the site keeps no email for the member.
  """
  email: String
  """
  Courses the member is enrolled in. first: 0 to the cap (100 by default).
  """
  enrolledCourses(first: Int = ${defaultFirst}, after: String): EnrolledCourseConnection
  orders(first: Int = ${defaultFirst}, after: String): OrderConnection
  eventRegistrations(first: Int = ${defaultFirst}, after: String): EventRegistrationConnection
}

type PageInfo {
  hasNextPage: Boolean!
  """
  Pass as after to get the next page; null on an empty page.
  """
  endCursor: String
}

type EnrolledCourseConnection {
  nodes: [EnrolledCourse!]!
  pageInfo: PageInfo!
  totalCount: Int!
}

type EnrolledCourse {
  slug: String!
  title: String!
  enrolledAt: DateTime!
  """
  When access ends; null when hasLifetimeAccess.
  """
  expireDate: DateTime
  hasLifetimeAccess: Boolean!
  """
  Where the member stopped; null before they watch anything.
  """
  lastWatchedLecture: LastWatchedLecture
}

type LastWatchedLecture {
  lectureId: ID!
  positionSeconds: Int!
}

type OrderConnection {
  nodes: [Order!]!
  pageInfo: PageInfo!
  totalCount: Int!
}

enum OrderStatus {
  PENDING
  PAID
  REFUNDED
  CANCELLED
  FAILED
}

type Order {
  id: ID!
  """
  The order number shown to the member.
  """
  number: String!
  status: OrderStatus!
  createdAt: DateTime!
  total: Money!
  items: [OrderItem!]!
}

enum OrderItemKind {
  COURSE
  EVENT
  DIGITAL_PRODUCT
  MEMBERSHIP_PLAN
  OTHER
}

type OrderItem {
  title: String!
  kind: OrderItemKind!
  quantity: Int!
  """
  The line total.
  """
  total: Money!
}

type Money {
  """
  Exact decimal in the currency's major unit, e.g. "49.90" (a string, so no float rounding).
  """
  amount: String!
  """
  ISO 4217 currency code.
  """
  currency: String!
}

type EventRegistrationConnection {
  nodes: [EventRegistration!]!
  pageInfo: PageInfo!
  totalCount: Int!
}

enum RegistrationStatus {
  REGISTERED
  WAITLISTED
  CANCELLED
  ATTENDED
}

type EventRegistration {
  id: ID!
  event: Event!
  status: RegistrationStatus!
  registeredAt: DateTime!
}

type Event {
  id: ID!
  title: String!
  startsAt: DateTime!
}
`;
}

/** The schema with the default page size (and the default cap). */
export const typeDefs = typeDefsFor(DEFAULT_PAGE_SIZE);
