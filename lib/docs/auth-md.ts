/**
 * `/auth.md`: this deployment's authorization interface in the shape of the spec document,
 * rendered from the configuration at start-up (baseUrl, registration variant, metadata
 * documents, ID tokens, the scope catalogue, the endpoint table, the limits).
 *
 * @module
 */
import { accountApiTypeDefsFor, MAX_FRAGMENT_NESTING, MAX_LISTS } from '../account-api/index.ts';
import { CONFIDENTIAL_CLIENT_AUTH_METHOD, loopbackPortRule, PROTOCOL, PUBLIC_CLIENT_AUTH_METHOD, REFRESH_TOKEN_GRANT } from '../constants.ts';
import type { ResolvedOptions } from '../config/options.ts';
import { ENDPOINTS } from '../endpoints.ts';
import { DEFAULT_PAGE_SIZE } from '../member-data/pagination.ts';
import { protectedResourceMetadata } from '../resource/metadata.ts';
import { SCOPES } from '../scopes/catalogue.ts';
import { endpointsSection } from './auth-md-endpoints.ts';
import { summariseSchema } from './graphql-fields.ts';
import { andList, bullets, bytes, code, codeList, duration, durationWithSeconds, numbered, perPeriod, table } from './markdown.ts';
import type { ResolvedAuthMdOptions } from './options.ts';
import { authorizationRateRule, claimsByScope, documentFetchBudget, oauthErrors, refreshRateRule, scopeRefusalRule } from './protocol.ts';
import { endpointUrl } from './surface.ts';
import { anonymousToolsSummary } from './tool-access.ts';
import { isServed } from '../served-endpoints.ts';
import { UNREVIEWED_DOCUMENT_SCOPES } from '../policies/metadata-documents.ts';

/** the PKCE methods, as prose names them */
const pkceMethods = PROTOCOL.codeChallengeMethods.join(', ');

export const TITLE = 'Learning-Platform Authorization and Account Access Interface';

function variantName(options: ResolvedOptions): string {
  return options.registration.variant === 'restricted' ? 'Variant A (restricted)' : 'Variant B (open)';
}

function intro(options: ResolvedOptions): string {
  const covers = ['the OAuth 2.0 / OpenID Connect authorization surface of a course-hosting service', 'the scopes'];
  if (isServed('accountApi', options)) covers.push('the member Account API');
  if (isServed('mcp', options)) covers.push('the anonymous-capable tool endpoint');
  const list = `${covers.slice(0, -1).join(', ')} and ${covers.at(-1)}`;
  return `# ${TITLE}

This document covers the whole interface that is shown: ${list}. It is a single document, generated from this deployment's configuration, so every address and value in it is the one in force. The service is reached at ${options.baseUrl}. Two deployment variants exist and differ only in client registration; this deployment runs **${variantName(options)}** (see Authentication, Registration). The address of the authorization server is the same as ${options.baseUrl}.`;
}

function whatItDoes(options: ResolvedOptions): string {
  const docs = [
    isServed('openapi', options) ? `a machine-readable API description at \`${endpointUrl(options, 'openapi')}\`` : undefined,
    isServed('authMd', options) ? `this interface description at \`${endpointUrl(options, 'authMd')}\`` : undefined,
  ].filter(Boolean);
  return `## 1. What the service does

The service hosts online courses for sites (schools). It exposes an HTTP API protected by OAuth 2.0 / OpenID Connect. Clients act in one of two audiences:

${bullets([
    `**Operator audience**: the client acts for a site operator (an account with the role ${options.operatorRoles.map(code).join(' or ')} at the site) and reaches the admin API, using the operator scopes.`,
    `**Member audience**: the client acts for a signed-in member of a site (including students) and reads that one person's data at that one site${isServed('accountApi', options) ? ': enrollments, progress, orders and event registrations' : ''}. Member tokens carry \`account:read\`.`,
  ])}

The only supported way to obtain a credential is the Authorization Code flow with PKCE (${pkceMethods}). An autonomous agent-authentication extension (identity assertions, service authentication, an anonymous-registration claim ceremony) is unsupported; clients must not call identity or registration endpoints meant for it. The claim step is not applicable.

