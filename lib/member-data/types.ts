/**
 * The host's member data (enrolments, progress, orders, event registrations) that the
 * Account API and the MCP member tools read. Placeholder: defined by the Account API work.
 *
 * @module
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- placeholder until the interface lands
export interface MemberDataSource {}
