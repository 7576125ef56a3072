/**
 * The protocol facts this server fixes, written once. The provider configuration, discovery
 * (through it), the member-client manager, `/openapi.json`, `/auth.md` and the option checks
 * all read them from here; test/docs/consistency.test.ts compares them with what discovery
 * actually publishes.
 *
 * @module
 */

/** The grant that exchanges an authorization code (RFC 6749 §4.1.3). */
export const AUTHORIZATION_CODE_GRANT = 'authorization_code';
/** The grant that exchanges a refresh token (RFC 6749 §6). */
export const REFRESH_TOKEN_GRANT = 'refresh_token';

/** The token-endpoint auth method of a public client: PKCE, no secret (spec §2.2). */
export const PUBLIC_CLIENT_AUTH_METHOD = 'none';
/** The token-endpoint auth method of a confidential client: the secret in the form body (spec §2.2). */
export const CONFIDENTIAL_CLIENT_AUTH_METHOD = 'client_secret_post';

export const PROTOCOL = Object.freeze({
  /** the code flow only (spec §1) */
  responseTypes: ['code'],
  /**
   * how the code reaches `redirect_uri`: oidc-provider's modes for the code flow, `query` by
   * default; `form_post` pages carry the pages' CSP (lib/pages/headers.ts). Discovery's
   * `response_modes_supported` is the provider's; a test holds it to this list
   */
  responseModes: ['form_post', 'fragment', 'query'],
  grantTypes: [AUTHORIZATION_CODE_GRANT, REFRESH_TOKEN_GRANT],
  /** public clients use `none`, confidential ones `client_secret_post` (spec §2.2) */
  tokenEndpointAuthMethods: [PUBLIC_CLIENT_AUTH_METHOD, CONFIDENTIAL_CLIENT_AUTH_METHOD],
  /** what a client that names no method gets (RFC 7591 §2 leaves the default to the server) */
  defaultTokenEndpointAuthMethod: CONFIDENTIAL_CLIENT_AUTH_METHOD,
  /** PKCE is required, S256 only (spec §1) */
  codeChallengeMethods: ['S256'],
  /** spec §2.3 */
  idTokenSigningAlg: 'ES256',
  /** seconds: ten minutes from issue (spec §2.3, §8) */
  idTokenLifetime: 600,
} as const);

/**
 * Headers of every token-endpoint answer besides oidc-provider's `Cache-Control: no-store`:
 * RFC 6749 §5.1 asks for `Pragma: no-cache` too (for HTTP/1.0 caches; RFC 9111 deprecates
 * the header, oidc-provider no longer sends it, and it costs nothing to keep the RFC's word).
 */
/**
 * The `error_description` of the `login_required` answered when the account a sign-in or a
 * consent was for no longer exists (interactions/router.ts); the trace tells it from a
 * `prompt=none` that needs a page by it (lib/trace/explain.ts).
 */
export const ACCOUNT_GONE_DESCRIPTION = 'the signed-in account no longer exists';

export const TOKEN_RESPONSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({ Pragma: 'no-cache' });

export type GrantType = (typeof PROTOCOL.grantTypes)[number];
export type TokenEndpointAuthMethod = (typeof PROTOCOL.tokenEndpointAuthMethods)[number];

/** Token and session lifetimes in seconds when `options.ttl` leaves them out. */
export const DEFAULT_TTL = Object.freeze({
  accessToken: 3600,
  refreshToken: 14 * 24 * 3600,
  authorizationCode: 60,
  interaction: 3600,
  session: 14 * 24 * 3600,
  grant: 14 * 24 * 3600,
});

/**
 * Host names of the loopback interface as URLs spell them (WHATWG URL `hostname`, IPv6 in
 * brackets). Loopback redirect URIs match on any port (RFC 8252 §7.3), `http` is allowed for
 * them, and a `baseUrl` on one of them may be `http` outside production.
 */
export const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname);
}

/** The loopback redirect origins, `http://<host>`, as the documents name them. */
export const LOOPBACK_REDIRECT_ORIGINS: readonly string[] = Object.freeze([...LOOPBACK_HOSTS].map((host) => `http://${host}`));

/**
 * The loopback port rule in words, the one wording of auth.md, `/openapi.json` and the trace's
 * advice. oidc-provider ignores the port of a loopback redirect URI for native apps only, and
 * makes every registered, metadata-document or member client with one native
 * (lib/policies/client-metadata.ts, `applicationTypeFor`).
 */
export function loopbackPortRule(list: (origins: readonly string[]) => string = (origins) => origins.join(', ')): string {
  return `a loopback redirect URI (${list(LOOPBACK_REDIRECT_ORIGINS)}) of a native app matches on any port (RFC 8252 §7.3); a registered, metadata-document or member client with one is a native app`;
}

/** `http` on a loopback host: the redirect URI of a native app (RFC 8252 §7.3). */
export function isLoopbackUri(uri: string): boolean {
  const url = URL.parse(uri);
  return url !== null && url.protocol === 'http:' && isLoopbackHost(url.hostname);
}

/**
 * The MCP revisions `/mcp` serves: the current one (stateless: `server/discover`, a
 * per-request `_meta` envelope, `MCP-Protocol-Version`/`Mcp-Method`/`Mcp-Name` headers), and
 * the 2025 revisions for older clients (`initialize`, then requests).
 */
export const MCP_REVISIONS = Object.freeze({
  current: '2026-07-28',
  legacy: Object.freeze(['2025-11-25', '2025-06-18', '2025-03-26']),
});
