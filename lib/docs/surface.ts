/**
 * URL and path-template helpers both documents use. Which endpoints are served is decided in
 * lib/served-endpoints.ts.
 *
 * @module
 */
import type { ResolvedOptions } from '../config/options.ts';
import { ENDPOINTS } from '../endpoints.ts';
import type { EndpointId } from '../endpoints.ts';

/** An absolute URL of an endpoint. */
export function endpointUrl(options: ResolvedOptions, id: EndpointId): string {
  return `${options.baseUrl}${ENDPOINTS[id].path}`;
}

/** `/oauth/interaction/:uid` → `/oauth/interaction/{uid}` (OpenAPI path templating). */
export function templatePath(path: string): string {
  return path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

/** The names in `{…}` of a path template. */
export function pathParameters(template: string): string[] {
  return [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
}
