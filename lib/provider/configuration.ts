/**
 * The oidc-provider configuration: assembled from the policies (lib/policies/*, one rule
 * each), the protocol constants (lib/constants.ts), the scope catalogue and the endpoint
 * table. Every protocol step (PKCE, redirect URI matching, code exchange, refresh rotation,
 * introspection, revocation, RFC 9207 `iss`) stays the provider's; nothing is decided here.
 *
 * @module
 */
import type Provider from 'oidc-provider';
import { interactionPolicy } from 'oidc-provider';
import type { Client, Configuration, KoaContextWithOIDC } from 'oidc-provider';

import { createDocumentFetch } from '../cimd/fetch.ts';
import { createFetchGuard } from '../cimd/guard.ts';
import type { KnownDocuments } from '../cimd/known-documents.ts';
import type { PageRequests } from '../cimd/page-requests.ts';
import { DOCUMENT_REFUSED, findTokenClient } from '../cimd/token-client.ts';
import { SCOPE_CLAIMS } from '../claims.ts';
import type { ResolvedOptions } from '../config/options.ts';
import { interactionPath, providerRoutes } from '../endpoints.ts';
import type { GrantContextStore } from '../grant-context.ts';
import type { ClientAddresses } from '../http/client-address.ts';
import { createProviderErrorRenderer } from '../pages/error-page.ts';
import { codeFlowSettings, featuresOff } from '../policies/code-flow.ts';
import { withCodeReplay } from '../policies/code-replay.ts';
import type { CodeExchanges } from '../policies/code-replay.ts';
import { discoveryAdditions } from '../policies/discovery.ts';
import { idTokenSettings, withholdsIdToken } from '../policies/id-tokens.ts';
import { EXTRA_CLIENT_METADATA, selfRegisteredId, validateClientMetadata } from '../policies/client-metadata.ts';
import { checkRegistrationLimits } from '../policies/registration-limits.ts';
import { allowClientOrigin } from '../policies/cors.ts';
import { providerTtl } from '../policies/lifetimes.ts';
import { DOCUMENT_BODY_LIMIT, DOCUMENT_CACHE_SECONDS, metadataDocumentFeature } from '../policies/metadata-documents.ts';
import { expiresWithSession, issueRefreshToken, rotateRefreshToken } from '../policies/refresh.ts';
import { withRefreshRate } from '../policies/refresh-rate.ts';
import { withRefreshGrace } from '../policies/refresh-grace.ts';
import { markServedInGrace } from '../events/grace.ts';
import { refreshTargetCheck, resourceIndicatorsFeature } from '../policies/resource-indicator.ts';
import { hostSessionCheck } from '../policies/host-session.ts';
import type { OwnPageSignIns } from '../policies/host-session.ts';
import type { HostSessionLookup } from '../policies/host-session.ts';
import { scopeAllowance } from '../policies/scope-allowance.ts';
import { scopeRequiredCheck } from '../policies/scope-required.ts';
import { createExtraTokenClaims, createFindAccount, createSiteCheckBeforeRotation } from '../policies/token-claims.ts';
import { createLoadExistingGrant } from '../policies/existing-grant.ts';
import { introspectionAllowed, revocationAllowed } from '../policies/token-access.ts';
import type { IntrospectionPolicy } from '../policies/token-access.ts';
import { SCOPE_NAMES } from '../scopes/catalogue.ts';
import { answeredBy } from '../served-endpoints.ts';
import { withClientExpiry } from '../storage/client-expiry.ts';

export interface ConfigurationDeps {
  readonly grantContexts: GrantContextStore;
  /** for tokens minted outside a request (no ctx), e.g. by host tooling */
  readonly findClient: (clientId: string) => Promise<Client | undefined>;
  /** the provider, once built (the configuration is made before it exists) */
  readonly provider: () => Provider;
  /** with `options.signIn.session`: the sessions signed in on the library's own page */
  readonly ownPageSignIns?: OwnPageSignIns;
  /** the document URLs of clients holding tokens (lib/cimd/known-documents.ts) */
  readonly knownDocuments?: KnownDocuments;
  /** the codes being exchanged, given back after a 503 (lib/policies/code-replay.ts) */
  readonly codeExchanges?: CodeExchanges;
  /** the pages' client lookups made in the host app, charged to their callers (lib/cimd/page-requests.ts) */
  readonly pageRequests: PageRequests;
  /** the client's address for the fetch budget, shared with the instance's other limits (lib/http/client-address.ts) */
  readonly addresses: ClientAddresses;
}

