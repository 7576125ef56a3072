/**
 * oidc-provider configuration derived from the resolved options, the scope catalogue and
 * the endpoint table. Every protocol step (PKCE, redirect URI matching, code exchange,
 * refresh rotation, introspection, revocation, RFC 9207 `iss`) stays the provider's; this
 * module only sets its policies.
 *
 * @module
 */
import { errors } from 'oidc-provider';
import type Provider from 'oidc-provider';
import type {
  Configuration, KoaContextWithOIDC, FindAccount, Client,
} from 'oidc-provider';

import { accountClaims, SCOPE_CLAIMS } from '../claims.ts';
import type { ResolvedOptions } from '../config/options.ts';
import { ENDPOINTS, providerRoutes } from '../endpoints.ts';
import type { GrantContextStore } from '../grant-context.ts';
import { clientAudience, memberClientSite, rolesAt } from '../policies/audience.ts';
import { EXTRA_CLIENT_METADATA, validateClientMetadata } from '../policies/client-metadata.ts';
import { assertScopesAllowed, scopeAllowance } from '../policies/scopes.ts';
import { createDocumentFetch } from '../cimd/fetch.ts';
import { revokeOrphanedGrant } from '../resource/bearer.ts';
import { canonicalResource } from '../resource/indicator.ts';
import { parseScope, SCOPE_NAMES } from '../scopes/catalogue.ts';
import { renderProviderError } from '../pages/error-page.ts';

export interface ConfigurationDeps {
  readonly grantContexts: GrantContextStore;
  /** for tokens minted outside a request (no ctx), e.g. by host tooling */
  readonly findClient: (clientId: string) => Promise<Client | undefined>;
  /** the provider, once built (the configuration is made before it exists) */
  readonly provider: () => Provider;
}

/** The site a token of `grantId` speaks for: the member client's, or the one chosen at consent. */
async function resolveSite(deps: ConfigurationDeps, client: Client | undefined, grantId: string | undefined) {
  if (!client) return undefined;
  if (clientAudience(client) === 'member') return memberClientSite(client);
  if (!grantId) return undefined;
  return (await deps.grantContexts.find(grantId))?.orgId;
}

// oidc-provider's defaults, restated because the shared document cache applies them too
const DOCUMENT_BODY_LIMIT = 5 * 1024;
const DOCUMENT_CACHE_SECONDS = { min: 30, max: 86400 };

/** Whether documents from the host of `clientId` may be fetched at all. */
function documentHostAllowed(clientId: string, allowedHosts: ReadonlySet<string> | null): boolean {
  if (allowedHosts === null) return true;
  const url = URL.parse(clientId);
  return url !== null && (allowedHosts.has(url.host) || allowedHosts.has(url.hostname));
}

