/**
 * The `endpoint` attribute of the metrics: a short, bounded name for each of the library's
 * endpoints, from the endpoint table. Paths the library does not serve (the host's routes)
 * have none and are not timed.
 *
 * @module
 */
import { ENDPOINTS } from '../endpoints.ts';
import type { EndpointDefinition, EndpointId } from '../endpoints.ts';

/** The label of each endpoint of the table. */
export const ENDPOINT_LABELS: Readonly<Record<EndpointId, string>> = Object.freeze({
  protectedResourceMetadata: 'protected_resource_metadata',
  authorizationServerMetadata: 'discovery',
  openidConfiguration: 'discovery',
  authorization: 'authorization',
  token: 'token',
  userinfo: 'userinfo',
  revocation: 'revocation',
  introspection: 'introspection',
  registration: 'registration',
  jwks: 'jwks',
  interaction: 'interaction',
  accountApi: 'account_api',
  mcp: 'mcp',
  openapi: 'docs',
  authMd: 'docs',
});

/** oidc-provider route names (`ctx.oidc.route`) to labels. */
export const PROVIDER_ROUTE_LABELS: Readonly<Record<string, string>> = Object.freeze({
  authorization: 'authorization',
  resume: 'authorization',
  token: 'token',
  revocation: 'revocation',
  introspection: 'introspection',
  registration: 'registration',
  jwks: 'jwks',
  discovery: 'discovery',
});

/**
 * The label of `path` among the `served` endpoints (lib/served-endpoints.ts), or `undefined`
 * for a path the library does not serve.
 */
export function createEndpointLabeler(served: readonly EndpointDefinition[] = Object.values(ENDPOINTS)): (path: string) => string | undefined {
  const exact = new Map<string, string>();
  // after sign-in and consent the browser resumes at /oauth/authorize/:uid
  const prefixes: [string, string][] = [[`${ENDPOINTS.authorization.path}/`, 'authorization']];
  for (const { id, path } of served) {
    const label = ENDPOINT_LABELS[id as EndpointId];
    const param = path.indexOf('/:');
    if (param < 0) exact.set(path, label);
    else prefixes.push([path.slice(0, param + 1), label]);
  }
  return function endpointLabel(path) {
    const label = exact.get(path);
    if (label !== undefined) return label;
    for (const [prefix, name] of prefixes) if (path.startsWith(prefix)) return name;
    return undefined;
  };
}
