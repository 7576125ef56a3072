/**
 * The Account API, `POST /account/graphql`: GraphQL over the signed-in member's data at the
 * token's site, for member tokens with `account:read`. Mounted by the composition root when
 * `options.memberData` is set.
 *
 * @module
 */
export { resolveAccountApiOptions } from './options.ts';
export type { AccountApiOptions, ResolvedAccountApiOptions } from './options.ts';
export { ACCOUNT_API_ACCESS, ACCOUNT_API_PATH, createAccountApi } from './router.ts';
export type { AccountApiDeps } from './router.ts';
export { createAccountApiEngine } from './engine.ts';
export type { AccountApiEngine, EngineAnswer } from './engine.ts';
export type { AccountApiContext } from './resolvers.ts';
export { typeDefs as accountApiTypeDefs, typeDefsFor as accountApiTypeDefsFor } from './schema.ts';
export { ASSUMED_LIST_SIZE, MAX_FRAGMENT_NESTING, MAX_LISTS, createQueryLimitsRule, measureSelectionSet } from './rules/query-limits.ts';
export type { Measure, QueryLimits } from './rules/query-limits.ts';
export { NoIntrospectionRule } from './rules/no-introspection.ts';
