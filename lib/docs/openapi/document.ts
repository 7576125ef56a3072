/**
 * `/openapi.json`: the OpenAPI 3.1 document of every endpoint this deployment serves, plus
 * the host's routes, built once at start-up.
 *
 * @module
 */
import type { ResolvedOptions } from '../../config/options.ts';
import { fail } from '../../config/check.ts';
import type { EndpointId } from '../../endpoints.ts';
import type { ResolvedOpenApiOptions } from '../options.ts';
import { endpointUrl } from '../surface.ts';
import { isServed, servedEndpoints } from '../../served-endpoints.ts';
import { buildComponents } from './components.ts';
import { describeEndpoint, TAGS } from './operations.ts';
import type { OpenApiDocument, OpenApiPaths } from './types.ts';

export const OPENAPI_VERSION = '3.1.0';

/** The library's own paths for `options`. */
export function libraryPaths(options: ResolvedOptions): OpenApiPaths {
  const paths: OpenApiPaths = {};
  for (const endpoint of servedEndpoints(options)) {
    Object.assign(paths, describeEndpoint(endpoint.id as EndpointId, options));
  }
  return paths;
}

function usedTags(paths: OpenApiPaths): Set<string> {
  const used = new Set<string>();
  for (const item of Object.values(paths)) {
    for (const value of Object.values(item)) {
      const tags = (value as { tags?: unknown }).tags;
      if (Array.isArray(tags)) for (const tag of tags) if (typeof tag === 'string') used.add(tag);
    }
  }
  return used;
}

function mergeHostPaths(paths: OpenApiPaths, host: OpenApiPaths): void {
  for (const [path, item] of Object.entries(host)) {
    if (path in paths) {
      fail(`options.docs.openapi.paths: ${path} is an endpoint of the library and already described; describe host routes only`);
    }
    paths[path] = item;
  }
}

export function buildOpenApiDocument(options: ResolvedOptions, openapi: ResolvedOpenApiOptions): OpenApiDocument {
  const paths = libraryPaths(options);
  mergeHostPaths(paths, openapi.paths);
  const used = usedTags(paths);
  const doc: OpenApiDocument = {
    openapi: OPENAPI_VERSION,
    info: {
      title: 'Course platform API: authorization and account access',
      version: '1.0.0',
      description: `The OAuth 2.0 / OpenID Connect surface of ${options.baseUrl} and the resources it protects, generated from this deployment's configuration.${
        isServed('authMd', options) ? ` The interface description for agents, with the flow step by step, is at ${endpointUrl(options, 'authMd')}.` : ''}`,
    },
    servers: [{ url: options.baseUrl }],
    tags: [
      ...Object.values(TAGS).filter((t) => used.has(t.name)),
      ...[...used].filter((name) => !Object.values(TAGS).some((t) => t.name === name)).map((name) => ({ name })),
    ],
    paths,
    components: buildComponents(options),
  };
  if (openapi.extend) {
    try {
      openapi.extend(doc);
    } catch (cause) {
      const message = cause instanceof Error ? cause.message : String(cause);
      fail(`options.docs.openapi.extend threw while editing the document: ${message}`);
    }
    if (!doc || typeof doc.paths !== 'object' || doc.openapi !== OPENAPI_VERSION) {
      fail('options.docs.openapi.extend must edit the document in place and keep `openapi` and `paths`');
    }
  }
  return doc;
}
