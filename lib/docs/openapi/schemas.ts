/**
 * `components.schemas` of `/openapi.json`: the RFC 6749 §5.2 error, the metadata documents,
 * the OAuth request and response bodies, and the resource bodies, for what is served.
 *
 * @module
 */
import { UNAVAILABLE_CODE } from '../../account-api/errors.ts';
import { AUTHORIZATION_CODE_GRANT, CONFIDENTIAL_CLIENT_AUTH_METHOD, PROTOCOL } from '../../constants.ts';
import type { ResolvedOptions } from '../../config/options.ts';
import { ID_TOKEN_CLIENT_METADATA } from '../../policies/id-tokens.ts';
import { SCOPES } from '../../scopes/catalogue.ts';
import { claimsByScope, errorCodes, introspectionAudience, tokenGrants } from '../protocol.ts';
import { isServed } from '../../served-endpoints.ts';
import { formSchema, ref } from './helpers.ts';
import type { JsonSchema } from './types.ts';

function oauthErrorSchema(options: ResolvedOptions): JsonSchema {
  return {
    type: 'object',
    description: 'RFC 6749 §5.2 error response.',
    required: ['error'],
    properties: {
      error: { type: 'string', description: 'error code', examples: errorCodes(options) },
      error_description: { type: 'string', description: 'human-readable explanation; never contains a token or a secret' },
      error_uri: { type: 'string', format: 'uri' },
    },
  };
}

function tokenResponseSchema(options: ResolvedOptions): JsonSchema {
  return {
    type: 'object',
    required: ['access_token', 'token_type', 'expires_in', 'scope'],
    properties: {
      access_token: { type: 'string', description: `opaque; bound to the resource ${options.baseUrl}` },
      token_type: { type: 'string', enum: ['Bearer'] },
      expires_in: { type: 'integer', description: 'seconds until the access token expires', examples: [options.ttl.accessToken] },
      scope: { type: 'string', description: 'the granted scopes, space-separated' },
      refresh_token: { type: 'string', description: 'issued with every code exchange (unless the client\'s registration leaves `refresh_token` out of its `grant_types`) and rotated on every refresh' },
      ...(options.idTokens ? {
        id_token: { type: 'string', description: `${PROTOCOL.idTokenSigningAlg}-signed JWT; only from the ${AUTHORIZATION_CODE_GRANT} grant when \`openid\` was granted; lifetime ${PROTOCOL.idTokenLifetime} seconds` },
      } : {}),
    },
  };
}

function userinfoSchema(): JsonSchema {
  const properties: Record<string, JsonSchema> = {
    sub: { type: 'string', description: 'the account id' },
    org_id: { type: 'string', description: 'the site (school) the token was issued for' },
    roles: { type: 'array', items: { type: 'string' }, description: 'the account\'s roles at that site' },
    name: { type: 'string' },
    email: { type: 'string', format: 'email' },
  };
  const byScope = claimsByScope().map(({ scope, claims }) => `\`${scope}\`: ${claims.join(', ')}`).join('; ');
  return { type: 'object', description: `Claims released by scope: ${byScope}.`, required: ['sub'], properties };
}

/** The ID-token metadata of a registration answer, present only while ID tokens are issued. */
function idTokenClientMetadata(): Record<string, JsonSchema> {
  const schemas: Record<(typeof ID_TOKEN_CLIENT_METADATA)[number], JsonSchema> = {
    id_token_signed_response_alg: { type: 'string', enum: [PROTOCOL.idTokenSigningAlg] },
    require_auth_time: { type: 'boolean' },
  };
  return Object.fromEntries(ID_TOKEN_CLIENT_METADATA.map((name) => [name, schemas[name]]));
}