${docs.length ? `The service also serves ${docs.join(' and ')}.` : ''}`.trimEnd();
}

function scopesSection(options: ResolvedOptions): string {
  const memberOnly = SCOPES.filter((s) => s.audiences.length === 1 && s.audiences[0] === 'member').map((s) => s.name);
  const prm = protectedResourceMetadata(options.baseUrl).scopes_supported;
  return `### 2.1 Scopes (complete list)

Each scope is a plain string; requested as a space-separated list in \`scope\`.

${table(['Scope', 'Audience', 'Access', 'Grants'], SCOPES.map((s) => [code(s.name), s.audiences.join(', '), s.access, s.description]))}

Rules:

${bullets([
    `${codeList(memberOnly)} ${memberOnly.length === 1 ? 'is' : 'are'} reserved to the member audience. Requesting ${memberOnly.length === 1 ? 'it' : 'one'} from an operator client (one obtained through the registration endpoint or a Client ID Metadata Document) fails with \`invalid_scope\`. Operator clients use the other scopes.`,
    'A member client may hold only the scopes its site operator picked for it.',
    `At the authorization endpoint, ${scopeRefusalRule(options)}.`,
    `The protected-resource metadata lists ${codeList(prm)} in \`scopes_supported\`, for a client to request first under the rule above. Request data scopes when needed; a \`403\` \`insufficient_scope\` answer names the scope it lacks (step-up).`,
  ])}`;
}

function metadataDocumentRule(options: ResolvedOptions): string {
  const cimd = options.clientIdMetadataDocuments;
  if (!cimd.enabled) {
    return 'Client ID Metadata Documents: **off** in this deployment. A `client_id` that is an https URL is rejected; discovery says `client_id_metadata_document_supported: false`.';
  }
  const hosts = cimd.allowedHosts === null
    ? 'from **any host** (open registration is enabled)'
    : `only from these hosts: ${codeList([...cimd.allowedHosts])} (one without a port is port 443 only); a \`client_id\` URL on any other host or port is rejected`;
  const unreviewed = [...UNREVIEWED_DOCUMENT_SCOPES];
  const identity = unreviewed.filter((s) => SCOPES.find((d) => d.name === s)?.access === 'identity');
  return `Client ID Metadata Documents: **on**, ${hosts}. The \`client_id\` is the https URL of a JSON document whose \`client_id\` equals that URL. Its \`redirect_uris\` must be under the document host or be a loopback address. Such clients act for site operators. While unreviewed by a site operator a client may request read scopes (\`*:read\`) and identity scopes (${codeList(identity)}) only. ${documentFetching(options)}`;
}

/** How this server fetches a document (lib/cimd/guard.ts): what a publisher needs to know when a fetch is refused. */
function documentFetching(options: ResolvedOptions): string {
  const budget = documentFetchBudget(options);
  return [
    'This server fetches the document from public hosts only: a name reserved for local use (`localhost`, `*.local`, `*.home.arpa`, `*.internal`, a single label), or a host that is or resolves to a special-use address (loopback, private, link-local, documentation and the other IANA special-purpose ranges), is refused with `invalid_client` and nothing is sent to it.',
    ...(budget ? [`At most ${budget.perHost} documents are fetched from one host and at most ${budget.perCaller} fetches are triggered by one client address per ${perPeriod(budget.windowSeconds)}; a document already cached costs nothing. Over budget, the request that names the client is answered \`429\` \`temporarily_unavailable\` with \`Retry-After\` (an error page at the authorization endpoint, never a redirect).`] : []),
    `A failed fetch (network error, non-200 answer, oversized document) is remembered for ${duration(options.clientIdMetadataDocuments.failureCacheSeconds)}: a retry within that time gets the same error.`,
  ].join(' ');
}

