/**
 * The audience rules: who a client acts for, which site its tokens carry, and who may
 * authorize it. Member clients belong to one site (client metadata `org_id`); operator
 * clients act for the site the signing-in operator chooses.
 *
 * @module
 */
import type { Account } from '../contracts.ts';
import type { Audience } from '../scopes/catalogue.ts';

/** The slice of an oidc-provider Client this module reads (extra metadata keeps its own name). */
export interface AudienceClient {
  readonly clientId: string;
  readonly audience?: unknown;
  readonly org_id?: unknown;
}

export function clientAudience(client: AudienceClient): Audience {
  return client.audience === 'member' ? 'member' : 'operator';
}

/** The site a member client belongs to. */
export function memberClientSite(client: AudienceClient): string | undefined {
  return clientAudience(client) === 'member' && typeof client.org_id === 'string' ? client.org_id : undefined;
}

/** Sites where the account holds an operator role, in a stable order. */
export function operatorSites(account: Account, operatorRoles: readonly string[]): string[] {
  return Object.entries(account.roles)
    .filter(([, roles]) => roles.some((r) => operatorRoles.includes(r)))
    .map(([site]) => site)
    .sort();
}

export function rolesAt(account: Account, site: string | undefined): string[] {
  if (!site) return [];
  return [...(Object.hasOwn(account.roles, site) ? account.roles[site]! : [])];
}

/**
 * Whether `account` may still use `site` through `client`: the rule of {@link checkEligibility}
 * for one site, asked again whenever a grant is used without the consent page (a refresh, a
 * code exchange, an authorization that an existing grant covers), so a role removed at a site
 * takes effect at the next token, not only at the next consent.
 */
export function mayUseSite(client: AudienceClient, account: Account, site: string, operatorRoles: readonly string[]): boolean {
  return clientAudience(client) === 'member'
    ? memberClientSite(client) === site && rolesAt(account, site).length > 0
    : operatorSites(account, operatorRoles).includes(site);
}

export type Eligibility =
  | { readonly allowed: true; readonly sites: readonly string[] }
  | { readonly allowed: false; readonly reason: string };

/**
 * Which sites `account` may authorize `client` for. Member clients: any account with a role
 * at the client's site (students included). Operator clients: the sites where the account
 * holds an operator role.
 */
export function checkEligibility(client: AudienceClient, account: Account, operatorRoles: readonly string[]): Eligibility {
  if (clientAudience(client) === 'member') {
    const site = memberClientSite(client);
    if (site && rolesAt(account, site).length > 0) return { allowed: true, sites: [site] };
    return { allowed: false, reason: 'This application belongs to a school you are not a member of.' };
  }
  const sites = operatorSites(account, operatorRoles);
  if (sites.length > 0) return { allowed: true, sites };
  return { allowed: false, reason: 'This application is for school administrators, and you do not administer any school.' };
}
