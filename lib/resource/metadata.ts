/**
 * Protected-resource metadata (RFC 9728), which oidc-provider does not serve.
 *
 * `scopes_supported` lists the identity scopes only: MCP clients request exactly this list
 * before anything else, and it must be one that every client that reads it can be granted
 * (operator, member and unreviewed CIMD clients alike): one a client may not hold is dropped
 * from its request, not refused (lib/policies/scope-allowance.ts, grantableScope). Data scopes are then requested by
 * step-up, driven by the `scope` of 403 `insufficient_scope` answers.
 *
 * @module
 */
import { ENDPOINTS } from '../endpoints.ts';
import { IDENTITY_SCOPES } from '../scopes/catalogue.ts';

export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  scopes_supported: string[];
  bearer_methods_supported: string[];
  resource_documentation?: string;
  resource_name: string;
}

/** `documentation`: whether `/auth.md` is served, so the metadata never points at a 404. */
export function protectedResourceMetadata(baseUrl: string, documentation = true): ProtectedResourceMetadata {
  return {
    resource: baseUrl,
    authorization_servers: [baseUrl],
    scopes_supported: [...IDENTITY_SCOPES],
    bearer_methods_supported: ['header'],
    ...(documentation && { resource_documentation: `${baseUrl}${ENDPOINTS.authMd.path}` }),
    resource_name: 'Course platform API',
  };
}

export function resourceMetadataUrl(baseUrl: string): string {
  return `${baseUrl}${ENDPOINTS.protectedResourceMetadata.path}`;
}