function clientIdentity(options: ResolvedOptions): string {
  return `### 2.2 Client identity

${bullets([
    options.clientIdMetadataDocuments.enabled
      ? '`client_id`: string. Either an issued identifier, or (for clients that are not pre-registered vendor platforms) an HTTPS URL of a Client ID Metadata Document.'
      : '`client_id`: string, an issued identifier.',
    `Token-endpoint auth method: public clients use ${code(PUBLIC_CLIENT_AUTH_METHOD)}; confidential clients use ${code(CONFIDENTIAL_CLIENT_AUTH_METHOD)} (\`client_id\` and \`client_secret\` in the form body). HTTP Basic is refused with \`401\` \`invalid_client\`. The same methods hold at the revocation and introspection endpoints; discovery lists them as \`token_endpoint_auth_methods_supported\`, \`revocation_endpoint_auth_methods_supported\` and \`introspection_endpoint_auth_methods_supported\`.`,
    `PKCE with ${codeList(PROTOCOL.codeChallengeMethods)} is required of every client; \`plain\` and missing challenges are refused.`,
    `Redirect URIs match exactly; ${loopbackPortRule(codeList)}.`,
    metadataDocumentRule(options),
    'Member-audience clients are created by a site operator in the site\'s admin area (Developers, then OAuth applications, visible once the "MCP connections" beta feature is enabled); the operator picks the scopes and hands the `client_id` to the integrator. Any person with a role at the site, students included, can then authorize it. There is no self-serve route to a member client; the registration endpoint never creates one.',
    'Operator clients act for one site per authorization: when the signing-in account operates several sites, it chooses one on the consent page; the tokens carry it as `org_id`.',
  ])}`;
}

function idTokenSection(options: ResolvedOptions): string {
  const claims = table(['Scope', 'Claims (UserInfo and ID token)'], claimsByScope().map(({ scope, claims: c }) => [code(scope), codeList(c)]));
  if (!options.idTokens) {
    return `### 2.3 ID token: not issued by this deployment

No \`id_token\` is ever returned: the discovery document lists neither \`id_token_signing_alg_values_supported\` nor \`jwks_uri\`, and no JWKS is served. Use UserInfo (\`${endpointUrl(options, 'userinfo')}\`) for the claims:

${claims}`;
  }
  const rows = [
    [code('iss'), `equals the origin ${options.issuer}`],
    [code('aud'), 'equals the client\'s `client_id`'],
    [code('exp'), `lifetime ${duration(PROTOCOL.idTokenLifetime)} from issue`],
    [code('nonce'), 'echoes the `nonce` sent to the authorization endpoint'],
    [claimsByScope().flatMap((c) => c.claims).map(code).join(', '), 'equal what UserInfo returns for the same token'],
  ];
  return `### 2.3 ID token (issued when \`openid\` is granted at the authorization-code exchange)

${table(['Claim', 'Rule'], rows)}

Signing algorithm ${PROTOCOL.idTokenSigningAlg}; the key is named by the header \`kid\` and found at the \`jwks_uri\` of the discovery document (\`${endpointUrl(options, 'jwks')}\`). Refresh responses carry no \`id_token\`. Claims by scope:

${claims}`;
}

function memberRecord(options: ResolvedOptions): string {
  if (!isServed('accountApi', options)) {
    return '### 2.4 Member record\n\nThis deployment does not serve the Account API.';
  }
  const { rows, enums, scalars } = summariseSchema(accountApiTypeDefsFor(Math.min(DEFAULT_PAGE_SIZE, options.accountApi.maxPageSize)));
  return `### 2.4 Member record (Account API, field \`viewer\`)

${table(['Field', 'Type', 'Notes'], rows.map((r) => [code(r.path), code(r.type), r.notes]))}

${bullets([
    ...enums.map((e) => `\`${e.name}\`: ${codeList(e.values)}`),
    ...scalars.map((s) => `\`${s.name}\`: ${s.description}`),
  ])}`;
}

/** What presenting a spent refresh token again does, with the grace of `options.refreshTokenGrace` (README, "Refresh tokens: retries and races"). */
function spentRefreshRule(graceSeconds: number): string {
  const reuse = 'Using a spent refresh token again revokes the whole grant';
  if (graceSeconds === 0) return `${reuse}.`;
  return `${reuse}, with one exception: within ${duration(graceSeconds)} of its rotation, the client it was issued to may present it again (a retry after a \`503\`, or two refreshes racing) and gets a new token pair of the same grant, as long as the token that replaced it has not been used yet.`;
}

