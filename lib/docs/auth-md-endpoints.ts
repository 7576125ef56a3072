/**
 * Section 4 of `/auth.md`: the endpoint table, the request parameters and fields, and an
 * example request for each step of the flow.
 *
 * @module
 */
import { CLIENT_CAPABILITIES_META_KEY, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';

import type { ResolvedOptions } from '../config/options.ts';
import { ENDPOINTS } from '../endpoints.ts';
import type { EndpointDefinition, EndpointId } from '../endpoints.ts';
import {
  AUTHORIZATION_CODE_GRANT, CONFIDENTIAL_CLIENT_AUTH_METHOD, MCP_REVISIONS, PROTOCOL, PUBLIC_CLIENT_AUTH_METHOD, REFRESH_TOKEN_GRANT,
} from '../constants.ts';
import { andList, bytes, code, codeList, duration, fence, table } from './markdown.ts';
import { authorizeParameters, introspectionAudience, tokenGrants } from './protocol.ts';
import { endpointUrl, templatePath } from './surface.ts';
import { isServed, servedEndpoints } from '../served-endpoints.ts';
import { HTTPS_ONLY_METADATA, REGISTRATION_LIMITS } from '../policies/registration-limits.ts';
import { SCOPES, scopesForAudience } from '../scopes/catalogue.ts';
import { anonymousToolsSummary, toolListRule } from './tool-access.ts';

type Row = (options: ResolvedOptions) => readonly [request: string, response: string];

/**
 * The interaction's entry in the endpoint table covers its page and the forms the page posts
 * to sub-paths of it (interactions/router.ts): the forms' method and sub-paths go in its
 * Request column, as the page's own path does not answer that method (405).
 */
const INTERACTION_FORMS = { method: 'POST', actions: ['login', 'confirm', 'abort'] } as const;

/** The Request and Response columns, per endpoint; a new table entry does not compile until it is here. */
const ROWS: Record<EndpointId, Row> = {
  protectedResourceMetadata: () => ['none', 'protected-resource metadata (RFC 9728): `resource`, `authorization_servers`, `scopes_supported`'],
  authorizationServerMetadata: (o) => ['none', `authorization-server metadata (RFC 8414): lists every endpoint, grant type and scope; the source of truth; includes \`registration_endpoint\`, \`client_id_metadata_document_supported\` (here \`${o.clientIdMetadataDocuments.enabled}\`) and ${o.idTokens ? '`id_token_signing_alg_values_supported` and `jwks_uri`' : 'neither `id_token_signing_alg_values_supported` nor `jwks_uri` (no ID tokens)'}`],
  openidConfiguration: () => ['none', 'OpenID Connect discovery document (the same content)'],
  authorization: () => ['query parameters (below); interactive user sign-in and consent', 'redirect to `redirect_uri` with `code`, `state` and `iss` (RFC 9207)'],
  token: () => ['form-encoded (below)', 'JSON token response'],
  userinfo: () => ['header `Authorization: Bearer <ACCESS_TOKEN>`; the token must carry `openid`', 'JSON claims (2.3): `sub`, `org_id`, `roles`; `name` with `profile`; `email` with `email`'],
  revocation: () => ['form-encoded: `token`, `client_id` (and `client_secret` for confidential clients)', '`200`, empty: the access or refresh token is revoked with its whole grant (RFC 7009; see States and transitions)'],
  introspection: (o) => ['form-encoded: `token`, `client_id` (and `client_secret` for confidential clients)', `RFC 7662 JSON: \`active\`, \`scope\`, \`client_id\`, \`sub\`, \`iss\`, \`iat\`, \`exp\`; for an access token also \`aud\` (the resource it is bound to), \`org_id\`, \`roles\` and \`token_type\`; ${introspectionAudience(o)}`],
  registration: (o) => (o.registration.variant === 'restricted'
    ? ['JSON `{"client_name": <vendor platform name>}`', '`201` with the platform\'s `client_id` and public metadata (Variant A)']
    : ['JSON client metadata (RFC 7591)', '`201` with `client_id` (and `client_secret` for confidential clients) (Variant B)']),
  jwks: () => ['none', `the ${PROTOCOL.idTokenSigningAlg} public keys that sign ID tokens (JWKS)`],
  interaction: () => [
    `browser only; the page's forms \`${INTERACTION_FORMS.method}\` to ${andList(INTERACTION_FORMS.actions.map((action) => code(`${templatePath(ENDPOINTS.interaction.path)}/${action}`)))}`,
    'the sign-in and consent pages the authorization endpoint leads to; not an API',
  ],
  accountApi: () => ['JSON body `{"query": <GraphQL string>, "variables": {…}}`; header `Authorization: Bearer <ACCESS_TOKEN>` (member token with `account:read`); header `Content-Type: application/json`', 'GraphQL JSON result for the signed-in member'],
  mcp: (o) => [`tool protocol (MCP, Streamable HTTP, JSON-RPC); a request with no token is ${anonymousToolsSummary(o)}`, 'tool results'],
  openapi: () => ['none', 'machine-readable API description (OpenAPI 3.1)'],
  authMd: () => ['none', 'this interface description'],
};

const PLACEHOLDER_REDIRECT = 'http://127.0.0.1:8765/callback';

/** The scopes the examples request: with the member data scope when member data is served. */
function exampleScope(options: ResolvedOptions): string {
  return isServed('accountApi', options) ? 'openid profile email account:read' : 'openid profile email';
}

/**
 * What an operator client (registered, a vendor platform, a metadata document) asks for in
 * place of the member example: `openid` and the catalogue's first operator read scope.
 */
function operatorExampleScope(): string {
  const read = SCOPES.find((s) => s.access === 'read' && s.audiences.includes('operator'));
  return ['openid', ...(read ? [read.name] : [])].join(' ');
}

/** The account scopes, which only member clients may hold. */
function memberOnlyScopes(): string[] {
  const operator = new Set(scopesForAudience('operator'));
  return scopesForAudience('member').filter((s) => !operator.has(s));
}

/** The methods `e`'s own path answers: the interaction page's, without its forms' (INTERACTION_FORMS). */
function methodsAt(e: EndpointDefinition): readonly string[] {
  return e.id === ENDPOINTS.interaction.id ? e.methods.filter((m) => m !== INTERACTION_FORMS.method) : e.methods;
}

function endpointTable(options: ResolvedOptions): string {
  const rows = servedEndpoints(options).map((e) => {
    const [request, response] = ROWS[e.id as EndpointId](options);
    return [methodsAt(e).join(', '), code(templatePath(e.path)), request, response];
  });
  return table(['Method', 'Path', 'Request', 'Response'], rows);
}

function authorizationSection(options: ResolvedOptions): string {
  const params = authorizeParameters(options);
  const { baseUrl } = options;
  const scope = exampleScope(options);
  const query = [
    `response_type=${PROTOCOL.responseTypes.join(' ')}`,
    'client_id=<CLIENT_ID>',
    `redirect_uri=${encodeURIComponent(PLACEHOLDER_REDIRECT)}`,
    `scope=${encodeURIComponent(scope)}`,
    `resource=${encodeURIComponent(baseUrl)}`,
    'code_challenge=<CODE_CHALLENGE>',
    `code_challenge_method=${PROTOCOL.codeChallengeMethods[0]}`,
    'state=<STATE>',
    ...(options.idTokens ? ['nonce=<NONCE>'] : []),
  ].join('&');
  return [
    `### Authorization request parameters (\`GET ${ENDPOINTS.authorization.path}\`)`,
    table(['Parameter', 'Required', 'Rule'], params.map((p) => [code(p.name), p.required, p.rule])),
    'Make the PKCE pair: `code_verifier` is 43-128 random characters of `A-Z a-z 0-9 - . _ ~`; `code_challenge` is BASE64URL(SHA-256(`code_verifier`)) without padding:',
    fence('sh', 'CODE_VERIFIER=$(openssl rand -base64 48 | tr \'+/\' \'-_\' | tr -d \'=\\n\')\nCODE_CHALLENGE=$(printf %s "$CODE_VERIFIER" | openssl dgst -sha256 -binary | openssl base64 -A | tr \'+/\' \'-_\' | tr -d \'=\')'),
    'Send the user\'s browser to (each value URL-encoded):',
    fence('text', `${endpointUrl(options, 'authorization')}?${query}`),
    `The example asks for a member client's scopes (2.2). An operator client (one registered above, a vendor platform${options.clientIdMetadataDocuments.enabled ? ', a Client ID Metadata Document' : ''}) asks for operator scopes instead, for example \`scope=${encodeURIComponent(operatorExampleScope())}\`: ${codeList(memberOnlyScopes())} are member clients' only, and asking for them gives \`invalid_scope\`.`,
    `After sign-in and consent the browser arrives at \`redirect_uri\` with \`code\`, \`state\` and \`iss\` (equal to \`${options.issuer}\`); check both \`state\` and \`iss\`. On refusal it arrives with \`error\`, \`error_description\`, \`state\` and \`iss\` instead.`,
  ].join('\n\n');
}

function tokenSection(options: ResolvedOptions): string {
  const grants = tokenGrants(options);
  const token = endpointUrl(options, 'token');
  const response = {
    access_token: '<ACCESS_TOKEN>',
    expires_in: options.ttl.accessToken,
    ...(options.idTokens ? { id_token: '<ID_TOKEN>' } : {}),
    refresh_token: '<REFRESH_TOKEN>',
    scope: exampleScope(options),
    token_type: 'Bearer',
  };
  return [
    `### Token request (\`POST ${ENDPOINTS.token.path}\`, \`application/x-www-form-urlencoded\`)`,
    table(['Grant', 'Parameters', 'Result'], grants.map((g) => [
      code(g.grantType),
      g.fields.map((f) => (f.mandatory ? code(f.name) : `${code(f.name)} (${f.required === 'no' ? 'optional' : f.required})`)).join(', '),
      g.summary,
    ])),
    ...grants.flatMap((g) => [
      `Fields of \`grant_type=${g.grantType}\`:`,
      table(['Field', 'Required', 'Rule'], g.fields.map((f) => [code(f.name), f.required, f.rule])),
    ]),
    'Exchange the code:',
    fence('sh', [
      `curl -X POST ${token} \\`,
      `  -d grant_type=${AUTHORIZATION_CODE_GRANT} \\`,
      '  -d code=<CODE> \\',
      `  --data-urlencode redirect_uri=${PLACEHOLDER_REDIRECT} \\`,
      '  -d client_id=<CLIENT_ID> \\',
      '  -d code_verifier=<CODE_VERIFIER> \\',
      `  --data-urlencode resource=${options.baseUrl}`,
    ].join('\n')),
    'Answer (`200`, `Cache-Control: no-store`, `Pragma: no-cache`):',
    fence('json', JSON.stringify(response, null, 2)),
    'Refresh (the answer has the same shape; keep the new `refresh_token`, the old one is spent):',
    fence('sh', `curl -X POST ${token} -d grant_type=${REFRESH_TOKEN_GRANT} -d refresh_token=<REFRESH_TOKEN> -d client_id=<CLIENT_ID>`),
    `Confidential clients add \`-d client_secret=<CLIENT_SECRET>\` to every request to this endpoint, ${ENDPOINTS.revocation.path} and ${ENDPOINTS.introspection.path}. Revoke with \`curl -X POST ${endpointUrl(options, 'revocation')} -d token=<REFRESH_TOKEN> -d client_id=<CLIENT_ID>\`. The \`resource\` binding of a token is reported by introspection (RFC 7662) as \`aud\`.`,
  ].join('\n\n');
}

function resourceSection(options: ResolvedOptions): string {
  const parts: string[] = [];
  parts.push(
    `### UserInfo (\`GET ${ENDPOINTS.userinfo.path}\`)`,
    fence('sh', `curl ${endpointUrl(options, 'userinfo')} -H 'Authorization: Bearer <ACCESS_TOKEN>'`),
  );
  if (isServed('accountApi', options)) {
    const query = '{ viewer { id email enrolledCourses(first: 10) { nodes { slug expireDate hasLifetimeAccess lastWatchedLecture { lectureId positionSeconds } } pageInfo { hasNextPage endCursor } } } }';
    parts.push(
      `### Account API (\`POST ${ENDPOINTS.accountApi.path}\`)`,
      `A member token with \`account:read\` (member audience) is required; the answer is that member's data at the token's site. Further pages: pass \`pageInfo.endCursor\` as \`after\`.`,
      fence('sh', `curl -X POST ${endpointUrl(options, 'accountApi')} \\\n  -H 'Authorization: Bearer <ACCESS_TOKEN>' \\\n  -H 'Content-Type: application/json' \\\n  -d '${JSON.stringify({ query })}'`),
    );
  }
  if (isServed('mcp', options)) {
    const discover = {
      jsonrpc: '2.0', id: 1, method: 'server/discover',
      params: { _meta: { [PROTOCOL_VERSION_META_KEY]: MCP_REVISIONS.current, [CLIENT_CAPABILITIES_META_KEY]: {} } },
    };
    parts.push(
      `### Tool endpoint (\`${ENDPOINTS.mcp.path}\`)`,
      `The Model Context Protocol over Streamable HTTP: JSON-RPC messages in \`POST\` bodies, with \`Accept: application/json, text/event-stream\`. Revision ${code(MCP_REVISIONS.current)} is stateless: every request carries \`_meta\` with ${code(PROTOCOL_VERSION_META_KEY)} and ${code(CLIENT_CAPABILITIES_META_KEY)}, and the headers \`MCP-Protocol-Version\`, \`Mcp-Method\` (and \`Mcp-Name\` for \`tools/call\`); start with \`server/discover\`, then \`tools/list\` and \`tools/call\`. The 2025 revisions (${codeList([...MCP_REVISIONS.legacy])}) are served on the same endpoint: start with \`initialize\`. Leave out \`Authorization\` to call as anonymous. ${toolListRule(options)}`,
      fence('sh', `curl -X POST ${endpointUrl(options, 'mcp')} \\\n  -H 'Accept: application/json, text/event-stream' \\\n  -H 'Content-Type: application/json' \\\n  -H 'MCP-Protocol-Version: ${MCP_REVISIONS.current}' \\\n  -H 'Mcp-Method: server/discover' \\\n  -H 'Authorization: Bearer <ACCESS_TOKEN>' \\\n  -d '${JSON.stringify(discover)}'`),
    );
  }
  return parts.join('\n\n');
}

/** Seconds as `duration()` writes them, or to the millisecond when they are not whole. */
function seconds(value: number): string {
  return Number.isInteger(value) ? duration(value) : `${Number(value.toFixed(3))} seconds`;
}

/** Variant B's limits (lib/policies/registration-limits.ts), from its constants and the resolved options. */
function openRegistrationLimits(options: ResolvedOptions): string {
  const { rateLimit, unusedClientExpiry } = options.registration;
  const limits = REGISTRATION_LIMITS;
  const rate = rateLimit
    ? `up to ${rateLimit.perIp} registrations per client address at once, then one every ${seconds(rateLimit.windowSeconds / rateLimit.perIp)}; beyond that \`429\` \`temporarily_unavailable\` with \`Retry-After\` (the seconds until the next one is accepted)`
    : 'no rate limit per client address';
  const expiry = unusedClientExpiry
    ? `A registered client with no grant created or used for ${duration(unusedClientExpiry)} is deleted.`
    : 'Registered clients do not expire.';
  return [
    `Limits: ${rate}.`,
    `Metadata outside these limits is refused with \`invalid_client_metadata\`: \`client_name\` at most ${limits.clientNameLength} characters; at most ${limits.redirectUris} \`redirect_uris\`, each at most ${limits.uriLength} characters; ${andList(HTTPS_ONLY_METADATA.map(code))} https only, each at most ${limits.uriLength} characters; the client as stored (its metadata as JSON) at most ${bytes(limits.metadataBytes)}.`,
    `A request body declared (\`Content-Length\`) over ${bytes(limits.bodyBytes)} is answered \`413\`; one sent without it (chunked) is read up to the provider's own 56 KiB, beyond which it is \`invalid_client_metadata\` ("failed to parse the request body"), and the cap on what is stored applies either way.`,
    expiry,
  ].join(' ');
}

function registrationSection(options: ResolvedOptions): string {
  const url = endpointUrl(options, 'registration');
  const heading = `### Registration (\`POST ${ENDPOINTS.registration.path}\`)`;
  if (options.registration.variant === 'restricted') {
    return [
      heading,
      'This deployment runs **Variant A (restricted)**.',
      [
        '- Variant A (restricted): accepts a `client_name`, matches it against the known vendor-platform integrations (case- and whitespace-insensitively), and returns that platform\'s `client_id` with its public metadata (never a secret). Nothing is registered. Open dynamic registration (RFC 7591) is not offered; an unrecognized `client_name` is refused with error `invalid_client_metadata`.',
        '- Variant B (open): not offered by this deployment.',
      ].join('\n'),
      fence('sh', `curl -X POST ${url} -H 'Content-Type: application/json' -d '{"client_name": "<YOUR PLATFORM NAME>"}'`),
      'The vendor-platform names are not listed here. A client that is not a known vendor platform obtains a `client_id` as described in 2.2.',
    ].join('\n\n');
  }
  const example = {
    client_name: 'My agent',
    redirect_uris: [PLACEHOLDER_REDIRECT],
    token_endpoint_auth_method: PUBLIC_CLIENT_AUTH_METHOD,
    grant_types: [...PROTOCOL.grantTypes],
    response_types: [...PROTOCOL.responseTypes],
    scope: 'openid profile email courses:read',
  };
  return [
    heading,
    'This deployment runs **Variant B (open)**.',
    [
      '- Variant A (restricted): not used by this deployment.',
      `- Variant B (open): accepts client metadata per RFC 7591 and registers the client dynamically. \`token_endpoint_auth_method\`: ${codeList([...PROTOCOL.tokenEndpointAuthMethods])} (default \`${PROTOCOL.defaultTokenEndpointAuthMethod}\`); \`response_types\`: ${codeList([...PROTOCOL.responseTypes])}; \`redirect_uris\`: https, or http on a loopback address. Registered clients act for site operators: \`scope\` may list operator and identity scopes (default: all of them), never \`account:*\`. A \`client_secret\` is returned once, for ${code(CONFIDENTIAL_CLIENT_AUTH_METHOD)} clients. Client ID Metadata Documents: ${options.clientIdMetadataDocuments.enabled ? 'supported, from any host (2.2)' : 'not supported'}; the discovery field \`client_id_metadata_document_supported\` says the same.`,
    ].join('\n'),
    fence('sh', `curl -X POST ${url} -H 'Content-Type: application/json' -d '${JSON.stringify(example)}'`),
    'Refusals: `invalid_client_metadata` or `invalid_redirect_uri` (400).',
    openRegistrationLimits(options),
  ].join('\n\n');
}

export function endpointsSection(options: ResolvedOptions): string {
  return [
    '## 4. Endpoints',
    `All endpoints are on the origin ${options.baseUrl}.`,
    endpointTable(options),
    authorizationSection(options),
    tokenSection(options),
    resourceSection(options),
    registrationSection(options),
  ].join('\n\n');
}
