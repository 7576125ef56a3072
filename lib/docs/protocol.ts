/**
 * The protocol tables both documents render: authorization parameters, token request
 * fields per grant, and the error codes. One table, two views (`/openapi.json` as schemas,
 * `/auth.md` as markdown tables).
 *
 * @module
 */
import type { FetchBudgetSettings } from '../cimd/budget.ts';
import { SCOPE_CLAIMS } from '../claims.ts';
import type { ResolvedOptions } from '../config/options.ts';
import {
  AUTHORIZATION_CODE_GRANT, CONFIDENTIAL_CLIENT_AUTH_METHOD, loopbackPortRule, PROTOCOL, PUBLIC_CLIENT_AUTH_METHOD, REFRESH_TOKEN_GRANT,
} from '../constants.ts';
import type { GrantType } from '../constants.ts';
import { ENDPOINTS } from '../endpoints.ts';
import { AUTHORIZATION_REQUEST_UNIT_BYTES } from '../policies/authorization-rate.ts';
import { IDENTITY_SCOPES } from '../scopes/catalogue.ts';
import { isServed } from '../served-endpoints.ts';
import { andList, code, codeList, orList, perPeriod } from './markdown.ts';
import type { JsonSchema } from './openapi/types.ts';

/** A request parameter or form field. */
export interface FieldDoc {
  readonly name: string;
  /** what the Required column of /auth.md says */
  readonly required: string;
  /** whether OpenAPI marks it required */
  readonly mandatory: boolean;
  /** markdown: the rule for its value */
  readonly rule: string;
  readonly schema: JsonSchema;
}

const PKCE_VERIFIER = '^[A-Za-z0-9._~-]{43,128}$';
const PKCE_CHALLENGE = '^[A-Za-z0-9_-]{43}$';

function field(name: string, required: string | boolean, rule: string, schema: JsonSchema = { type: 'string' }): FieldDoc {
  const mandatory = required === true;
  return Object.freeze({ name, required: typeof required === 'string' ? required : required ? 'yes' : 'no', mandatory, rule, schema });
}

/**
 * markdown: what becomes of a requested scope the client may not hold, as both documents say
 * it (the `scope` parameter, 2.1 of `/auth.md`): refused, except an identity scope, which is
 * left out of the grant (`grantableScope`, lib/policies/scope-allowance.ts, applied by
 * lib/provider/identity-scopes.ts); not for a Client ID Metadata Document's client, which that
 * step does not look up.
 */
export function scopeRefusalRule(options: ResolvedOptions): string {
  const documents = options.clientIdMetadataDocuments.enabled;
  return `a scope that is unknown, or that the client may not hold, is refused with \`invalid_scope\`; the one exception is an identity scope (${codeList(IDENTITY_SCOPES)}) the client may not hold, which is left out of the grant rather than refused (unless nothing else was asked for; the token response's \`scope\` says what was granted)${documents
    ? '; a Client ID Metadata Document client has no such exception: an identity scope its document\'s `scope` leaves out is refused with `invalid_scope`'
    : ''}`;
}

/** `GET /oauth/authorize` query parameters. */
export function authorizeParameters(options: ResolvedOptions): FieldDoc[] {
  const { baseUrl } = options;
  return [
    field('response_type', true, PROTOCOL.responseTypes.map((t) => `\`${t}\``).join(', '), { type: 'string', enum: [...PROTOCOL.responseTypes] }),
    field('client_id', true, options.clientIdMetadataDocuments.enabled
      ? 'an issued identifier, or the https URL of a Client ID Metadata Document'
      : 'an issued identifier'),
    field('redirect_uri', true, `exactly one of the client's registered redirect URIs (${loopbackPortRule()})`, { type: 'string', format: 'uri' }),
    field('scope', true, `space-separated scopes from the catalogue (2.1), e.g. \`openid profile email\` and a data scope; ${scopeRefusalRule(options)}`, { type: 'string', examples: ['openid profile email account:read'] }),
    field('resource', 'member case', `RFC 8707 resource indicator: \`${baseUrl}\`, as advertised by the protected-resource metadata; send the same value at the token endpoint. Every token is bound to \`${baseUrl}\` even when it is left out; any other value is \`invalid_target\``, { type: 'string', format: 'uri', examples: [baseUrl] }),
    field('code_challenge', true, 'BASE64URL(SHA-256(code_verifier)), 43 characters', { type: 'string', pattern: PKCE_CHALLENGE }),
    field('code_challenge_method', true, `${PROTOCOL.codeChallengeMethods.map((m) => `\`${m}\``).join(', ')} (\`plain\` is refused)`, { type: 'string', enum: [...PROTOCOL.codeChallengeMethods] }),
    field('state', 'recommended', 'opaque random string, returned unchanged with the code'),
    field('response_mode', false, `how the answer reaches \`redirect_uri\`: ${PROTOCOL.responseModes.map((m) => `\`${m}\``).join(', ')}; \`query\` when left out`, { type: 'string', enum: [...PROTOCOL.responseModes] }),
    ...(options.idTokens ? [field('nonce', 'when an `id_token` is wanted', 'opaque random string, returned as the `nonce` claim of the `id_token`')] : []),
  ];
}

