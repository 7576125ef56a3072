/**
 * The claims of a signed-in account: one function for the ID token and UserInfo, so the two
 * always agree. `sub`, `org_id` and `roles` come with `openid`; `name` with `profile`;
 * `email` with `email`.
 *
 * @module
 */
import type { Account } from './contracts.ts';
import { rolesAt } from './policies/audience.ts';

/** Scope → claims, also oidc-provider's `claims` configuration. */
export const SCOPE_CLAIMS = Object.freeze({
  openid: ['sub', 'org_id', 'roles'],
  profile: ['name'],
  email: ['email'],
} as const);

export interface AccountClaims {
  sub: string;
  org_id?: string;
  roles?: string[];
  name?: string;
  email?: string;
}

export function accountClaims(account: Account, site: string | undefined, scopes: ReadonlySet<string>): AccountClaims {
  const claims: AccountClaims = { sub: account.id };
  if (site !== undefined) {
    claims.org_id = site;
    claims.roles = rolesAt(account, site);
  }
  if (scopes.has('profile')) claims.name = account.name;
  if (scopes.has('email')) claims.email = account.email;
  return claims;
}
