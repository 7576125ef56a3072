/**
 * The operations of every endpoint in the table, keyed by endpoint id: a new entry in
 * lib/endpoints.ts does not compile until it is described here.
 *
 * @module
 */
import { UNAVAILABLE_CODE } from '../../account-api/errors.ts';
import { ACCOUNT_API_ACCESS, MAX_FRAGMENT_NESTING, MAX_LISTS } from '../../account-api/index.ts';
import type { ResolvedOptions } from '../../config/options.ts';
import { CONFIDENTIAL_CLIENT_AUTH_METHOD, MCP_REVISIONS, PROTOCOL, PUBLIC_CLIENT_AUTH_METHOD } from '../../constants.ts';
import { ENDPOINTS } from '../../endpoints.ts';
import { NO_ANSWER } from '../../mcp/answer-bound.ts';
import { HEADER_MISMATCH } from '../../mcp/header-values.ts';
import { MCP_ALLOW } from '../../mcp/http.ts';
import type { MemberDataInputCode } from '../../member-data/errors.ts';
import { REGISTRATION_LIMITS } from '../../policies/registration-limits.ts';
import { USERINFO_FORM_LIMIT } from '../../resource/userinfo.ts';
import type { EndpointId, HttpMethod } from '../../endpoints.ts';
import { bearerOperation, sentTwiceResponse } from '../bearer-route.ts';
import { duration, orList, perPeriod } from '../markdown.ts';
import { authorizationRateRule, authorizeParameters, DOCUMENT_NOT_FETCHED, DOCUMENT_REFUSED, documentFetchBudget, INSUFFICIENT_SCOPE_RULE, refreshRateRule } from '../protocol.ts';
import { endpointUrl, templatePath } from '../surface.ts';
import { toolListRule } from '../tool-access.ts';
import { jsonContent, ref } from './helpers.ts';
import type { OpenApiMethod, OpenApiOperation, OpenApiPaths } from './types.ts';

/** The tags operations are grouped by. */
export const TAGS = {
  discovery: { name: 'Discovery', description: 'Well-known metadata documents: where everything else is found.' },
  oauth: { name: 'OAuth', description: 'Authorization code flow with PKCE, tokens, UserInfo, revocation and introspection.' },
  registration: { name: 'Registration', description: 'Obtaining a `client_id`.' },
  account: { name: 'Account API', description: 'GraphQL over the signed-in member\'s own data.' },
  mcp: { name: 'MCP', description: 'Model Context Protocol endpoint (Streamable HTTP).' },
  docs: { name: 'Documentation', description: 'This description and the interface description, generated from the configuration.' },
  browser: { name: 'Browser pages', description: 'HTML pages for the user\'s browser during authorization; not an API.' },
} as const;

type Operations = Partial<Record<Lowercase<HttpMethod>, Omit<OpenApiOperation, 'operationId' | 'summary'> & { summary?: string }>>;
type Describe = (options: ResolvedOptions) => Operations;

const CACHE_CONTROL = { 'Cache-Control': ref('headers', 'Cache-Control') };
const oauthError = ref('responses', 'OAuthError');
const unavailable = ref('responses', 'TemporarilyUnavailable');
const htmlPage = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });
/** a browser's 503: the "Temporarily unavailable" page, never a redirect to the client */
const unavailablePage = {
  ...htmlPage('`temporarily_unavailable`: storage is unreachable; a page, never a redirect to the client (a reload after `Retry-After` helps)'),
  headers: { 'Retry-After': ref('headers', 'Retry-After') },
};

/**
 * The `Location` of an authorization's redirects: the hops to this server's pages are relative
 * references (`/oauth/interaction/<uid>`), the last one is the absolute `redirect_uri`.
 */
const LOCATION = { Location: { schema: { type: 'string', format: 'uri-reference' } } };

