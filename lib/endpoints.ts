/**
 * The endpoint table: every HTTP path the library serves, who owns it and what it is for.
 * The provider's `routes`, the request dispatcher, discovery, `/openapi.json` and `/auth.md`
 * read it, so a path is written down exactly once.
 *
 * @module
 */
import { PROTOCOL } from './constants.ts';

export type HttpMethod = 'GET' | 'POST' | 'DELETE' | 'PUT' | 'OPTIONS';

/**
 * `provider`: answered by oidc-provider itself (`providerRoute` is its route name);
 * `platform`: a router of this library, mounted beside the provider.
 */
export type EndpointOwner = 'provider' | 'platform';

export interface EndpointDefinition {
  readonly id: string;
  readonly path: string;
  readonly methods: readonly HttpMethod[];
  readonly owner: EndpointOwner;
  readonly providerRoute?: string;
  /**
   * Answers cross-origin preflights (`OPTIONS` with `Access-Control-Request-Method`): pages of
   * other origins may call it (lib/policies/cors.ts, or oidc-provider's own CORS)
   */
  readonly preflight?: true;
  readonly summary: string;
}

function endpoint(def: EndpointDefinition): EndpointDefinition {
  return Object.freeze(def);
}

export const ENDPOINTS = Object.freeze({
  protectedResourceMetadata: endpoint({ id: 'protectedResourceMetadata', path: '/.well-known/oauth-protected-resource', methods: ['GET'], owner: 'platform', preflight: true, summary: 'Protected-resource metadata (RFC 9728)' }),
  authorizationServerMetadata: endpoint({ id: 'authorizationServerMetadata', path: '/.well-known/oauth-authorization-server', methods: ['GET'], owner: 'provider', preflight: true, providerRoute: 'discovery', summary: 'Authorization-server metadata (RFC 8414)' }),
  openidConfiguration: endpoint({ id: 'openidConfiguration', path: '/.well-known/openid-configuration', methods: ['GET'], owner: 'provider', preflight: true, providerRoute: 'discovery', summary: 'OpenID Connect discovery document' }),
  authorization: endpoint({ id: 'authorization', path: '/oauth/authorize', methods: ['GET'], owner: 'provider', providerRoute: 'authorization', summary: `Authorization endpoint (code flow with PKCE ${PROTOCOL.codeChallengeMethods.join(', ')})` }),
  token: endpoint({ id: 'token', path: '/api/oauth/token', methods: ['POST'], owner: 'provider', preflight: true, providerRoute: 'token', summary: `Token endpoint (${PROTOCOL.grantTypes.join(', ')})` }),
  userinfo: endpoint({ id: 'userinfo', path: '/api/oauth/userinfo', methods: ['GET', 'POST'], owner: 'platform', preflight: true, summary: 'UserInfo: sub, email, name, org_id, roles' }),
  revocation: endpoint({ id: 'revocation', path: '/api/oauth/revoke', methods: ['POST'], owner: 'provider', preflight: true, providerRoute: 'revocation', summary: 'Token revocation (RFC 7009)' }),
  introspection: endpoint({ id: 'introspection', path: '/api/oauth/introspect', methods: ['POST'], owner: 'provider', preflight: true, providerRoute: 'introspection', summary: 'Token introspection (RFC 7662)' }),
  registration: endpoint({ id: 'registration', path: '/api/oauth/register', methods: ['POST'], owner: 'provider', preflight: true, providerRoute: 'registration', summary: 'Client registration' }),
  jwks: endpoint({ id: 'jwks', path: '/api/oauth/jwks', methods: ['GET'], owner: 'provider', preflight: true, providerRoute: 'jwks', summary: 'JSON Web Key Set for ID-token signatures' }),
  interaction: endpoint({ id: 'interaction', path: '/oauth/interaction/:uid', methods: ['GET', 'POST'], owner: 'platform', summary: 'Sign-in and consent pages' }),
  accountApi: endpoint({ id: 'accountApi', path: '/account/graphql', methods: ['POST'], owner: 'platform', summary: 'Account API: GraphQL over the signed-in member\'s own data' }),
  mcp: endpoint({ id: 'mcp', path: '/mcp', methods: ['POST'], owner: 'platform', preflight: true, summary: 'MCP endpoint (Streamable HTTP, stateless JSON): public tools anonymously, member and operator tools with a token' }),
  openapi: endpoint({ id: 'openapi', path: '/openapi.json', methods: ['GET'], owner: 'platform', summary: 'OpenAPI 3.1 description of every endpoint' }),
  authMd: endpoint({ id: 'authMd', path: '/auth.md', methods: ['GET'], owner: 'platform', summary: 'This deployment\'s authorization interface, in markdown' }),
});

export type EndpointId = keyof typeof ENDPOINTS;

/** The path of interaction `uid`'s page (the sign-in or consent step): where the provider sends the browser. */
export function interactionPath(uid: string): string {
  return ENDPOINTS.interaction.path.replace(':uid', uid);
}

const AUTHORIZATION_WITH_SLASH = `${ENDPOINTS.authorization.path}/`;

/**
 * Whether `path` reaches the authorization endpoint itself, as oidc-provider's router matches
 * it: its path, or its path with one trailing slash (the router strips one before giving up;
 * `/oauth/authorize/` is no resumption, whose uid is never empty). Every rule about "the
 * authorization request" asks this, not `path === …`, so that the slash goes around none.
 */
export function isAuthorizationPath(path: string): boolean {
  return path === ENDPOINTS.authorization.path || path === AUTHORIZATION_WITH_SLASH;
}

/** oidc-provider `routes` configuration derived from the table. */
export function providerRoutes(): Record<string, string> {
  const routes: Record<string, string> = {};
  for (const e of Object.values(ENDPOINTS)) {
    if (e.providerRoute && e.providerRoute !== 'discovery') routes[e.providerRoute] = e.path;
  }
  // The provider's userinfo feature is off (we serve our own, see lib/resource/userinfo.ts),
  // but its route name still needs a path.
  routes.userinfo = ENDPOINTS.userinfo.path;
  return routes;
}
