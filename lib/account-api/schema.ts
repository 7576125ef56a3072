/**
 * The Account API schema (SDL). Read-only: the signed-in member at the token's site, and
 * nothing that could name another member or site.
 *
 * @module
 */

export const typeDefs = /* GraphQL */ `
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
  Null when the site keeps no email for the member.
  """
  email: String
  """
  Courses the member is enrolled in. first: 0 to the cap (100 by default).
  """
  enrolledCourses(first: Int = 20, after: String): EnrolledCourseConnection
  orders(first: Int = 20, after: String): OrderConnection
  eventRegistrations(first: Int = 20, after: String): EventRegistrationConnection
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