/** The response mode whose answer to the client is a page that posts to `redirect_uri`, not a redirect (discovery lists it). */
const FORM_POST: (typeof PROTOCOL.responseModes)[number] = 'form_post';
/** The page of `response_mode=form_post` posting `fields` to `redirect_uri` (it submits itself). */
const formPost = (fields: string) => `with \`response_mode=${FORM_POST}\`, a page that posts ${fields} to \`redirect_uri\` at once (it submits itself)`;
const FORM_POST_CODE = formPost('`code`, `state` and `iss`');
const FORM_POST_ERROR = formPost('`error`, `error_description`, `state` and `iss`');

/** 429 `temporarily_unavailable` with `Retry-After`: a rate limit (a 503 is a storage outage). */
function tooMany(description: string, content: Record<string, unknown> = jsonContent(ref('schemas', 'OAuthError'))): Record<string, unknown> {
  return {
    description: `\`temporarily_unavailable\`: ${description}; retry after the \`Retry-After\` seconds`,
    headers: { 'Retry-After': ref('headers', 'Retry-After') },
    content,
  };
}

/**
 * The 400 of an endpoint that names a client: the RFC 6749 §5.2 error, which with Client ID
 * Metadata Documents on also answers a document this server does not fetch or refuses.
 */
function clientRequestError(options: ResolvedOptions): Record<string, unknown> {
  if (!options.clientIdMetadataDocuments.enabled) return oauthError;
  return {
    description: `RFC 6749 §5.2 error; \`invalid_client\` also for ${DOCUMENT_NOT_FETCHED}, \`invalid_client_metadata\` for ${DOCUMENT_REFUSED}`,
    content: jsonContent(ref('schemas', 'OAuthError')),
  };
}

/**
 * The 429 of an endpoint that names a client, when a Client ID Metadata Document would be
 * fetched over the fetch budget (lib/cimd/guard.ts); none when documents are off or unbudgeted.
 */
function documentFetchLimit(options: ResolvedOptions, page = false): Record<string, unknown> {
  const why = documentFetchOverBudget(options);
  if (!why) return {};
  return { 429: page ? tooManyPage([why]) : tooMany(why) };
}

/** The 429 of the token endpoint: the refresh rate per grant, and the document fetch budget. */
function tokenLimits(options: ResolvedOptions): Record<string, unknown> {
  const rate = refreshRateRule(options);
  const causes = [
    ...(rate ? [`a \`refresh_token\` grant whose grant has spent its budget of ${rate} (the refresh token is not rotated, and stays usable)`] : []),
    ...[documentFetchOverBudget(options)].filter((why): why is string => why !== undefined),
  ];
  return causes.length ? { 429: tooMany(causes.join('; or ')) } : {};
}

function documentFetchOverBudget(options: ResolvedOptions): string | undefined {
  const budget = documentFetchBudget(options);
  return budget && `the \`client_id\` is a Client ID Metadata Document that is not cached, and fetching it is over the budget (${budget.perHost} fetches per host, ${budget.perCaller} per client address, per ${perPeriod(budget.windowSeconds)})`;
}

/** The 429 error page of a browser endpoint, for each of `causes`. */
function tooManyPage(causes: string[]): Record<string, unknown> {
  return tooMany(`${causes.join('; or ')}; an error page, never a redirect`, { 'text/html': { schema: { type: 'string' } } });
}

/** The 429 of the authorization endpoint: its rate per client address, and the document fetch budget. */
function authorizationLimits(options: ResolvedOptions): Record<string, unknown> {
  const rate = authorizationRateRule(options);
  const causes = [
    ...(rate ? [`the client address has spent its budget of ${rate}`] : []),
    ...[documentFetchOverBudget(options)].filter((why): why is string => why !== undefined),
  ];
  return causes.length ? { 429: tooManyPage(causes) } : {};
}

