/**
 * Which endpoints of the table this deployment serves, and the facts of its configuration
 * both documents state. The composition root (lib/platform-auth.ts) and the provider
 * dispatcher (lib/provider/dispatch.ts) mount by the same rules; test/docs/routes.test.ts
 * requests every entry over HTTP and fails when the two disagree.
 *
 * @module
 */
import type { ResolvedOptions } from '../config/options.ts';
import { ENDPOINTS } from '../endpoints.ts';
import type { EndpointDefinition, EndpointId } from '../endpoints.ts';
import { SCOPES } from '../scopes/catalogue.ts';

/** Whether the endpoint `id` is mounted under `options`. */
export function isServed(id: EndpointId, options: ResolvedOptions): boolean {
  switch (id) {
    case 'jwks': return options.idTokens;
    case 'accountApi': return options.memberData !== undefined;
    case 'mcp':
    case 'mcpResourceMetadata': return options.mcp.enabled;
    case 'openapi': return options.docs.openapi !== false;
    case 'authMd': return options.docs.authMd !== false;
    default: return true;
  }
}

/** The served endpoints, in table order. */
export function servedEndpoints(options: ResolvedOptions): EndpointDefinition[] {
  return (Object.keys(ENDPOINTS) as EndpointId[]).filter((id) => isServed(id, options)).map((id) => ENDPOINTS[id]);
}

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

/** Scopes an unreviewed client ID metadata document client may hold (lib/policies/scopes.ts). */
export function unreviewedDocumentScopes(): string[] {
  return SCOPES.filter((s) => s.access === 'identity' || s.access === 'read').map((s) => s.name);
}