function registrationSchemas(options: ResolvedOptions): Record<string, JsonSchema> {
  const publicMetadata: JsonSchema = {
    type: 'object',
    required: ['client_id'],
    properties: {
      client_id: { type: 'string' },
      client_name: { type: 'string' },
      redirect_uris: { type: 'array', items: { type: 'string', format: 'uri' } },
      grant_types: { type: 'array', items: { type: 'string', enum: [...PROTOCOL.grantTypes] } },
      response_types: { type: 'array', items: { type: 'string', enum: [...PROTOCOL.responseTypes] } },
      token_endpoint_auth_method: { type: 'string', enum: [...PROTOCOL.tokenEndpointAuthMethods] },
      scope: { type: 'string' },
      application_type: { type: 'string', enum: ['web', 'native'] },
      client_uri: { type: 'string', format: 'uri' },
      logo_uri: { type: 'string', format: 'uri' },
      policy_uri: { type: 'string', format: 'uri' },
      tos_uri: { type: 'string', format: 'uri' },
    },
  };
  if (options.registration.variant === 'restricted') {
    return {
      VendorLookupRequest: {
        type: 'object',
        description: 'Variant A: names the vendor platform you integrate as (matched case- and whitespace-insensitively).',
        required: ['client_name'],
        properties: { client_name: { type: 'string', minLength: 1 } },
      },
      VendorClient: { ...publicMetadata, description: 'The vendor platform\'s client: public metadata only, never a secret.', properties: { ...publicMetadata.properties as object, audience: { type: 'string', enum: ['operator'] } } },
    };
  }
  return {
    ClientRegistrationRequest: {
      type: 'object',
      description: 'Variant B: RFC 7591 client metadata. Registered clients act for site operators (operator audience).',
      required: ['redirect_uris'],
      properties: {
        ...(publicMetadata.properties as Record<string, JsonSchema>),
        redirect_uris: { type: 'array', minItems: 1, items: { type: 'string', format: 'uri', description: 'https, or http on a loopback address' } },
        token_endpoint_auth_method: { type: 'string', enum: [...PROTOCOL.tokenEndpointAuthMethods], default: PROTOCOL.defaultTokenEndpointAuthMethod },
        contacts: { type: 'array', items: { type: 'string' } },
      },
    },
    ClientRegistrationResponse: {
      type: 'object',
      required: ['client_id'],
      properties: {
        ...(publicMetadata.properties as Record<string, JsonSchema>),
        client_secret: { type: 'string', description: `only for \`${CONFIDENTIAL_CLIENT_AUTH_METHOD}\` clients; shown once` },
        client_id_issued_at: { type: 'integer' },
        client_secret_expires_at: { type: 'integer', description: '0: does not expire' },
        audience: { type: 'string', enum: ['operator'], description: 'registered clients act for site operators' },
        subject_type: { type: 'string', enum: ['public'] },
        ...(options.idTokens ? idTokenClientMetadata() : {}),
      },
    },
  };
}

function documentSchemas(options: ResolvedOptions): Record<string, JsonSchema> {
  // the same methods at the token, revocation and introspection endpoints (RFC 8414 §2)
  const authMethods = { type: 'array', items: { type: 'string', enum: [...PROTOCOL.tokenEndpointAuthMethods] } };
  return {
    AuthorizationServerMetadata: {
      type: 'object',
      description: 'RFC 8414 / OpenID Connect Discovery 1.0 metadata: the source of truth for endpoints, grants and scopes.',
      required: ['issuer', 'authorization_endpoint', 'token_endpoint', 'scopes_supported'],
      properties: {
        issuer: { type: 'string', const: options.issuer },
        authorization_endpoint: { type: 'string', format: 'uri' },
        token_endpoint: { type: 'string', format: 'uri' },
        userinfo_endpoint: { type: 'string', format: 'uri' },
        revocation_endpoint: { type: 'string', format: 'uri' },
        introspection_endpoint: { type: 'string', format: 'uri' },
        registration_endpoint: { type: 'string', format: 'uri' },
        ...(options.idTokens ? {
          jwks_uri: { type: 'string', format: 'uri' },
          id_token_signing_alg_values_supported: { type: 'array', items: { type: 'string', enum: [PROTOCOL.idTokenSigningAlg] } },
        } : {}),
        scopes_supported: { type: 'array', items: { type: 'string', enum: SCOPES.map((s) => s.name) } },
        response_types_supported: { type: 'array', items: { type: 'string' } },
        grant_types_supported: { type: 'array', items: { type: 'string' } },
        code_challenge_methods_supported: { type: 'array', items: { type: 'string' } },
        token_endpoint_auth_methods_supported: authMethods,
        revocation_endpoint_auth_methods_supported: authMethods,
        introspection_endpoint_auth_methods_supported: authMethods,
        authorization_response_iss_parameter_supported: { type: 'boolean' },
        client_id_metadata_document_supported: { type: 'boolean', const: options.clientIdMetadataDocuments.enabled },
      },
    },
    ProtectedResourceMetadata: {
      type: 'object',
      description: 'RFC 9728 metadata. `scopes_supported` lists the identity scopes; data scopes are requested by step-up after a 403 `insufficient_scope`.',
      required: ['resource', 'authorization_servers'],
      properties: {
        resource: { type: 'string', const: options.baseUrl },
        authorization_servers: { type: 'array', items: { type: 'string', format: 'uri' } },
        scopes_supported: { type: 'array', items: { type: 'string' } },
        bearer_methods_supported: { type: 'array', items: { type: 'string', enum: ['header'] } },
        resource_documentation: { type: 'string', format: 'uri' },
        resource_name: { type: 'string' },
      },
    },
  };
}