/**
 * When the interaction page answers with a redirect instead of a page (interactions/router.ts,
 * interactions/host-sign-in.ts): to the host's sign-in page (`signIn.loginUrl`), or on to the
 * authorization's resume when the sign-in is settled without a page, from the host's session
 * (`signIn.session`) or because its account is gone.
 */
function interactionRedirect(options: ResolvedOptions): string {
  const { loginUrl, session } = options.signIn;
  const settled = [
    ...(session ? ['the host\'s session names who is signed in', 'the host\'s session has ended since the sign-in (who signs in is asked again)'] : []),
    'the signed-in account no longer exists (the client is then sent `login_required`)',
  ];
  return [
    'A redirect instead of a page: ',
    loginUrl ? `to the host's sign-in page \`${loginUrl}\`, with \`return_to\` naming this page, when someone must sign in; or ` : '',
    `to \`${templatePath(ENDPOINTS.authorization.path)}/{uid}\`, where authorization resumes, when ${orList(settled)}; `,
    'or, for a step of the same authorization this browser has moved past (Back from the consent page to the sign-in page), to the page of the step that followed it.',
  ].join('');
}

function form(schema: string): Record<string, unknown> {
  return { required: true, content: { 'application/x-www-form-urlencoded': { schema: ref('schemas', schema) } } };
}

function metadataDocument(schema: string, tag: string = TAGS.discovery.name): Describe {
  return () => ({
    get: {
      tags: [tag],
      responses: { 200: { description: 'the document', headers: CACHE_CONTROL, content: jsonContent(ref('schemas', schema)) } },
    },
  });
}