export interface GrantDoc {
  readonly grantType: GrantType;
  /** markdown: what the grant does */
  readonly summary: string;
  readonly fields: readonly FieldDoc[];
}

const CLIENT_SECRET = field('client_secret', 'confidential clients', `the client secret (${code(CONFIDENTIAL_CLIENT_AUTH_METHOD)}); public clients (${code(PUBLIC_CLIENT_AUTH_METHOD)}) send none. HTTP Basic is refused with 401 \`invalid_client\``);

function grantTypeField(grantType: GrantType): FieldDoc {
  return field('grant_type', true, code(grantType), { type: 'string', const: grantType });
}

/** `POST /api/oauth/token` form fields, per grant, in the order of `PROTOCOL.grantTypes`. */
export function tokenGrants(options: ResolvedOptions): GrantDoc[] {
  const { baseUrl } = options;
  const resource = (required: string, rule: string) => field('resource', required, `\`${baseUrl}\`; ${rule}`, { type: 'string', format: 'uri', examples: [baseUrl] });
  // every grant type of PROTOCOL, and no other: a new one does not compile until it is described here
  const grants: Record<GrantType, Omit<GrantDoc, 'grantType'>> = {
    [AUTHORIZATION_CODE_GRANT]: {
      summary: options.idTokens
        ? 'exchanges the code for an access token, a refresh token and, when `openid` was granted, an `id_token`'
        : 'exchanges the code for an access token and a refresh token',
      fields: [
        grantTypeField(AUTHORIZATION_CODE_GRANT),
        field('code', true, 'the `code` from the redirect; single use'),
        field('redirect_uri', true, 'the `redirect_uri` sent to the authorization endpoint', { type: 'string', format: 'uri' }),
        field('client_id', true, 'the client\'s identifier'),
        field('code_verifier', true, 'the PKCE verifier: 43-128 characters of `A-Z a-z 0-9 - . _ ~`', { type: 'string', pattern: PKCE_VERIFIER }),
        resource('member case', 'must equal the value sent at authorization'),
        CLIENT_SECRET,
      ],
    },
    [REFRESH_TOKEN_GRANT]: {
      summary: 'yields a new access token and a new refresh token without user interaction; the old refresh token is spent (a spent one used again revokes the grant, except a retry by its own client within the grace period of States and transitions); no `id_token` in the reply',
      fields: [
        grantTypeField(REFRESH_TOKEN_GRANT),
        field('refresh_token', true, 'the latest refresh token'),
        field('client_id', true, 'the client\'s identifier'),
        field('scope', 'no', 'a subset of the granted scopes, to narrow the new access token'),
        resource('no', 'the token stays bound to it'),
        CLIENT_SECRET,
      ],
    },
  };
  return PROTOCOL.grantTypes.map((grantType) => ({ grantType, ...grants[grantType] }));
}

/** The claims a scope releases at UserInfo (and in the ID token), from lib/claims.ts. */
export function claimsByScope(): { scope: string; claims: readonly string[] }[] {
  return Object.entries(SCOPE_CLAIMS).map(([scope, claims]) => ({ scope, claims }));
}

/**
 * markdown: whom the introspection endpoint answers (lib/policies/token-access.ts): the
 * token's own client, and the resource servers of `options.introspectionClients` when there
 * are any (not named: they are the host's business).
 */
export function introspectionAudience(options: ResolvedOptions): string {
  const who = options.introspectionClients.length > 0
    ? 'answered to the token\'s own client and to the resource servers this deployment trusts with every token'
    : 'answered only to the token\'s own client';
  return `${who}; for any other client the token is reported inactive (\`active: false\`)`;
}

/**
 * What a 403 `insufficient_scope` of a protected resource names (lib/resource/bearer.ts,
 * lib/mcp/tools/access.ts): the scope a client can step up to, or none when no client of the
 * token's audience could be granted it. One text for /auth.md and /openapi.json.
 */