export function buildConfiguration(options: ResolvedOptions, deps: ConfigurationDeps): Configuration {
  const { baseUrl, ttl } = options;
  const cimd = options.clientIdMetadataDocuments;
  const openRegistration = options.registration.variant === 'open';

  const findAccount: FindAccount = async (ctx, sub, token) => {
    const account = await options.accounts.findById(sub);
    if (!account) return undefined;
    return {
      accountId: account.id,
      async claims(_use, scope) {
        const site = await resolveSite(deps, ctx.oidc.client, token?.grantId);
        return { ...accountClaims(account, site, new Set(parseScope(scope))) };
      },
    };
  };

  return {
    adapter: options.adapter,
    clients: options.clients.map((c) => ({ ...c })),
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_post',
      id_token_signed_response_alg: 'ES256',
    },
    clientAuthMethods: ['none', 'client_secret_post'],
    responseTypes: ['code'],
    // exact redirect_uri matching: the parameter is always required, never inferred
    allowOmittingSingleRegisteredRedirectUri: false,
    pkce: { required: () => true },
    scopes: [...SCOPE_NAMES],
    claims: Object.fromEntries(Object.entries(SCOPE_CLAIMS).map(([k, v]) => [k, [...v]])),
    // the ID token carries the same claims as UserInfo (spec §2.3), not just `sub`
    conformIdTokenClaims: false,
    cookies: {
      keys: [...options.cookieKeys],
    },
    jwks: options.jwks,
    enabledJWA: {
      idTokenSigningAlgValues: ['ES256'],
    },
    routes: providerRoutes(),
    discovery: {
      // UserInfo is served beside the provider (lib/resource/userinfo.ts)
      userinfo_endpoint: `${baseUrl}${ENDPOINTS.userinfo.path}`,
      // Variant A answers registration beside the provider (lib/registration/restricted.ts)
      registration_endpoint: `${baseUrl}${ENDPOINTS.registration.path}`,
      // the provider sets it to true itself when the feature is on
      client_id_metadata_document_supported: false,
    },
    fetch: createDocumentFetch({
      adapter: options.adapter,
      fetch: cimd.fetch,
      bodyLimit: DOCUMENT_BODY_LIMIT,
      cacheDuration: DOCUMENT_CACHE_SECONDS,
    }) as Configuration['fetch'],
    fetchResponseBodyLimits: { 'client_id metadata document': DOCUMENT_BODY_LIMIT },
    features: {
      devInteractions: { enabled: false },
      dPoP: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      // Variant B: RFC 7591 registration of operator clients (rules in lib/policies/client-metadata.ts)
      registration: {
        enabled: openRegistration,
        initialAccessToken: false,
        issueRegistrationAccessToken: false,
      },
      clientIdMetadataDocument: {
        enabled: cimd.enabled,
        ack: 'draft-02',
        allowFetch: async (_ctx, clientId) => documentHostAllowed(clientId, cimd.allowedHosts),
        allowClient: async () => true,
        cacheDuration: { ...DOCUMENT_CACHE_SECONDS },
      },
      userinfo: { enabled: false },
      revocation: {
        enabled: true,
        // RFC 7009 §2.1: a client revokes only its own tokens
        async allowedPolicy(_ctx, client, token) {
          if (token.clientId === client.clientId) return true;
          if (client.clientAuthMethod === 'none') return false;
          throw new errors.InvalidRequest('client is not authorized to revoke the presented token');
        },
      },
      introspection: {
        enabled: true,
        // only the client the token was issued to, or a resource server the host trusts
        async allowedPolicy(_ctx, client, token) {
          if (token.clientId === client.clientId) return true;
          if (!options.introspectionClients.includes(client.clientId)) return false;
          // a token of a deleted client is inactive (and oidc-provider would fail reading it)
          if (await deps.findClient(token.clientId!)) return true;
          const { grantId } = token as { grantId?: string };
          if (grantId) await revokeOrphanedGrant(deps.provider(), grantId);
          return false;
        },
      },
      resourceIndicators: {
        enabled: true,
        // every token is bound to this origin, also when the client names no resource
        defaultResource: async () => baseUrl,
        useGrantedResource: async () => true,
        async getResourceServerInfo(ctx, indicator, client) {
          const resource = canonicalResource(indicator, baseUrl);
          if (!resource) {
            throw new errors.InvalidTarget(`this server issues tokens only for the resource ${baseUrl}`);
          }
          const allowance = await scopeAllowance(client, cimd);
          assertScopesAllowed(ctx.oidc.params?.scope as string | undefined, allowance);
          return {
            scope: [...allowance].join(' '),
            audience: baseUrl,
            accessTokenTTL: ttl.accessToken,
            accessTokenFormat: 'opaque',
          };
        },
      },
    },
    findAccount,
    async extraTokenClaims(ctx: KoaContextWithOIDC | undefined, token) {
      if (token.kind !== 'AccessToken') return undefined;
      const client = ctx?.oidc?.client ?? await deps.findClient(token.clientId!);
      const site = await resolveSite(deps, client, token.grantId);
      if (!site) return undefined;
      const account = await options.accounts.findById(token.accountId!);
      return { org_id: site, roles: account ? rolesAt(account, site) : [] };
    },
    // a refresh token is issued with every code exchange (spec §4), and rotated on every use
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: () => true,
    expiresWithSession: async () => false,
    ttl: {
      AccessToken: () => ttl.accessToken,
      AuthorizationCode: () => ttl.authorizationCode,
      IdToken: () => 600,
      RefreshToken: () => ttl.refreshToken,
      Interaction: () => ttl.interaction,
      Session: () => ttl.session,
      Grant: () => ttl.grant,
    },
    interactions: {
      url: (_ctx, interaction) => ENDPOINTS.interaction.path.replace(':uid', interaction.uid),
    },
    extraClientMetadata: {
      properties: [...EXTRA_CLIENT_METADATA],
      validator: (ctx, key, value, metadata) => validateClientMetadata(ctx, key, value, metadata as Record<string, unknown>),
    },
    renderError: renderProviderError,
  };
}