function statesSection(options: ResolvedOptions): string {
  const { ttl } = options;
  return `## 3. States and transitions

${bullets([
    `Authorization code: issued when the user approves; single use; expires after ${duration(ttl.authorizationCode)}. Using it a second time revokes every token of that grant.`,
    `Access token: opaque; valid for ${duration(ttl.accessToken)} or until revoked (revocation takes effect at once).`,
    `Refresh token: issued with every code exchange (unless the client's registration leaves \`refresh_token\` out of its \`grant_types\`); valid for ${duration(ttl.refreshToken)}; rotated on every use (each refresh answer carries a new one and spends the old one). ${spentRefreshRule(options.refreshTokenGrace)}`,
    'Revocation of an access token or of a refresh token ends the whole grant: every access and refresh token of that client for that member issued under it (a later authorization of the same client in the same sign-in session reuses the grant), the other kind included. A client revokes only its own tokens: a public client naming another client\'s token gets `200` and nothing is revoked (so that tokens cannot be probed that way); a confidential client gets `400` `invalid_request`.',
    `Sign-in session: the browser stays signed in for ${duration(ttl.session)}; tokens do not end with it. There is no logout endpoint.`,
  ])}`;
}

function authenticationSection(options: ResolvedOptions): string {
  const restricted = options.registration.variant === 'restricted';
  const cimd = options.clientIdMetadataDocuments.enabled;
  const obtain = restricted
    ? `Obtain a \`client_id\`: a known vendor platform looks itself up at \`${endpointUrl(options, 'registration')}\` by \`client_name\`;${cimd ? ' a client whose metadata document is on a permitted host uses the document URL;' : ''} a member client gets its \`client_id\` from a site operator (2.2).`
    : `Obtain a \`client_id\`: register at \`${endpointUrl(options, 'registration')}\` (RFC 7591, Registration above)${cimd ? ', or use the https URL of your Client ID Metadata Document' : ''}; a member client gets its \`client_id\` from a site operator (2.2).`;
  const rules = [
    `The member token is bound to the origin ${options.baseUrl} by \`resource\`${isServed('accountApi', options) && isServed('mcp', options) ? `; the same token works at both \`${ENDPOINTS.mcp.path}\` and \`${ENDPOINTS.accountApi.path}\`` : ''}.`,
    ...(isServed('mcp', options) ? [`Unauthenticated request to \`${ENDPOINTS.mcp.path}\`: ${anonymousToolsSummary(options)}. An invalid, expired, revoked or foreign token is not downgraded to anonymous: it gets \`401\` \`invalid_token\`.`] : []),
    ...(isServed('accountApi', options) ? [
      `Unauthenticated request to \`${ENDPOINTS.accountApi.path}\`: answered \`401\` with error \`invalid_token\`; there is no anonymous mode.`,
      `Token issued for a different origin presented to \`${ENDPOINTS.accountApi.path}\`: \`401\` with error \`invalid_token\` and a \`resource_metadata\` pointer.`,
      `A valid token lacking \`account:read\` at \`${ENDPOINTS.accountApi.path}\`: \`403\` \`insufficient_scope\` naming the scope; an operator token there: \`403\` \`insufficient_scope\` naming none (no operator client can be granted \`account:read\`).`,
    ] : []),
    ...(options.idTokens ? ['Verifying an `id_token`: check `iss`, `aud`, `exp`, `nonce` and the signature per 2.3.'] : ['No `id_token` is issued; read the claims from UserInfo.']),
  ];
  return `## 5. Authentication

${numbered([
    `Discover: fetch \`${endpointUrl(options, 'protectedResourceMetadata')}\` and \`${endpointUrl(options, 'authorizationServerMetadata')}\` (or \`${endpointUrl(options, 'openidConfiguration')}\`). A challenge cannot be relied upon to discover; a protected endpoint answers an invalid token or a token lacking scope with a \`WWW-Authenticate\` header pointing at the protected-resource metadata (\`resource_metadata\`). ${challengeResource(options)}`,
    `Choose a client type: public (${code(PUBLIC_CLIENT_AUTH_METHOD)}) or confidential (${code(CONFIDENTIAL_CLIENT_AUTH_METHOD)}); PKCE with ${codeList(PROTOCOL.codeChallengeMethods)} is used either way.`,
    obtain,
    `Generate a PKCE \`code_verifier\` and its ${pkceMethods} \`code_challenge\`; send the user to \`${endpointUrl(options, 'authorization')}\` with the parameters of section 4, including \`resource=${options.baseUrl}\`.`,
    `On approval the user returns to \`redirect_uri\` with \`code\`, \`state\` and \`iss\`. Check \`state\` and \`iss\`, then exchange the code at \`${endpointUrl(options, 'token')}\` with the \`code_verifier\` within ${duration(options.ttl.authorizationCode)}.`,
    'Call APIs with header `Authorization: Bearer <ACCESS_TOKEN>`.',
    `Refresh with the ${code(REFRESH_TOKEN_GRANT)} grant before or after the access token expires (${duration(options.ttl.accessToken)}).`,
    `Revoke via \`${endpointUrl(options, 'revocation')}\`.`,
  ])}

