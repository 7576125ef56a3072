/**
 * The options of a bearer guard (`auth.requireBearer(options)`, `describeBearerRoute`),
 * checked when the guard is built: an unknown scope, scopes that no token of the allowed
 * audiences can carry together (`account:read` is the member audience's only, spec §2.1), or
 * an empty `audiences` would otherwise refuse every caller at run time, so each is a
 * `ConfigurationError` at start-up, with a "did you mean" hint for a misspelt scope.
 *
 * @module
 */
import { checkKnownKeys, didYouMean, fail, isPlainObject, show } from '../config/check.ts';
import { isKnownScope, SCOPE_NAMES, scopesForAudience } from '../scopes/catalogue.ts';
import type { Audience } from '../scopes/catalogue.ts';
import type { VerifyOptions } from './bearer.ts';

/** What a bearer guard asks of the token. */
export interface RequireBearerOptions extends VerifyOptions {
  /** no token → anonymous (`ctx.state.auth` undefined); a bad token is still 401 */
  readonly optional?: boolean;
}

const AUDIENCES: readonly Audience[] = ['member', 'operator'];

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
  if (audiences !== undefined && audiences.length === 0) fail(`${where}: audiences is empty, so no token could pass and every caller would be refused; leave it out for both, or name "member" and/or "operator"`);
  const wanted = scopes ?? [];
  const lacking = (audience: Audience) => wanted.filter((scope) => !scopesForAudience(audience).includes(scope));
  const allowed = audiences ?? AUDIENCES;
  if (allowed.every((audience) => lacking(audience).length > 0)) {
    const per = allowed.map((audience) => `${audience} tokens cannot carry ${lacking(audience).join(' ')}`);
    fail(`${where}: no token could carry the scopes ${wanted.join(' ')} (${per.join('; ')}), so every caller would get 403; split the route by audience or drop a scope`);
  }
  if (optional !== undefined && typeof optional !== 'boolean') fail(`${where}: optional must be true or false; got ${show(optional)}`);
  return guard as RequireBearerOptions;
}
