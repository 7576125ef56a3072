/**
 * The scope catalogue: the one table every scope-related fact is derived from
 * (provider `scopes`, resource-server scope, discovery `scopes_supported`,
 * protected-resource metadata, the consent page, `/openapi.json`, `/auth.md`).
 *
 * @module
 */

/** Who a client acts for. */
export type Audience = 'member' | 'operator';

/** `identity` scopes are OpenID Connect's; `read`/`write` scopes guard data. */
export type ScopeAccess = 'identity' | 'read' | 'write';

export interface ScopeDefinition {
  readonly name: string;
  /** Shown on the consent page and in the docs. */
  readonly description: string;
  readonly access: ScopeAccess;
  /** Audiences whose clients may hold the scope. */
  readonly audiences: readonly Audience[];
}

const BOTH: readonly Audience[] = ['member', 'operator'];
const OPERATOR: readonly Audience[] = ['operator'];
const MEMBER: readonly Audience[] = ['member'];

function identity(name: string, description: string): ScopeDefinition {
  return { name, description, access: 'identity', audiences: BOTH };
}

/** `read`/`write` pairs of the operator (admin) API, spec §2.1. */
function operatorPair(resource: string, label: string, access: readonly ('read' | 'write')[] = ['read', 'write']) {
  return access.map((a): ScopeDefinition => ({
    name: `${resource}:${a}`,
    description: `${a === 'read' ? 'Read' : 'Write'} ${label}`,
    access: a,
    audiences: OPERATOR,
  }));
}

const DEFINITIONS: ScopeDefinition[] = [
  identity('openid', 'Sign you in (OpenID Connect authentication)'),
  identity('profile', 'See your basic profile information (name)'),
  identity('email', 'See your email address'),
  ...operatorPair('courses', 'courses'),
  ...operatorPair('students', 'students'),
  ...operatorPair('members', 'members'),
  ...operatorPair('analytics', 'analytics', ['read']),
  ...operatorPair('curriculum', 'curriculum'),
  ...operatorPair('orders', 'orders', ['read']),
  ...operatorPair('school', 'school settings'),
  ...operatorPair('appearance', 'appearance'),
  ...operatorPair('events', 'events'),
  ...operatorPair('membership_plans', 'membership plans'),
  ...operatorPair('coupons', 'coupons'),
  ...operatorPair('posts', 'posts'),
  ...operatorPair('subscriptions', 'subscriptions'),
  ...operatorPair('digital_products', 'digital products'),
  ...operatorPair('comments', 'comments', ['read']),
  ...operatorPair('lecturers', 'lecturers'),
  ...operatorPair('storage', 'storage', ['write']),
  ...operatorPair('forms', 'forms', ['read']),
  ...operatorPair('pages', 'pages'),
  { name: 'account:read', description: 'Read your own account at this school: enrolments, progress, orders and event registrations', access: 'read', audiences: MEMBER },
  { name: 'account:write', description: 'Make changes to your own account at this school', access: 'write', audiences: MEMBER },
];

export const SCOPES: readonly ScopeDefinition[] = Object.freeze(DEFINITIONS.map((s) => Object.freeze(s)));

const BY_NAME: ReadonlyMap<string, ScopeDefinition> = new Map(SCOPES.map((s) => [s.name, s]));

/** Every scope name, in catalogue order. */
export const SCOPE_NAMES: readonly string[] = Object.freeze(SCOPES.map((s) => s.name));

/** The OpenID Connect scopes (`openid`, `profile`, `email`). */
export const IDENTITY_SCOPES: readonly string[] = Object.freeze(
  SCOPES.filter((s) => s.access === 'identity').map((s) => s.name),
);

export function findScope(name: string): ScopeDefinition | undefined {
  return BY_NAME.get(name);
}

export function isKnownScope(name: string): boolean {
  return BY_NAME.has(name);
}

/** Scopes a client of `audience` may hold at most, in catalogue order. */
export function scopesForAudience(audience: Audience): string[] {
  return SCOPES.filter((s) => s.audiences.includes(audience)).map((s) => s.name);
}

/** Splits a space-delimited `scope` value into unique names, keeping order. */
export function parseScope(value: string | undefined | null): string[] {
  if (!value) return [];
  return [...new Set(value.split(' ').filter(Boolean))];
}