function oauthSchemas(options: ResolvedOptions): Record<string, JsonSchema> {
  const grants = tokenGrants(options);
  const grantSchema = (grantType: string) => `TokenRequest_${grantType}`;
  const clientFields = {
    client_id: { type: 'string' },
    client_secret: { type: 'string', description: `confidential clients (\`${CONFIDENTIAL_CLIENT_AUTH_METHOD}\`)` },
  };
  return {
    ...Object.fromEntries(grants.map((g) => [grantSchema(g.grantType), formSchema(g.fields, `grant_type=${g.grantType}: ${g.summary}.`)])),
    TokenRequest: {
      oneOf: grants.map((g) => ref('schemas', grantSchema(g.grantType))),
      discriminator: {
        propertyName: 'grant_type',
        mapping: Object.fromEntries(grants.map((g) => [g.grantType, `#/components/schemas/${grantSchema(g.grantType)}`])),
      },
    },
    TokenResponse: tokenResponseSchema(options),
    RevocationRequest: {
      type: 'object',
      required: ['token', 'client_id'],
      properties: { token: { type: 'string' }, token_type_hint: { type: 'string', enum: ['access_token', 'refresh_token'] }, ...clientFields },
    },
    IntrospectionRequest: {
      type: 'object',
      required: ['token', 'client_id'],
      properties: { token: { type: 'string' }, token_type_hint: { type: 'string', enum: ['access_token', 'refresh_token'] }, ...clientFields },
    },
    IntrospectionResponse: {
      type: 'object',
      description: `RFC 7662: ${introspectionAudience(options)}.`,
      required: ['active'],
      properties: {
        active: { type: 'boolean' },
        scope: { type: 'string' },
        client_id: { type: 'string' },
        sub: { type: 'string' },
        aud: { description: `an access token's: the resource it is bound to, ${options.baseUrl}; a refresh token has none`, oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
        org_id: { type: 'string', description: 'an access token\'s: the site it speaks for' },
        roles: { type: 'array', items: { type: 'string' }, description: 'an access token\'s: the account\'s roles at that site' },
        iss: { type: 'string' },
        exp: { type: 'integer' },
        iat: { type: 'integer' },
        token_type: { type: 'string', description: 'an access token\'s: `Bearer`' },
      },
    },
    UserInfo: userinfoSchema(),
    ...registrationSchemas(options),
    ...(isServed('jwks', options) ? {
      JWKS: {
        type: 'object',
        required: ['keys'],
        properties: {
          keys: {
            type: 'array',
            items: {
              type: 'object',
              required: ['kty', 'kid'],
              properties: { kty: { const: 'EC' }, crv: { const: 'P-256' }, alg: { const: PROTOCOL.idTokenSigningAlg }, use: { const: 'sig' }, kid: { type: 'string' }, x: { type: 'string' }, y: { type: 'string' } },
            },
          },
        },
      },
    } : {}),
  };
}

function resourceSchemas(options: ResolvedOptions): Record<string, JsonSchema> {
  return {
    ...(isServed('accountApi', options) ? {
      GraphQLRequest: {
        type: 'object',
        required: ['query'],
        properties: {
          query: { type: 'string', minLength: 1, description: 'one GraphQL operation (no batching)' },
          variables: { type: ['object', 'null'] },
          operationName: { type: ['string', 'null'] },
        },
      },
      GraphQLResponse: {
        type: 'object',
        properties: {
          data: { type: ['object', 'null'] },
          errors: {
            type: 'array',
            items: {
              type: 'object',
              required: ['message'],
              properties: {
                message: { type: 'string' },
                locations: { type: 'array', items: { type: 'object', properties: { line: { type: 'integer' }, column: { type: 'integer' } } } },
                path: { type: 'array', items: { type: ['string', 'integer'] } },
                extensions: {
                  type: 'object',
                  properties: { code: { type: 'string', examples: ['BAD_USER_INPUT', 'GRAPHQL_VALIDATION_FAILED', 'GRAPHQL_PARSE_FAILED', UNAVAILABLE_CODE, 'INTERNAL_SERVER_ERROR'] } },
                },
              },
            },
          },
        },
      },
    } : {}),
    ...(isServed('mcp', options) ? {
      JsonRpcMessage: {
        type: 'object',
        description: 'A JSON-RPC 2.0 request, notification or response of the Model Context Protocol (Streamable HTTP transport).',
        required: ['jsonrpc'],
        properties: {
          jsonrpc: { const: '2.0' },
          // null in an error that answers no request in particular (JSON-RPC 2.0 §5): the 403 and 405 of /mcp
          id: { type: ['string', 'integer', 'null'] },
          method: { type: 'string', examples: ['initialize', 'tools/list', 'tools/call'] },
          params: { type: 'object' },
          result: { type: 'object' },
          error: { type: 'object' },
        },
      },
    } : {}),
  };
}

export function buildSchemas(options: ResolvedOptions): Record<string, JsonSchema> {
  return {
    OAuthError: oauthErrorSchema(options),
    ...documentSchemas(options),
    ...oauthSchemas(options),
    ...resourceSchemas(options),
  };
}