Rules:

${bullets(rules)}`;
}

/**
 * What the document a challenge links to names: the origin every token is bound to, never the
 * URL that was requested, which RFC 9728 §3.3 would have it repeat; so a client must accept a
 * same-origin prefix (as the MCP SDKs' resource check does) rather than discard it.
 */
function challengeResource(options: ResolvedOptions): string {
  const { resource } = protectedResourceMetadata(options.baseUrl);
  const protectedPaths = (['mcp', 'accountApi', 'userinfo'] as const).filter((id) => isServed(id, options)).map((id) => code(ENDPOINTS[id].path));
  return `That document names \`resource\` = \`${resource}\`, the origin every token is bound to, whichever URL was requested (${protectedPaths.join(', ')} or another path): RFC 9728 §3.3 asks for the two to be identical, and a client checking that strictly discards the document. Accept it when the requested URL has the same origin and its path starts with the \`resource\`'s path (a prefix match), and send \`resource=${resource}\`.`;
}

function errorsSection(options: ResolvedOptions): string {
  const errors = oauthErrors(options);
  const undescribed = [...new Set(errors.filter((e) => !e.described).map((e) => e.code))];
  const rows = errors.map((e) => [
    code(e.code),
    e.status === undefined ? 'redirect' : String(e.status),
    `${e.condition}${e.challenge ? '; with a `WWW-Authenticate` header' : ''}`,
  ]);
  return `## 7. Errors

OAuth endpoints return RFC 6749 section 5.2 error bodies: JSON with \`error\` (code) and \`error_description\` (human-readable). At the authorization endpoint errors are redirects to \`redirect_uri\` carrying \`error\`, \`state\` and \`iss\`, and \`error_description\` where the server has words for it${undescribed.length ? ` (not for ${andList(undescribed.map(code))})` : ''}, unless the client or \`redirect_uri\` cannot be trusted, in which case an error page is shown.

${table(['Code', 'Status', 'Condition'], rows)}${isServed('accountApi', options) ? `

The Account API answers GraphQL errors in \`errors[]\`, each with \`extensions.code\` (for example \`BAD_USER_INPUT\`, with \`extensions.reason\` such as \`PAGE_SIZE_TOO_LARGE\`); its \`401\` and \`403\` answers are the bearer errors above.` : ''}`;
}

function limitsSection(options: ResolvedOptions, md: ResolvedAuthMdOptions): string {
  const { ttl, accountApi } = options;
  const rows: string[][] = [
    ...(options.idTokens ? [['ID token lifetime', `${duration(PROTOCOL.idTokenLifetime)} (clients allow only usual clock skew)`]] : []),
    ['Access token lifetime', durationWithSeconds(ttl.accessToken)],
    ['Refresh token lifetime', `${durationWithSeconds(ttl.refreshToken)}; rotated on every use`],
    ['Authorization code lifetime', `${durationWithSeconds(ttl.authorizationCode)}; single use`],
    ['Sign-in and consent page', `${durationWithSeconds(ttl.interaction)} to complete`],
    ...(options.clientIdMetadataDocuments.enabled ? [['Unreviewed Client ID Metadata Document clients', 'read and identity scopes only']] : []),
  ];
  const authorizationRate = authorizationRateRule(options);
  if (authorizationRate) {
    rows.push(['Authorization requests', `${authorizationRate}; beyond, \`429\` with \`Retry-After\` (an error page, never a redirect)`]);
  }
  const refreshRate = refreshRateRule(options);
  if (refreshRate) {
    rows.push(['Refreshes', `${refreshRate} (a grant: one client's sign-in in one browser session); beyond, \`429\` \`temporarily_unavailable\` with \`Retry-After\`, the refresh token still usable`]);
  }
  const fetchBudget = documentFetchBudget(options);
  if (fetchBudget) {
    rows.push(['Client ID Metadata Document fetches', `at most ${fetchBudget.perHost} per host and ${fetchBudget.perCaller} per client address per ${perPeriod(fetchBudget.windowSeconds)} (a cached document costs nothing); `
      + 'beyond, `429` `temporarily_unavailable` with `Retry-After`']);
  }
  if (isServed('accountApi', options)) {
    rows.push(
      ['Account API page size (`first`)', `default ${Math.min(DEFAULT_PAGE_SIZE, accountApi.maxPageSize)}, maximum ${accountApi.maxPageSize}; a larger \`first\` is refused (\`BAD_USER_INPUT\`), not trimmed`],
      ['Account API query depth', `${accountApi.maxDepth} levels of fields; fragments nested in one another at most ${MAX_FRAGMENT_NESTING} levels`],
      ['Account API query cost', `${accountApi.maxCost} (each field 1; a list multiplies what is under it by its \`first\`; a paged list costs at least its \`first\`, the items it fetches); at most ${MAX_LISTS} paged lists, aliases included`],
      ['Account API query size', `${accountApi.maxTokens} lexical tokens`],
      ['Account API request body', bytes(accountApi.maxBodyBytes)],
      ['Account API introspection', accountApi.introspection ? 'on' : 'off'],
    );
  }
  const throttle = options.signInThrottle;
  if (throttle) {
    rows.push(['Sign-in attempts', `after ${throttle.accountFailures} failed sign-ins per account or ${throttle.ipFailures} per client address, `
      + `each further attempt waits 1 s, 2 s, 4 s, … after the last, up to ${duration(throttle.maxDelaySeconds)}; earlier ones get `
      + `\`429\` with \`Retry-After\`. Forgotten ${duration(throttle.windowSeconds)} after the wait that the last failure earned has ended`]);
  }
  const limited = [
    ...(authorizationRate ? ['authorization requests'] : []),
    ...(refreshRate ? ['refreshes per grant'] : []),
    ...(throttle ? ['sign-in attempts'] : []),
    ...(options.registration.rateLimit ? ['registrations (see Endpoints, Registration)'] : []),
    ...(fetchBudget ? ['Client ID Metadata Document fetches'] : []),
  ];
  rows.push(['Rate limits', md.rateLimits ?? (limited.length ? `none applied by this server beyond ${andList(limited)}` : 'none applied by this server')]);
  rows.push(...md.limits.map((l) => [l.item, l.value]));
  return `## 8. Limits

${table(['Item', 'Value'], rows)}`;
}

export function renderAuthMd(options: ResolvedOptions, md: ResolvedAuthMdOptions): string {
  return `${[
    intro(options),
    whatItDoes(options),
    '## 2. Resources and their fields',
    scopesSection(options),
    clientIdentity(options),
    idTokenSection(options),
    memberRecord(options),
    statesSection(options),
    endpointsSection(options),
    authenticationSection(options),
    '## 6. Events\n\nNo events are sent to clients: there are no webhooks and no logout notifications.',
    errorsSection(options),
    limitsSection(options, md),
    `## 9. Versioning\n\n${isServed('openapi', options) ? 'This document and `/openapi.json` are rendered from the running configuration and change only when it changes' : 'This document is rendered from the running configuration and changes only when it changes'}; each answer carries an \`ETag\`. Paths carry no version number.`,
  ].join('\n\n')}\n`;
}
