/**
 * The demo host's member data: an in-memory MemberDataSource over the seeded student's
 * enrolments, orders and event registrations. Placeholder until the Account API lands.
 */
import type { MemberDataSource } from '../../lib/member-data/types.ts';

export function createDemoMemberData(): MemberDataSource {
  return {};
}
