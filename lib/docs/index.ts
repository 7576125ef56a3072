/**
 * Self-description: `GET /openapi.json` (OpenAPI 3.1) and `GET /auth.md` (the interface
 * description for agents), rendered from the scope catalogue, the endpoint table and the
 * resolved options, never hand-copied. Hosts turn either off with `options.docs`, add their
 * own routes to `/openapi.json` with `describeBearerRoute()`, and edit the document last with
 * `extend`.
 *
 * @example
 * ```ts
 * const guard = { scopes: ['courses:read'], audiences: ['operator'] } as const;
 * const auth = await createPlatformAuth({
 *   ...options,
 *   docs: {
 *     openapi: { paths: [describeBearerRoute({ path: '/admin/courses', method: 'GET', summary: 'List courses', ...guard })] },
 *     authMd: { rateLimits: '600 requests per minute per IP address (429 with Retry-After)' },
 *   },
 * });
 * router.get('/admin/courses', auth.requireBearer(guard), listCourses);
 * ```
 *
 * @module
 */
export { resolveDocsOptions } from './options.ts';
export type {
  AuthMdOptions, DocsOptions, LimitRow, OpenApiOptions, ResolvedAuthMdOptions, ResolvedDocsOptions, ResolvedOpenApiOptions,
} from './options.ts';
export { createDocsRouter, DOCS_CACHE_CONTROL, renderDocuments } from './router.ts';
export type { DocsDeps } from './router.ts';
export { describeBearerRoute } from './bearer-route.ts';
export type { BearerRouteDescription, BearerRouteMethod } from './bearer-route.ts';
export { buildOpenApiDocument } from './openapi/document.ts';
export { renderAuthMd } from './auth-md.ts';
export type {
  JsonSchema, OpenApiDocument, OpenApiMethod, OpenApiOperation, OpenApiPathItem, OpenApiPaths,
} from './openapi/types.ts';
