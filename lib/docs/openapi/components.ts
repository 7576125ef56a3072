/**
 * `components` of `/openapi.json`: the OAuth2 security scheme (the whole scope catalogue),
 * the shared error answers with their `WWW-Authenticate` and `Retry-After` headers, and the
 * schemas (./schemas.ts).
 *
 * @module
 */
import type { ResolvedOptions } from '../../config/options.ts';
import { PROTOCOL } from '../../constants.ts';
import { ENDPOINTS } from '../../endpoints.ts';
import { isServed } from '../../served-endpoints.ts';
import { SCOPES } from '../../scopes/catalogue.ts';
import { INSUFFICIENT_SCOPE_RULE } from '../protocol.ts';
import { endpointUrl } from '../surface.ts';
import { jsonContent, ref, SECURITY_SCHEME } from './helpers.ts';
import { buildSchemas } from './schemas.ts';
import type { OpenApiDocument } from './types.ts';

function securitySchemes(options: ResolvedOptions): Record<string, unknown> {
  const scopes = Object.fromEntries(SCOPES.map((s) => [s.name, `${s.description} (${s.audiences.join(' and ')} clients)`]));
  return {
    [SECURITY_SCHEME]: {
      type: 'oauth2',
      description: `Authorization code flow with PKCE (${PROTOCOL.codeChallengeMethods.map((m) => `\`${m}\``).join(', ')}, required). Tokens are bound to the resource \`${options.baseUrl}\` (RFC 8707). Scopes reserved to one audience are refused with \`invalid_scope\` for clients of the other.`,
      flows: {
        authorizationCode: {
          authorizationUrl: endpointUrl(options, 'authorization'),
          tokenUrl: endpointUrl(options, 'token'),
          refreshUrl: endpointUrl(options, 'token'),
          scopes,
        },
      },
    },
  };
}

/** The challenge header; the Account API's exception named only where it is served. */
function challengeHeader(options: ResolvedOptions) {
  const exception = (isServed('accountApi', options) ? `, except at \`${ENDPOINTS.accountApi.path}\`, which names \`invalid_token\`` : '')
    + (isServed('mcp', options) ? `; \`${ENDPOINTS.mcp.path}\` serves a request without a header anonymously and names \`invalid_token\` for another scheme` : '');
  return {
    description: 'RFC 6750 §3 challenge with RFC 9728 `resource_metadata`, e.g. `Bearer error="invalid_token", error_description="…", resource_metadata="…/.well-known/oauth-protected-resource"`; with `insufficient_scope` it also names the `scope` needed, unless the token is of the wrong audience; a 400 `invalid_request` (the token sent more than one way) carries it too. '
      + `A request that sent no credentials (no \`Authorization\`, or another scheme) gets \`Bearer resource_metadata="…"\` without an error code (RFC 6750 §3.1)${exception}.`,
    schema: { type: 'string' },
  };
}

export function buildComponents(options: ResolvedOptions): OpenApiDocument['components'] {
  const oauthError = ref('schemas', 'OAuthError');
  const withChallenge = (description: string) => ({
    description,
    headers: { 'WWW-Authenticate': ref('headers', 'WWW-Authenticate') },
    content: jsonContent(oauthError),
  });
  return {
    schemas: buildSchemas(options),
    responses: {
      OAuthError: { description: 'RFC 6749 §5.2 error', content: jsonContent(oauthError) },
      InvalidClient: {
        description: '`invalid_client`: client unknown or failing authentication',
        // RFC 6749 §5.2: the challenge of the scheme the client tried (lib/policies/client-auth.ts)
        headers: {
          'WWW-Authenticate': {
            description: 'only when the request carried an `Authorization` header, as HTTP Basic does (refused here: send the client\'s credentials in the form body): a `Basic` challenge with `error="invalid_client"`',
            required: false,
            schema: { type: 'string' },
          },
        },
        content: jsonContent(oauthError),
      },
      InvalidToken: withChallenge('`invalid_token`: the access token is missing, malformed, unknown, expired, revoked or bound to another origin'),
      InsufficientScope: withChallenge(`\`insufficient_scope\`: ${INSUFFICIENT_SCOPE_RULE}`),
      TemporarilyUnavailable: {
        description: '`temporarily_unavailable`: storage is unreachable',
        headers: { 'Retry-After': ref('headers', 'Retry-After') },
        content: jsonContent(oauthError),
      },
    },
    headers: {
      'WWW-Authenticate': challengeHeader(options),
      'Retry-After': { description: 'seconds to wait before retrying', schema: { type: 'integer' } },
      ETag: { description: 'validator for `If-None-Match`', schema: { type: 'string' } },
      'Cache-Control': { schema: { type: 'string' } },
    },
    securitySchemes: securitySchemes(options),
  };
}