export const INSUFFICIENT_SCOPE_RULE = 'a valid token lacking a required scope: the challenge names the `scope` needed (the step-up); a valid token of the wrong audience (a member token where operator clients are served, or the reverse): the challenge names no `scope`, since no client of that audience can be granted it, and `error_description` says why';

export interface ErrorDoc {
  readonly code: string;
  /** the HTTP status; `undefined` for an error sent as a redirect to the client */
  readonly status: number | undefined;
  /** markdown: when it is answered */
  readonly condition: string;
  /** answered with a `WWW-Authenticate` challenge */
  readonly challenge: boolean;
  /** answered with an `error_description`: oidc-provider gives none with some redirects */
  readonly described: boolean;
}

function error(code: string, status: number | undefined, condition: string, { challenge = false, described = true } = {}): ErrorDoc {
  return Object.freeze({ code, status, condition, challenge, described });
}

/**
 * The error redirects of the authorization endpoint beside `invalid_scope` and
 * `access_denied`: a request this server does not take (oidc-provider refuses it, naming the
 * parameter), and `prompt=none` when a page would be needed (lib/policies/existing-grant.ts,
 * lib/policies/host-session.ts; native clients see the consent page every time).
 */
function authorizationRedirects(options: ResolvedOptions): ErrorDoc[] {
  const noDescription = { described: false };
  return [
    error('unsupported_response_type', undefined, `a \`response_type\` other than ${andList(PROTOCOL.responseTypes.map(code))} (\`none\` and \`token\` included)`),
    error('unsupported_response_mode', undefined, `a \`response_mode\` other than ${andList(PROTOCOL.responseModes.map(code))} (JWT-secured ones such as \`query.jwt\` included)`),
    error('login_required', undefined, `\`prompt=none\` when ${orList([
      'nobody is signed in',
      'the sign-in is older than `max_age`',
      ...(options.signIn.session ? ['the host\'s session has ended or changed hands'] : []),
      '`id_token_hint` names another account',
    ])}; also when the signed-in account no longer exists`),
    error('consent_required', undefined, '`prompt=none` when the consent page is needed: a scope not granted to the client yet, or a grant the account may no longer use'),
    error('interaction_required', undefined, '`prompt=none` from a native client (one with a loopback redirect URI, 2.2), which is shown the consent page on every authorization'),
    error('request_not_supported', undefined, 'a `request` parameter (request objects are not supported)', noDescription),
    error('request_uri_not_supported', undefined, 'a `request_uri` parameter', noDescription),
    error('registration_not_supported', undefined, 'a `registration` parameter (client metadata sent with the request)', noDescription),
  ];
}

/** markdown: when a Client ID Metadata Document is answered `invalid_client` (400). */
export const DOCUMENT_NOT_FETCHED = 'a Client ID Metadata Document that is not fetched: its host is not permitted, is named for local use or is or resolves to a special-use address, or the fetch failed (network error, non-200 answer, oversized document)';

/** markdown: when a fetched Client ID Metadata Document is answered `invalid_client_metadata` (400). */
export const DOCUMENT_REFUSED = 'a Client ID Metadata Document whose content is refused (its `client_id` is not its URL, a redirect URI on another host, a shared-secret auth method, …)';

/**
 * The metadata-document fetch budgets in force (lib/cimd/guard.ts), or `undefined` when
 * documents are off or `fetchBudget` is `false`: both documents state them from here.
 */
export function documentFetchBudget(options: ResolvedOptions): FetchBudgetSettings | undefined {
  const cimd = options.clientIdMetadataDocuments;
  return cimd.enabled && cimd.fetchBudget ? cimd.fetchBudget : undefined;
}

/**
 * The authorization-request rate per client address (lib/policies/authorization-rate.ts) in
 * words, for every document that states it; `undefined` when `authorizationRateLimit` is off.
 */
export function authorizationRateRule(options: ResolvedOptions): string | undefined {
  const limit = options.authorizationRateLimit;
  if (!limit) return undefined;
  return `${limit.perIp} authorization requests per client address at once, refilled at ${limit.perIp} per ${perPeriod(limit.windowSeconds)} `
    + `(a request over ${AUTHORIZATION_REQUEST_UNIT_BYTES} bytes counts once per started ${AUTHORIZATION_REQUEST_UNIT_BYTES} bytes of its URL)`;
}

/**
 * The refresh rate per grant (lib/policies/refresh-rate.ts) in words, for every document that
 * states it; `undefined` when `refreshTokenRateLimit` is off.
 */
