/**
 * Resource indicators (RFC 8707) name this service by its origin. Real clients send
 * both `https://host` and `https://host/`; both mean the same resource, and its canonical
 * form is the configured `baseUrl` (no trailing slash), which is also the tokens' `aud`.
 *
 * @module
 */
import { errors } from 'oidc-provider';
import type { Client, KoaContextWithOIDC } from 'oidc-provider';

import { assertScopesAllowed } from './scope-allowance.ts';

/** The canonical form of `indicator` when it names `baseUrl`, otherwise `undefined`. */
export function canonicalResource(indicator: string, baseUrl: string): string | undefined {
  // what clients send on every token request, answered without parsing a URL (4 µs of a
  // refresh): the same answer as below, for a `baseUrl` that is an origin as URL writes it
  if ((indicator === baseUrl || indicator === `${baseUrl}/`) && isCanonicalOrigin(baseUrl)) return baseUrl;
  const url = URL.parse(indicator);
  // RFC 8707 §2: no fragment, and no query here; an empty `?` or `#` leaves URL's search/hash empty
  if (!url || /[?#]/.test(indicator) || url.username || url.password) return undefined;
  if (url.pathname !== '/') return undefined;
  return url.origin === baseUrl ? baseUrl : undefined;
}

const canonicalOrigins = new Set<string>();

function isCanonicalOrigin(baseUrl: string): boolean {
  if (canonicalOrigins.has(baseUrl)) return true;
  const canonical = URL.parse(baseUrl)?.origin === baseUrl;
  if (canonical) canonicalOrigins.add(baseUrl);
  return canonical;
}

export interface ResourceServerPolicy {
  readonly baseUrl: string;
  /** seconds */
  readonly accessTokenTTL: number;
  /** the scopes `client` may hold (./scope-allowance.ts) */
  readonly allowance: (client: Client) => Promise<ReadonlySet<string>>;
}

/**
 * oidc-provider's `features.resourceIndicators`: every token is bound to this origin, also
 * when the client names no resource; any other resource, or several at the token endpoint, is
 * `invalid_target`; and the scopes
 * requested are checked against the client's allowance first, so they are refused rather than
 * silently dropped.
 */
export function resourceIndicatorsFeature(policy: ResourceServerPolicy) {
  const { baseUrl } = policy;
  return {
    enabled: true,
    // called with `oneOf` when several resources are named: oidc-provider would collapse them
    // into this one; a token request naming several (even the same one twice) is refused
    async defaultResource(ctx: KoaContextWithOIDC, _client: Client, oneOf?: readonly string[]) {
      if (oneOf !== undefined && ctx.oidc.route === 'token' && Array.isArray(ctx.oidc.params?.resource)) {
        throw new errors.InvalidTarget(ONE_RESOURCE);
      }
      return baseUrl;
    },
    useGrantedResource: async () => true,
    async getResourceServerInfo(ctx: KoaContextWithOIDC, indicator: string, client: Client) {
      const resource = canonicalResource(indicator, baseUrl);
      if (!resource) throw new errors.InvalidTarget(onlyFor(baseUrl));
      const allowance = await policy.allowance(client);
      assertScopesAllowed(ctx.oidc.params?.scope as string | undefined, allowance);
      return {
        scope: [...allowance].join(' '),
        audience: baseUrl,
        accessTokenTTL: policy.accessTokenTTL,
        accessTokenFormat: 'opaque' as const,
      };
    },
  };
}

const ONE_RESOURCE = 'only one resource may be named in a token request';
const onlyFor = (baseUrl: string) => `this server issues tokens only for the resource ${baseUrl}`;

/**
 * A refresh's `resource` and `scope` refusals, asked before its token is rotated (from
 * oidc-provider's `rotateRefreshToken`). oidc-provider resolves the resource and asks
 * `getResourceServerInfo` only after it consumed the presented token and stored its successor,
 * so a refresh refused there (`invalid_target` for the granted resource in its other spelling,
 * `invalid_scope` for a scope the client may no longer hold) had rotated a token whose
 * successor nobody received: the corrected retry after `refreshTokenGrace` was reuse, and the
 * grant was revoked. The same rules and errors, asked first; oidc-provider still asks its own
 * after. Nothing is looked up unless the request names a `resource` or a `scope`.
 */
export function refreshTargetCheck(policy: ResourceServerPolicy) {
  const { baseUrl } = policy;
  return async function checkTargetBeforeRotation(ctx: KoaContextWithOIDC): Promise<void> {
    const { client, params } = ctx.oidc;
    const token = ctx.oidc.entities.RefreshToken;
    if (!client || !token) return;
    const named = params?.resource as string | string[] | undefined;
    if (Array.isArray(named)) throw new errors.InvalidTarget(ONE_RESOURCE);
    if (named !== undefined) {
      // oidc-provider compares a refresh's resource with the granted ones as strings
      if (!token.resourceIndicators.has(named)) throw new errors.InvalidTarget();
      if (!canonicalResource(named, baseUrl)) throw new errors.InvalidTarget(onlyFor(baseUrl));
    }
    const scope = params?.scope as string | undefined;
    if (scope !== undefined) assertScopesAllowed(scope, await policy.allowance(client));
  };
}
