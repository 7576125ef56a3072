/**
 * The OpenAPI description of a route guarded by `auth.requireBearer()`: the security
 * requirement with the route's scopes, and the 401/403 challenge answers the guard writes.
 * The library describes UserInfo and the Account API with it; hosts describe their own
 * routes and pass them as `options.docs.openapi.paths`.
 *
 * @example
 * ```ts
 * const listCourses = { scopes: ['courses:read'], audiences: ['operator'] } as const;
 * const auth = await createPlatformAuth({
 *   ...options,
 *   docs: { openapi: { paths: [describeBearerRoute({ path: '/admin/courses', method: 'GET', summary: 'List the site\'s courses', ...listCourses })] } },
 * });
 * router.get('/admin/courses', auth.requireBearer(listCourses), handler);
 * ```
 *
 * @module
 */
import { fail, show } from '../config/check.ts';
import type { RequireBearerOptions } from '../resource/require-bearer.ts';
import { checkBearerGuard } from '../resource/guard-options.ts';
import { jsonContent, ref, SECURITY_SCHEME } from './openapi/helpers.ts';
import type { JsonSchema, OpenApiOperation, OpenApiPaths } from './openapi/types.ts';
import { pathParameters, templatePath } from './surface.ts';

export type BearerRouteMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface BearerRouteDescription extends RequireBearerOptions {
  /** The route's path, as an OpenAPI template (`/admin/courses/{id}`) or Koa-style (`/admin/courses/:id`). */
  readonly path: string;
  readonly method: BearerRouteMethod;
  readonly summary: string;
  readonly description?: string;
  readonly operationId?: string;
  readonly tags?: readonly string[];
  /** Path parameters of the template are added as strings unless described here. */
  readonly parameters?: readonly Record<string, unknown>[];
  readonly requestBody?: Record<string, unknown>;
  /**
   * The route's own answers; 400, 401, 403 and 503 are added unless given.
   * @default { 200: { description: 'OK' } }
   */
  readonly responses?: Record<string, unknown>;
}

const METHODS: readonly BearerRouteMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const ROUTE_KEYS = ['description', 'operationId', 'tags', 'parameters', 'requestBody', 'responses'];

/** What the guard asks of the token, as a sentence. */
function guardSentence(guard: RequireBearerOptions): string {
  const scopes = guard.scopes ?? [];
  const needs = scopes.length > 0 ? ` with ${scopes.map((s) => `\`${s}\``).join(' and ')}` : '';
  const from = guard.audiences?.length ? ` from ${guard.audiences.join(' or ')} clients` : '';
  return guard.optional
    ? `Optional authorization: without a token the request is served anonymously; a token that is sent must be a valid access token${needs}${from}.`
    : `Requires a bearer access token${needs}${from}.`;
}

/**
 * The guard's 400 (lib/resource/require-bearer.ts): a token sent more than one way (RFC 6750
 * §2) is `invalid_request`, an RFC 6749 §5.2 body with the challenge, as the guard's 401 and
 * 403 (RFC 6750 §3.1; lib/errors.ts, isBearerRefusal). `where`: where else the guard looks
 * for an `access_token`; `also`: a route's own 400, which joins it (the body is either).
 */
export function sentTwiceResponse(where = 'the query', also?: { readonly description: string; readonly schema: JsonSchema }): Record<string, unknown> {
  const why = `\`invalid_request\` with the \`WWW-Authenticate\` challenge: the access token is sent more than one way (two \`Authorization\` headers, or the header and an \`access_token\` in ${where})`;
  const oauthError = ref('schemas', 'OAuthError');
  return {
    description: also ? `${also.description}; or ${why}` : why,
    headers: { 'WWW-Authenticate': ref('headers', 'WWW-Authenticate') },
    // anyOf: a route's body schema may accept an OAuthError body too (GraphQLResponse requires nothing)
    content: jsonContent(also ? { anyOf: [also.schema, oauthError] } : oauthError),
  };
}

/** An operation guarded like `requireBearer(guard)`: security, challenges and a sentence saying so. */
export function bearerOperation(guard: RequireBearerOptions, operation: OpenApiOperation): OpenApiOperation {
  const scopes = [...(guard.scopes ?? [])];
  const refusable = scopes.length > 0 || (guard.audiences?.length ?? 0) > 0;
  const responses: Record<string, unknown> = { ...operation.responses };
  // a body parser the host runs before the guard may have read an `access_token` too
  responses['400'] ??= sentTwiceResponse('the query, or in a body read before the guard');
  responses['401'] ??= ref('responses', 'InvalidToken');
  if (refusable) responses['403'] ??= ref('responses', 'InsufficientScope');
  responses['503'] ??= ref('responses', 'TemporarilyUnavailable');
  const requirement = { [SECURITY_SCHEME]: scopes };
  return {
    ...operation,
    description: [operation.description, guardSentence(guard)].filter(Boolean).join('\n\n'),
    security: guard.optional ? [{}, requirement] : [requirement],
    ...(guard.audiences?.length ? { 'x-audiences': [...guard.audiences] } : {}),
    responses,
  };
}

/**
 * OpenAPI `paths` for one host route guarded by `auth.requireBearer(guard)`; pass the same
 * `scopes`, `audiences` and `optional` as the guard. Throws ConfigurationError for a scope
 * outside the catalogue.
 */
export function describeBearerRoute(route: BearerRouteDescription): OpenApiPaths {
  if (!route || typeof route !== 'object') fail('describeBearerRoute: pass { path, method, summary, scopes?, audiences? }');
  if (typeof route.path !== 'string' || !route.path.startsWith('/')) fail(`describeBearerRoute: path must start with "/"; got ${show(route.path)}`);
  if (!METHODS.includes(route.method)) fail(`describeBearerRoute: method must be one of ${METHODS.join(', ')}; got ${show(route.method)}`);
  if (typeof route.summary !== 'string' || !route.summary.trim()) fail(`describeBearerRoute: summary of ${route.method} ${route.path} must be a non-empty string`);
  const { path: _path, method: _method, summary: _summary, ...rest } = route;
  checkBearerGuard(`describeBearerRoute: ${route.method} ${route.path}`, rest, ROUTE_KEYS);
  const path = templatePath(route.path);
  const given = [...(route.parameters ?? [])];
  const described = new Set(given.filter((p) => p.in === 'path').map((p) => p.name));
  const parameters = [
    ...pathParameters(path).filter((name) => !described.has(name)).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
    ...given,
  ];
  const operation = bearerOperation(route, {
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    ...(route.operationId ? { operationId: route.operationId } : {}),
    ...(route.tags ? { tags: [...route.tags] } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(route.requestBody ? { requestBody: route.requestBody } : {}),
    responses: route.responses ?? { 200: { description: 'OK' } },
  });
  return { [path]: { [route.method.toLowerCase()]: operation } };
}