function generatedDocument(type: string, schema: Record<string, unknown>): Describe {
  return () => ({
    get: {
      tags: [TAGS.docs.name],
      parameters: [{ name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' }, description: 'the `ETag` of a copy you hold' }],
      responses: {
        200: {
          description: 'the document, rendered from this deployment\'s configuration',
          headers: { ETag: ref('headers', 'ETag'), 'Cache-Control': ref('headers', 'Cache-Control') },
          content: { [type]: { schema } },
        },
        304: { description: 'not modified: the copy named by `If-None-Match` is current' },
      },
    },
  });
}

const DESCRIBE: Record<EndpointId, Describe> = {
  protectedResourceMetadata: metadataDocument('ProtectedResourceMetadata'),
  authorizationServerMetadata: metadataDocument('AuthorizationServerMetadata'),
  openidConfiguration: metadataDocument('AuthorizationServerMetadata'),
  authorization: (options) => ({
    get: {
      tags: [TAGS.oauth.name],
      description: 'Send the user\'s browser here. The user signs in and consents on this server\'s pages; then the browser is redirected to `redirect_uri`.',
      parameters: authorizeParameters(options).map((p) => ({
        name: p.name, in: 'query', required: p.mandatory, description: p.rule, schema: p.schema,
      })),
      responses: {
        // a web client whose user has a session and a grant gets its code without a page
        200: htmlPage(`${FORM_POST_CODE}, when no sign-in or consent page is needed`),
        303: {
          description: `A redirect: to the sign-in and consent pages first (a relative reference); finally to \`redirect_uri\` with \`code\`, \`state\` and \`iss\` (RFC 9207), or with \`error\`, \`error_description\`, \`state\` and \`iss\` (with \`response_mode=${FORM_POST}\`: 200 and 400 instead).`,
          headers: LOCATION,
        },
        400: htmlPage(`an error page, when the client or \`redirect_uri\` cannot be trusted with a redirect${options.clientIdMetadataDocuments.enabled
          ? ` (also \`invalid_client\` for ${DOCUMENT_NOT_FETCHED}, \`invalid_client_metadata\` for ${DOCUMENT_REFUSED})`
          : ''}; or, ${FORM_POST_ERROR}, for an error the client is told of (\`prompt=none\` that needs a page, for example)`),
        ...authorizationLimits(options),
        503: unavailablePage,
      },
    },
  }),
  token: (options) => ({
    post: {
      tags: [TAGS.oauth.name],
      description: `Client authentication: public clients send \`client_id\` only (\`${PUBLIC_CLIENT_AUTH_METHOD}\`); confidential clients add \`client_secret\` in the form (\`${CONFIDENTIAL_CLIENT_AUTH_METHOD}\`). HTTP Basic is refused.`,
      requestBody: form('TokenRequest'),
      responses: {
        200: { description: 'tokens', headers: CACHE_CONTROL, content: jsonContent(ref('schemas', 'TokenResponse')) },
        400: clientRequestError(options),
        401: ref('responses', 'InvalidClient'),
        ...tokenLimits(options),
        503: unavailable,
      },
    },
  }),
  userinfo: () => {
    const operation = (post: boolean) => bearerOperation({ scopes: ['openid'] }, {
      tags: [TAGS.oauth.name],
      responses: {
        200: { description: 'the claims the token\'s scopes release', content: jsonContent(ref('schemas', 'UserInfo')) },
        400: sentTwiceResponse(post ? 'the query or the form body' : 'the query'),
        // lib/resource/userinfo.ts reads a form body up to this size, to refuse a token sent in it too
        ...(post ? { 413: { description: `\`invalid_request\`: the form body is over ${USERINFO_FORM_LIMIT} bytes`, content: jsonContent(ref('schemas', 'OAuthError')) } } : {}),
      },
    });
    return { get: operation(false), post: operation(true) };
  },
  revocation: (options) => ({
    post: {
      tags: [TAGS.oauth.name],
      description: 'RFC 7009. A client revokes only its own tokens; revoking a refresh token ends the grant.',
      requestBody: form('RevocationRequest'),
      responses: {
        200: { description: 'revoked, or the token was already unknown' },
        400: clientRequestError(options),
        401: ref('responses', 'InvalidClient'),
        ...documentFetchLimit(options),
        503: unavailable,
      },
    },
  }),
  introspection: (options) => ({
    post: {
      tags: [TAGS.oauth.name],
      requestBody: form('IntrospectionRequest'),
      responses: {
        200: { description: 'the token\'s state', content: jsonContent(ref('schemas', 'IntrospectionResponse')) },
        400: clientRequestError(options),
        401: ref('responses', 'InvalidClient'),
        ...documentFetchLimit(options),
        503: unavailable,
      },
    },
  }),
  registration: (options) => (options.registration.variant === 'restricted'
    ? {
      post: {
        tags: [TAGS.registration.name],
        description: 'Variant A (restricted): the `client_name` is matched against the known vendor platforms, and the answer is that platform\'s client. Nothing is registered; open dynamic registration (RFC 7591) is not offered.',
        requestBody: { required: true, content: jsonContent(ref('schemas', 'VendorLookupRequest'), { client_name: 'Example LMS' }) },
        responses: {
          201: { description: 'the vendor platform\'s client', content: jsonContent(ref('schemas', 'VendorClient')) },
          400: { description: '`invalid_client_metadata`: no `client_name`, or it matches no known vendor platform', content: jsonContent(ref('schemas', 'OAuthError')) },
          413: { description: `\`invalid_request\`: the \`Content-Length\` is over ${REGISTRATION_LIMITS.bodyBytes} bytes`, content: jsonContent(ref('schemas', 'OAuthError')) },
        },
      },
    }
    : {
      post: {
        tags: [TAGS.registration.name],
        description: 'Variant B (open): RFC 7591 dynamic registration. Registered clients act for site operators.',
        requestBody: {
          required: true,
          content: jsonContent(ref('schemas', 'ClientRegistrationRequest'), {
            client_name: 'My agent', redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: PUBLIC_CLIENT_AUTH_METHOD,
          }),
        },
        responses: {
          201: { description: 'the registered client', headers: CACHE_CONTROL, content: jsonContent(ref('schemas', 'ClientRegistrationResponse')) },
          400: { description: '`invalid_client_metadata` or `invalid_redirect_uri`', content: jsonContent(ref('schemas', 'OAuthError')) },
          // lib/registration/open.ts, before the body is read
          413: { description: `\`invalid_request\`: the \`Content-Length\` is over ${REGISTRATION_LIMITS.bodyBytes} bytes`, content: jsonContent(ref('schemas', 'OAuthError')) },
          ...(options.registration.rateLimit
            ? { 429: tooMany(`too many registrations from this client address (${options.registration.rateLimit.perIp} at once, the bucket refilled over ${duration(options.registration.rateLimit.windowSeconds)})`) }
            : {}),
          503: unavailable,
        },
      },
    }),
  jwks: () => ({
    get: {
      tags: [TAGS.discovery.name],
      responses: { 200: { description: 'the public keys', content: { 'application/jwk-set+json': { schema: ref('schemas', 'JWKS') } } } },
    },
  }),
  interaction: (options) => ({
    get: {
      tags: [TAGS.browser.name],
      description: 'The sign-in or consent page the authorization endpoint sends the browser to. Its forms post back to sub-paths of this page with a CSRF token.',
      parameters: [{ name: 'uid', in: 'path', required: true, schema: { type: 'string' } }],
      responses: {
        200: htmlPage('the page'),
        303: { description: interactionRedirect(options), headers: LOCATION },
        400: htmlPage(`the interaction is unknown or has expired${options.clientIdMetadataDocuments.enabled
          ? ', or its client\'s metadata document could not be loaded again (its host failing once the cached copy expired)'
          : ''}`),
        // interactions/router.ts, showConsent
        403: htmlPage('the signed-in account may not use this client (a member client: no role at its site; an operator client: not an operator of any site): a refusal page whose button returns `access_denied` to the client'),
        ...documentFetchLimit(options, true),
        503: unavailablePage,
      },
    },
  }),
  accountApi: (options) => {
    const limits = options.accountApi;
    // a field's input error, not the request's: that field is null in a 200 (lib/account-api/errors.ts)
    const pageSizeTooLarge: MemberDataInputCode = 'PAGE_SIZE_TOO_LARGE';
    const pageSizeError = `\`BAD_USER_INPUT\` (\`extensions.reason\` \`${pageSizeTooLarge}\`, \`extensions.maximum\` ${limits.maxPageSize})`;
    const post = bearerOperation(ACCOUNT_API_ACCESS, {
      tags: [TAGS.account.name],
      description: `One GraphQL operation per request, for the signed-in member at the token's site. Query limits (a 400 over one): depth ${limits.maxDepth}, fragments nested at most ${MAX_FRAGMENT_NESTING} levels, cost ${limits.maxCost} (a paged list costs at least its \`first\`), at most ${MAX_LISTS} paged lists (aliases included), ${limits.maxTokens} tokens; body ${limits.maxBodyBytes} bytes (a 413 over it). Lists take \`first\` at most ${limits.maxPageSize}; a larger one is not a 400: its field is \`null\` in a 200, with the error ${pageSizeError}. Introspection is ${limits.introspection ? 'on' : 'off'}. A request without a token is refused (no anonymous mode).`,
      requestBody: {
        required: true,
        content: jsonContent(ref('schemas', 'GraphQLRequest'), { query: '{ viewer { id email enrolledCourses(first: 10) { nodes { slug expireDate hasLifetimeAccess } } } }' }),
      },
      responses: {
        200: {
          description: `the result; a field that failed is \`null\`, with its error in \`errors\` (\`extensions.code\`), e.g. ${pageSizeError} for a \`first\` over ${limits.maxPageSize}`,
          headers: CACHE_CONTROL,
          content: jsonContent(ref('schemas', 'GraphQLResponse')),
        },
        400: sentTwiceResponse('the query', {
          description: 'the request or query is invalid or over a query limit (a `GraphQLResponse`; `extensions.code` says which)',
          schema: ref('schemas', 'GraphQLResponse'),
        }),
        413: { description: 'the body is over the size limit', content: jsonContent(ref('schemas', 'GraphQLResponse')) },
        415: { description: 'not `Content-Type: application/json`', content: jsonContent(ref('schemas', 'GraphQLResponse')) },
        503: {
          description: `storage or the data source is unavailable; retry after \`Retry-After\`: \`temporarily_unavailable\` when the token could not be checked, or \`${UNAVAILABLE_CODE}\` when the answer has no data (a failed nullable field is \`null\` in a 200, with that code)`,
          headers: { 'Retry-After': ref('headers', 'Retry-After') },
          // anyOf: an OAuthError body is a GraphQLResponse too (that schema requires nothing)
          content: jsonContent({ anyOf: [ref('schemas', 'OAuthError'), ref('schemas', 'GraphQLResponse')] }),
        },
      },
    });
    return limits.graphiql
      ? {
        post,
        get: {
          tags: [TAGS.account.name],
          description: 'GraphiQL, for browsers (development only).',
          responses: {
            200: htmlPage('GraphiQL'),
            405: { description: '`METHOD_NOT_ALLOWED`, with `Allow: POST`: a GET that does not accept HTML (queries are POSTed)', content: jsonContent(ref('schemas', 'GraphQLResponse')) },
          },
        },
      }
      : { post };
  },
  mcp: (options) => {
    const headers = [
      { name: 'MCP-Protocol-Version', in: 'header', required: false, schema: { type: 'string' }, description: `the protocol revision: ${MCP_REVISIONS.current}, or the one \`initialize\` negotiated (${MCP_REVISIONS.legacy.join(', ')})` },
    ];
    // DNS-rebinding protection, before anything else and for every method: no challenge
    // (lib/mcp/endpoint.ts, `checkOrigin`; lib/mcp/request-origin.ts)
    const foreignOrigin = 'a `Host` this endpoint does not answer or an `Origin` it does not allow: a JSON-RPC error `-32000` (`Forbidden: Invalid Host: …` or `Forbidden: Invalid Origin: …`), without a challenge';
    // stateless: no session to resume or end, no server-initiated stream; answered before the
    // token is read, so no security and no challenge (lib/mcp/endpoint.ts, `preflight`)
    const notOffered = (what: string) => ({
      tags: [TAGS.mcp.name],
      description: `${what} This server keeps no sessions and opens no server-initiated stream, so it answers 405 with a JSON-RPC error (MCP Streamable HTTP allows that).`,
      responses: {
        403: { description: foreignOrigin, content: jsonContent(ref('schemas', 'JsonRpcMessage')) },
        405: {
          description: 'not offered; `Allow` names what is',
          headers: { Allow: { description: 'the methods `/mcp` answers', schema: { type: 'string', examples: [MCP_ALLOW] } } },
          content: jsonContent(ref('schemas', 'JsonRpcMessage')),
        },
      },
    });
    const guard = { optional: true } as const;
    return {
      post: bearerOperation(guard, {
        tags: [TAGS.mcp.name],
        description: `JSON-RPC messages of the Model Context Protocol. Send \`Accept: application/json, text/event-stream\`. ${toolListRule(options)} The same token works here and at the Account API.`,
        parameters: headers,
        requestBody: { required: true, content: jsonContent(ref('schemas', 'JsonRpcMessage'), { jsonrpc: '2.0', id: 1, method: 'tools/list' }) },
        responses: {
          200: {
            description: 'the JSON-RPC response, as JSON or as an event stream',
            content: { 'application/json': { schema: ref('schemas', 'JsonRpcMessage') }, 'text/event-stream': { schema: { type: 'string' } } },
          },
          202: { description: 'accepted (a notification or response)' },
          400: sentTwiceResponse('the query', {
            description: 'not a valid JSON-RPC message, an unsupported protocol revision, a batch the revision does not allow (only 2025-03-26 has batches), '
              + `or a standard header missing or disagreeing with the body (\`${HEADER_MISMATCH}\`): on ${MCP_REVISIONS.current} \`MCP-Protocol-Version\`, \`Mcp-Method\`, \`Mcp-Name\` and the \`Mcp-Param-*\` of a tool's \`x-mcp-header\` arguments; `
              + 'on the 2025 revisions `Mcp-Method` and `Mcp-Name` when sent. A token that is sent is checked first (a bad one is 401 `invalid_token`); '
              + 'a call without a token, or with one lacking the tool\'s scope, gets this 400 rather than a challenge: a JSON-RPC error',
            schema: ref('schemas', 'JsonRpcMessage'),
          }),
          403: {
            description: `\`insufficient_scope\` for a tool: ${INSUFFICIENT_SCOPE_RULE}; or ${foreignOrigin}`,
            headers: { 'WWW-Authenticate': ref('headers', 'WWW-Authenticate') },
            content: jsonContent({ oneOf: [ref('schemas', 'OAuthError'), ref('schemas', 'JsonRpcMessage')] }),
          },
          406: { description: 'the `Accept` header lacks `application/json` or `text/event-stream`' },
          413: { description: 'the body is over the size limit' },
          415: { description: 'not `Content-Type: application/json`' },
          503: {
            description: 'storage is unreachable while the token is checked (`temporarily_unavailable`)'
              + (options.mcp.answerTimeout === false ? '' : `, or no answer started within ${duration(options.mcp.answerTimeout)}, on any revision (JSON-RPC \`${NO_ANSWER.code}\`)`)
              + '; retry after `Retry-After`',
            headers: { 'Retry-After': ref('headers', 'Retry-After') },
          },
        },
      }),
      get: notOffered('The optional server-to-client event stream of Streamable HTTP.'),
      delete: notOffered('Ends a session in Streamable HTTP.'),
    };
  },
  openapi: generatedDocument('application/json', { type: 'object', description: 'an OpenAPI 3.1 document' }),
  authMd: generatedDocument('text/markdown', { type: 'string' }),
};

function operationId(id: EndpointId, method: string, methods: number): string {
  return methods > 1 ? `${id}${method[0]!.toUpperCase()}${method.slice(1)}` : id;
}

/** The path items of one endpoint. */
export function describeEndpoint(id: EndpointId, options: ResolvedOptions): OpenApiPaths {
  const endpoint = ENDPOINTS[id];
  const operations = DESCRIBE[id](options);
  const entries = Object.entries(operations) as [OpenApiMethod, OpenApiOperation][];
  const item = Object.fromEntries(entries.map(([method, op]) => [method, {
    summary: endpoint.summary,
    operationId: operationId(id, method, entries.length),
    ...op,
  }]));
  const paths: OpenApiPaths = { [templatePath(endpoint.path)]: item };
  if (id === 'authorization') {
    // after sign-in and consent the browser resumes here (lib/provider/dispatch.ts)
    paths[`${templatePath(endpoint.path)}/{uid}`] = {
      get: {
        summary: 'Authorization resumes after sign-in and consent',
        operationId: 'authorizationResume',
        tags: [TAGS.browser.name],
        description: `Reached by the browser from the sign-in and consent pages; answers the client like ${endpointUrl(options, 'authorization')}.`,
        parameters: [{ name: 'uid', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          200: htmlPage(`after consent, ${FORM_POST_CODE}`),
          303: { description: 'a redirect: to the next page (the consent page after sign-in, a relative reference), or to `redirect_uri` as the authorization endpoint\'s', headers: LOCATION },
          400: htmlPage(`an error page; or, ${FORM_POST_ERROR} (a denial, for example)`),
          // the provider's 503s carry the outage page, as the pages that lead here (lib/storage/outage.ts)
          503: unavailablePage,
        },
      },
    };
  }
  return paths;
}
