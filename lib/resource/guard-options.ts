/**
 * The options of a bearer guard (`auth.requireBearer(options)`, `describeBearerRoute`),
 * checked when the guard is built: an unknown scope would otherwise refuse every caller with
 * 403 at run time, so it is a `ConfigurationError` at start-up, with a "did you mean" hint.
 *
 * @module
 */
import { checkKnownKeys, didYouMean, fail, isPlainObject, show } from '../config/check.ts';
import { isKnownScope, SCOPE_NAMES } from '../scopes/catalogue.ts';
import type { VerifyOptions } from './bearer.ts';

/** What a bearer guard asks of the token. */
export interface RequireBearerOptions extends VerifyOptions {
  /** no token → anonymous (`ctx.state.auth` undefined); a bad token is still 401 */
  readonly optional?: boolean;
}

const AUDIENCES = ['member', 'operator'];

/** Checks `guard` for `where` (e.g. `auth.requireBearer()`); `extra` are further keys the caller allows. */
export function checkBearerGuard(where: string, guard: unknown, extra: readonly string[] = []): RequireBearerOptions {
  if (guard === undefined) return {};
  if (!isPlainObject(guard)) fail(`${where}: options must be an object like { scopes: ['courses:read'], audiences: ['operator'] }; got ${show(guard)}`);
  checkKnownKeys(where, guard, ['scopes', 'audiences', 'optional', ...extra]);
  const { scopes, audiences, optional } = guard as RequireBearerOptions;
  if (scopes !== undefined && (!Array.isArray(scopes) || scopes.some((s) => typeof s !== 'string'))) {
    fail(`${where}: scopes must be an array of scope names; got ${show(scopes)}`);
  }
  for (const scope of scopes ?? []) {
    if (!isKnownScope(scope)) {
      fail(`${where}: the scope ${show(scope)} is not in the scope catalogue, so no token could carry it and every caller would get 403${didYouMean(scope, SCOPE_NAMES)}`);
    }
  }
  if (audiences !== undefined && !Array.isArray(audiences)) fail(`${where}: audiences must be an array of "member" and/or "operator"; got ${show(audiences)}`);
  for (const audience of audiences ?? []) {
    if (!AUDIENCES.includes(audience)) fail(`${where}: audiences must be "member" or "operator"; got ${show(audience)}`);
  }
  if (optional !== undefined && typeof optional !== 'boolean') fail(`${where}: optional must be true or false; got ${show(optional)}`);
  return guard as RequireBearerOptions;
}
