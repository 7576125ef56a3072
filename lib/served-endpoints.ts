/**
 * Which endpoints of the table (./endpoints.ts) a deployment serves, and who answers each:
 * the one decision that the composition root, the provider dispatcher, `/openapi.json` and
 * `/auth.md` all read. test/docs/routes.test.ts requests every served entry over HTTP.
 *
 * @module
 */
import { ENDPOINTS } from './endpoints.ts';
import type { EndpointDefinition, EndpointId } from './endpoints.ts';

/** The facts of the resolved options that decide what is mounted (`ResolvedOptions` has them). */
export interface ServingFacts {
  readonly idTokens: boolean;
  readonly memberData: unknown;
  readonly registration: { readonly variant: 'restricted' | 'open' };
  readonly mcp: { readonly enabled: boolean };
  readonly docs: { readonly openapi: unknown; readonly authMd: unknown };
}

/** `provider`: oidc-provider answers it; `platform`: a router of this library. */
export type Answerer = 'provider' | 'platform';

/** Who answers the endpoint `id` under `facts`, or `undefined` when it is not served. */
export function answeredBy(id: EndpointId, facts: ServingFacts): Answerer | undefined {
  const { owner } = ENDPOINTS[id];
  switch (id) {
    case 'jwks': return facts.idTokens ? owner : undefined;
    // Variant A is a platform route; Variant B is oidc-provider's RFC 7591 registration
    case 'registration': return facts.registration.variant === 'open' ? 'provider' : 'platform';
    case 'accountApi': return facts.memberData !== undefined ? owner : undefined;
    case 'mcp': return facts.mcp.enabled ? owner : undefined;
    case 'openapi': return facts.docs.openapi !== false ? owner : undefined;
    case 'authMd': return facts.docs.authMd !== false ? owner : undefined;
    default: return owner;
  }
}

/** Whether the endpoint `id` is mounted under `facts`. */
export function isServed(id: EndpointId, facts: ServingFacts): boolean {
  return answeredBy(id, facts) !== undefined;
}

/** The served endpoints, in table order. */
export function servedEndpoints(facts: ServingFacts): EndpointDefinition[] {
  return (Object.keys(ENDPOINTS) as EndpointId[]).filter((id) => isServed(id, facts)).map((id) => ENDPOINTS[id]);
}

/** The endpoints oidc-provider answers under `facts`. */
export function providerEndpoints(facts: ServingFacts): EndpointDefinition[] {
  return (Object.keys(ENDPOINTS) as EndpointId[]).filter((id) => answeredBy(id, facts) === 'provider').map((id) => ENDPOINTS[id]);
}

/**
 * How the library's own routers (@koa/router) match a path, as {@link ownPathMatcher} and
 * every other piece (oidc-provider's endpoints, `/mcp`, the documents) do: exactly, case
 * (RFC 3986 §6.2.2.1: paths are case-sensitive) and trailing slash included.
 */
export const ROUTER_MATCHING = Object.freeze({ sensitive: true, strict: true });

/**
 * Whether a request path is the library's under `facts`: a served endpoint's path, exactly
 * (ROUTER_MATCHING), or any path under the interaction pages (`/oauth/interaction/`) or the
 * provider's resume path (`/oauth/authorize/`). `auth.routes()` hands every other path to the
 * host's routes.
 */
export function ownPathMatcher(facts: ServingFacts): (path: string) => boolean {
  const exact = new Set<string>();
  const prefixes: string[] = [`${ENDPOINTS.authorization.path}/`];
  for (const endpoint of servedEndpoints(facts)) {
    const param = endpoint.path.indexOf('/:');
    if (param < 0) exact.add(endpoint.path);
    else prefixes.push(endpoint.path.slice(0, param + 1));
  }
  return (path) => exact.has(path) || prefixes.some((prefix) => path.startsWith(prefix));
}