export function buildConfiguration(options: ResolvedOptions, deps: ConfigurationDeps): Configuration {
  const { baseUrl, ttl } = options;
  const cimd = options.clientIdMetadataDocuments;
  const claimsDeps = {
    accounts: options.accounts, grantContexts: deps.grantContexts, findClient: deps.findClient, withholdsIdToken: withholdsIdToken(options.idTokens),
    operatorRoles: options.operatorRoles,
  };
  const introspection: IntrospectionPolicy = {
    introspectionClients: options.introspectionClients,
    tokenClient: async (clientId) => {
      const client = await findTokenClient(deps.provider().Client, clientId);
      if (client === DOCUMENT_REFUSED) return 'refused';
      return client ? 'live' : 'deleted';
    },
    provider: deps.provider,
  };
  const documents = createDocumentFetch({
    adapter: options.adapter, fetch: cimd.fetch, bodyLimit: DOCUMENT_BODY_LIMIT, cacheDuration: DOCUMENT_CACHE_SECONDS,
    failureSeconds: cimd.failureCacheSeconds,
  });
  const checkSiteBeforeRotation = createSiteCheckBeforeRotation(claimsDeps);
  const resourceServer = { baseUrl, accessTokenTTL: ttl.accessToken, allowance: (client: Client) => scopeAllowance(client, cimd) };
  const checkTargetBeforeRotation = refreshTargetCheck(resourceServer);
  const guardFetch = createFetchGuard({
    adapter: options.adapter, budget: cimd.fetchBudget, documents, known: deps.knownDocuments, addresses: deps.addresses,
    pageRequests: deps.pageRequests,
  });

  return {
    adapter: withClientExpiry(
      withCodeReplay(
        withRefreshGrace(
          // each refresh counted against its grant where the grace reads its token
          withRefreshRate(options.adapter, options.refreshTokenRateLimit, { graceSeconds: options.refreshTokenGrace }),
          { graceSeconds: options.refreshTokenGrace, onGraceUsed: markServedInGrace },
        ),
        { grantSeconds: ttl.grant, exchanges: deps.codeExchanges },
      ),
      { unusedSeconds: options.registration.unusedClientExpiry },
    ),
    clients: options.clients.map((c) => ({ ...c })),
    ...codeFlowSettings(),
    scopes: [...SCOPE_NAMES],
    claims: providerClaims(options.signIn.acrValues),
    acrValues: [...options.signIn.acrValues],
    ...idTokenSettings(),
    cookies: { keys: [...options.cookieKeys] },
    jwks: options.jwks,
    routes: providerRoutes(),
    discovery: { ...discoveryAdditions(baseUrl), ui_locales_supported: [...options.pages.locales] },
    // token, revocation, introspection: which pages of another origin may call them as a client
    clientBasedCORS: (_ctx, origin, client) => allowClientOrigin(origin, client),
    fetch: documents as Configuration['fetch'],
    fetchResponseBodyLimits: { 'client_id metadata document': DOCUMENT_BODY_LIMIT },
    features: {
      ...featuresOff(),
      // Variant B: RFC 7591 registration of operator clients (rules in lib/policies/client-metadata.ts)
      registration: { enabled: answeredBy('registration', options) === 'provider', initialAccessToken: false, issueRegistrationAccessToken: false, idFactory: selfRegisteredId },
      clientIdMetadataDocument: metadataDocumentFeature(cimd, guardFetch),
      revocation: { enabled: true, allowedPolicy: (_ctx, client, token) => revocationAllowed(client, token) },
      introspection: { enabled: true, allowedPolicy: (_ctx, client, token) => introspectionAllowed(introspection, client, token) },
      resourceIndicators: resourceIndicatorsFeature(resourceServer),
    },
    findAccount: createFindAccount(claimsDeps),
    extraTokenClaims: createExtraTokenClaims(claimsDeps),
    // a grant is reused without the consent page only while the account may still use its site
    loadExistingGrant: createLoadExistingGrant(claimsDeps),
    issueRefreshToken,
    // asked before a refresh consumes its token: what would refuse it after the rotation
    // (the account's site, the resource, the scope) is checked first
    rotateRefreshToken: async (ctx: KoaContextWithOIDC) => {
      await checkSiteBeforeRotation(ctx);
      await checkTargetBeforeRotation(ctx);
      return rotateRefreshToken();
    },
    expiresWithSession,
    ttl: providerTtl(ttl),
    interactions: {
      policy: interactionRules(options, deps.ownPageSignIns),
      url: (_ctx, interaction) => interactionPath(interaction.uid),
    },
    // subjects are public only: a sector identifier is refused in dynamic clients' metadata
    // (lib/policies/client-metadata.ts) and never fetched, whatever a stored client holds
    sectorIdentifierUriValidate: () => false,
    extraClientMetadata: {
      properties: [...EXTRA_CLIENT_METADATA],
      validator: (ctx, key, value, metadata) => {
        checkRegistrationLimits(ctx, key, metadata as Record<string, unknown>);
        validateClientMetadata(ctx, key, value, metadata as Record<string, unknown>);
      },
    },
    renderError: createProviderErrorRenderer(options.pages, options.logger),
  };
}

/**
 * oidc-provider's `claims`: the scopes' (lib/claims.ts), and with `openid` the sign-in's
 * methods (`amr`: the library's page says `pwd`, a host's sign-in what it names) and, when the
 * host lists `acrValues`, its context class (`acr`). Top-level claims reach an ID token only
 * when a request asks for them (`acr_values`, `claims`); with `openid` every ID token whose
 * sign-in has them carries them, as `HostSignIn` says. UserInfo (lib/resource/userinfo.ts)
 * answers the scopes' claims only.
 */
function providerClaims(acrValues: readonly string[]): Record<string, string[]> {
  const signIn = ['amr', ...(acrValues.length > 0 ? ['acr'] : [])];
  return Object.fromEntries(Object.entries(SCOPE_CLAIMS).map(([scope, claims]) => [scope, scope === 'openid' ? [...claims, ...signIn] : [...claims]]));
}

/** oidc-provider's prompts, plus the library's rules: no request without scope; the session follows the host's. */
function interactionRules(options: ResolvedOptions, ownPageSignIns: OwnPageSignIns | undefined) {
  const policy = interactionPolicy.base();
  const login = policy.get('login')!;
  login.checks.add(scopeRequiredCheck((client) => scopeAllowance(client, options.clientIdMetadataDocuments)), 0);
  if (options.signIn.session) login.checks.add(hostSessionCheck(options.signIn.session as unknown as HostSessionLookup, ownPageSignIns));
  return policy;
}