export function refreshRateRule(options: ResolvedOptions): string | undefined {
  const limit = options.refreshTokenRateLimit;
  if (!limit) return undefined;
  return `${limit.perGrant} refreshes per grant at once, refilled at ${limit.perGrant} per ${perPeriod(limit.windowSeconds)}`;
}

/** What is answered 429 `temporarily_unavailable` with `Retry-After` in this deployment: rate limits, not outages. */
function rateLimited(options: ResolvedOptions): string[] {
  return [
    ...(options.authorizationRateLimit ? ['too many authorization requests from one client address (an error page, not a redirect)'] : []),
    ...(options.refreshTokenRateLimit ? ['too many refreshes of one grant (the refresh token stays usable)'] : []),
    ...(options.registration.variant === 'open' && options.registration.rateLimit ? ['too many registrations from one client address'] : []),
    ...(documentFetchBudget(options) ? ['too many Client ID Metadata Document fetches from one host or for one client address (at the authorization endpoint an error page, not a redirect)'] : []),
  ];
}

/** Every error code a client of this deployment can meet (RFC 6749 §5.2 bodies). */
export function oauthErrors(options: ResolvedOptions): ErrorDoc[] {
  const open = options.registration.variant === 'open';
  const documents = options.clientIdMetadataDocuments.enabled;
  const limited = rateLimited(options);
  return [
    error('invalid_request', 400, 'malformed request: a missing, repeated or invalid parameter, a body that is not the expected form or JSON'),
    error('invalid_client', 401, `client not recognized or failing authentication (wrong secret, or HTTP Basic instead of ${code(CONFIDENTIAL_CLIENT_AUTH_METHOD)})`),
    // oidc-provider answers a document it cannot use with 400 (lib/cimd/guard.ts, lib/policies/metadata-documents.ts)
    ...(documents ? [error('invalid_client', 400, `${DOCUMENT_NOT_FETCHED}; at the authorization endpoint an error page`)] : []),
    error('invalid_grant', 400, 'invalid grant: the code or refresh token is unknown, expired, already used or issued to another client, or `redirect_uri`/`code_verifier` do not match'),
    error('unsupported_grant_type', 400, `a \`grant_type\` other than ${andList(PROTOCOL.grantTypes.map(code))}`),
    error('invalid_scope', 400, 'a scope that is unknown or not allowed for the client (identity scopes: see 2.1), e.g. `account:read` requested by an operator client; at the authorization endpoint an error redirect with `state` and `iss`'),
    error('invalid_target', 400, `a \`resource\` other than \`${options.baseUrl}\``),
    error('access_denied', undefined, 'the user denied consent, or has no role at the site of a member client (an error redirect to the client)'),
    ...authorizationRedirects(options),
    error('invalid_client_metadata', 400, (open
      ? `registration metadata this server does not accept (e.g. an auth method other than ${PROTOCOL.tokenEndpointAuthMethods.map(code).join('/')}, a response type other than ${PROTOCOL.responseTypes.map(code).join('/')}, a body that is not a JSON object)`
      : 'registration with a `client_name` that matches no known vendor platform, or without one')
      + (documents ? `; also ${DOCUMENT_REFUSED}, at the authorization endpoint an error page` : '')),
    ...(open ? [error('invalid_redirect_uri', 400, 'registration with a redirect URI that is neither https nor a loopback address')] : []),
    error('invalid_token', 401, `access token missing (where required; a request that sent no credentials gets a challenge without an error code, as RFC 6750 §3.1 asks${isServed('accountApi', options) ? `, except at \`${ENDPOINTS.accountApi.path}\`` : ''}${isServed('mcp', options) ? `; \`${ENDPOINTS.mcp.path}\` refuses a header of another scheme as \`invalid_token\`` : ''}), malformed, unknown, expired, revoked or bound to another origin`, { challenge: true }),
    error('insufficient_scope', 403, INSUFFICIENT_SCOPE_RULE, { challenge: true }),
    ...(limited.length ? [error('temporarily_unavailable', 429, `${limited.join('; ')}; retry after the \`Retry-After\` seconds`)] : []),
    error('temporarily_unavailable', 503, 'storage is unreachable; retry after the `Retry-After` seconds'),
    error('server_error', 500, 'an unexpected fault; no detail is given'),
  ];
}

/** The codes, for the `error` property of the error schema; a code answered with two statuses is named once. */
export function errorCodes(options: ResolvedOptions): string[] {
  return [...new Set(oauthErrors(options).map((e) => e.code))];
}
