/**
 * The composition root: options → provider configuration → provider + routers.
 *
 * @module
 */
import { Router } from '@koa/router';
import type { Middleware } from 'koa';
import Provider from 'oidc-provider';

import { createSignInFlow } from '../interactions/host-sign-in.ts';
import { createInteractionRouter, interactionMethods } from '../interactions/router.ts';
import { createAccountApi } from './account-api/index.ts';
import { createConnectedApps } from './connected-apps/manager.ts';
import type { ConnectedApps } from './connected-apps/manager.ts';
import { createDocsRouter } from './docs/index.ts';
import { createProviderErrorRenderer } from './pages/error-page.ts';
import { createPageRenderer } from './pages/renderer.ts';
import type { InteractionsApi } from './pages/sign-in.ts';
import { createMcpEndpoint } from './mcp/index.ts';
import type { PlatformAuthOptions, ResolvedOptions } from './config/options.ts';
import { validateOptions } from './config/validate.ts';
import { checkStaticClients } from './config/static-clients.ts';
import { ENDPOINTS } from './endpoints.ts';
import { createDiagnostics } from './events/index.ts';
import type { PlatformAuthEvents, TraceEntry, TracedClient } from './events/index.ts';
import { answeredBy, isServed, ownPathMatcher, ROUTER_MATCHING, servedEndpoints } from './served-endpoints.ts';
import { checkingMethods, methodsByPath } from './http/allowed-methods.ts';
import { createMountOrderGuard, createRouterMountCheck, withRouterMountChecks } from './http/mount-order.ts';
import { mountedAlone } from './http/mounted-alone.ts';
import { createClientAddresses } from './http/client-address.ts';
import { createSignInThrottle } from './http/sign-in-throttle.ts';
import type { SignInThrottle } from './http/sign-in-throttle.ts';
import { GrantContextStore } from './grant-context.ts';
import { createMemberClientManager } from './member-clients/manager.ts';
import type { MemberClientManager } from './member-clients/manager.ts';
import { limitAuthorizationRequests } from './provider/authorization-rate.ts';
import { buildConfiguration } from './provider/configuration.ts';
import { dispatchToProvider } from './provider/dispatch.ts';
import { dropUngrantableIdentityScopes } from './provider/identity-scopes.ts';
import { openRegistrationLimits } from './registration/open.ts';
import { restrictedRegistration } from './registration/restricted.ts';
import { afterProviderAnswer } from './provider/after-answer.ts';
import { applyAnswerRules } from './provider/answer-rules.ts';
import { logProviderErrors } from './provider/error-log.ts';
import { skipWithheldIdTokens } from './provider/id-token-issuance.ts';
import { revokeTokensWithTheirGrant } from './provider/revoked-with-grant.ts';
import { writeRotatedSessionsFirst } from './provider/session-rotation.ts';
import { createKnownDocuments, markKnownOnIssuance } from './cimd/known-documents.ts';
import { createPageRequests } from './cimd/page-requests.ts';
import { registrationRefusalCode } from './policies/client-metadata.ts';
import { CodeExchanges } from './policies/code-replay.ts';
import { OPEN_CORS, openCors } from './policies/cors.ts';
import { createDiscoveryCache } from './policies/discovery-cache.ts';
import { onlyIssuedClaims } from './policies/discovery.ts';
import { idTokenAnswerRules, withholdsIdToken } from './policies/id-tokens.ts';
import { OwnPageSignIns, ownPageSignInNotes } from './policies/host-session.ts';
import { noIdTokenOnRefresh } from './policies/refresh.ts';
import { revokeMissedReuse } from './policies/refresh-grace.ts';
import { withholdErrorRedirects } from './policies/redirect-trust.ts';
import { scopeAllowance } from './policies/scope-allowance.ts';
import { BearerVerifier } from './resource/bearer.ts';
import { protectedResourceMetadata, resourceMetadataUrl } from './resource/metadata.ts';
import { catchBearerErrors, createBearerAuthenticator, createRequireBearer } from './resource/require-bearer.ts';
import type { RequireBearerOptions } from './resource/require-bearer.ts';
import { readUserinfoForm, userinfoHandler } from './resource/userinfo.ts';
import { GrantIndex, withGrantIndex } from './storage/grant-index.ts';
import { providerStorageOutageGuard, storageOutageGuard } from './storage/outage.ts';
import type { ProviderEvents } from './storage/outage.ts';

export interface PlatformAuth {
  /** the configured oidc-provider instance */
  readonly provider: Provider;
  readonly options: ResolvedOptions;
  /** the bearer-token core, for non-Koa callers */
  readonly bearer: BearerVerifier;
  /** Everything, in the right order: mount with `app.use(auth.routes())`, before any body parser. */
  routes(): Middleware;
  /**
   * The pieces of `routes()`, for hosts that mount them separately, in the order `routes()`
   * runs them (resource, interactions, accountApi, mcp, docs, registration, provider). Each
   * keeps on its own paths what `routes()` applies in front of it: a body taken by a parser
   * or stream reader in front is refused, and a storage failure is the outage 503. Mount
   * each on the app: `router.use(piece)` is logged once, with the fix.
   */
  readonly middleware: {
    /** well-known protected-resource metadata and UserInfo */
    readonly resource: Middleware;
    /** sign-in and consent pages */
    readonly interactions: Middleware;
    /** the provider's own endpoints (discovery, authorize, token, revoke, introspect, JWKS) */
    readonly provider: Middleware;
    /** Variant A `POST /api/oauth/register`; undefined in Variant B (the provider answers) */
    readonly registration: Middleware | undefined;
    /** `POST /account/graphql`; undefined without `options.memberData` */
    readonly accountApi: Middleware | undefined;
    /** `/mcp`; undefined when `options.mcp` is `false` */
    readonly mcp: Middleware | undefined;
    /** `GET /openapi.json` and `GET /auth.md` */
    readonly docs: Middleware;
  };
  /** Member clients of a site, for the host's admin area ("Developers → OAuth applications"). */
  readonly memberClients: MemberClientManager;
  /**
   * The apps a member has authorized, and revoking one with every token of it, for the
   * host's own account pages (README "Connected apps").
   */
  readonly connectedApps: ConnectedApps;
  /**
   * Sign-in throttling for the host's own sign-in forms, with the counters of the library's
   * sign-in page (`options.signInThrottle`; README "Sign-in throttling").
   */
  readonly signInThrottle: SignInThrottle;
  /**
   * For a host's own sign-in page (`options.signIn.loginUrl`): the sign-in waiting in this
   * browser, and finishing or cancelling it (README "Sign-in options").
   */
  readonly interactions: InteractionsApi;
  /**
   * The library's events (README "Events"): `auth.events.on('access.refused', (event) => …)`,
   * or `'*'` for all of them.
   */
  readonly events: PlatformAuthEvents;
  /**
   * The trace of any client (vendor, registered, metadata-document or member), newest first:
   * its recent events in plain words with what to do (README "Trace"). For the platform's
   * staff: guard the route that calls it. Site operators use `auth.memberClients.trace()`.
   * `[]` with `trace: false`.
   */
  clientTrace(clientId: string): Promise<TraceEntry[]>;
  /**
   * The clients that have a trace, most recently traced first (the last 200), each with its
   * latest entry: the list of a staff view. `[]` with `trace: false`.
   */
  tracedClients(): Promise<TracedClient[]>;
  /** Koa guard for host routes: `auth.requireBearer({ scopes: ['courses:read'] })`. */
  requireBearer(options?: RequireBearerOptions): Middleware;
  /** Stops timers and closes storage the library created. */
  close(): Promise<void>;
}

export async function createPlatformAuth(input: PlatformAuthOptions): Promise<PlatformAuth> {
  const options = await validateOptions(input);
  warnAboutGeneratedSecrets(options);
  // events, the per-client trace, metrics and request ids (lib/events/)
  const diagnostics = createDiagnostics({ options, adapter: options.adapter, logger: options.logger, served: servedEndpoints(options) });

  const grantContexts = new GrantContextStore(options.adapter);
  // grants by account and their last use (lib/storage/grant-index.ts), kept by the provider's own storage calls
  const grantIndex = new GrantIndex(options.adapter, { grantSeconds: options.ttl.grant, logger: options.logger });
  // the configuration's hooks need the provider, which exists only once it is built from them
  const built: { provider?: Provider } = {};
  const current = () => built.provider!;
  const findClient = (id: string) => current().Client.find(id);
  const providerOptions = { ...options, adapter: withGrantIndex(options.adapter, grantIndex) };
  // with the host's session as sign-in: the sign-ins made on the library's page, which do not end with it (lib/policies/host-session.ts)
  const ownPageSignIns = options.signIn.session ? new OwnPageSignIns(options.adapter, options.ttl.session) : undefined;
  // document clients issued tokens within their lifetimes: their re-fetches spend no host budget
  const knownDocuments = createKnownDocuments(options.adapter, Math.max(options.ttl.grant, options.ttl.refreshToken));
  // a code exchange answered 503 gives its code back, so the client's retry is no replay
  const codeExchanges = new CodeExchanges();
  // the pages' client lookups, made in the host app, charged to their callers by the fetch guard
  const pageRequests = createPageRequests();
  // the client's address for the limits counted by it, one warning per instance when proxy
  // headers arrive without options.proxy (lib/http/client-address.ts)
  const addresses = createClientAddresses({ proxy: options.proxy, proxyHops: options.proxyHops, logger: options.logger });
  const provider = new Provider(options.issuer, buildConfiguration(providerOptions, {
    grantContexts, findClient, provider: current, ownPageSignIns, knownDocuments, codeExchanges, pageRequests, addresses,
  }));
  built.provider = provider;
  // static clients built now, not at their first sign-in: metadata the provider refuses fails start-up
  await checkStaticClients(provider, options.clients);
  // the provider reads the scheme and host only from the X-Forwarded-* headers the host pin
  // sets from baseUrl on every request it is handed (lib/policies/host-pinning.ts), never the
  // client's; its ctx.ip is read by nothing here (client addresses follow options.proxy)
  provider.proxy = true;
  logProviderErrors(provider, options.logger);
  skipWithheldIdTokens(provider, withholdsIdToken(options.idTokens));
  // a rotated session id: the new record first, so a storage fault signs nobody out; the note
  // of a sign-in on the library's page before either
  writeRotatedSessionsFirst(provider, ownPageSignIns && ownPageSignInNotes(ownPageSignIns));
  // a revoked token goes with its grant, so a revocation cut by a fault is retried, not lost
  revokeTokensWithTheirGrant(provider);
  markKnownOnIssuance(provider, knownDocuments);
  diagnostics.attach(provider);
  const discovery = createDiscoveryCache(options.baseUrl);
  // the library's pages: language, brand, templates (the authorization rate's 429 page, the interactions)
  const pages = createPageRenderer(options.pages, options.logger);
  // outermost: a storage failure anywhere below, the steps on the answer included, is a 503;
  // the policies' work on each answer, in this order, run by it (lib/provider/after-answer.ts)
  provider.use(providerStorageOutageGuard(options.logger, afterProviderAnswer([
    // RFC 9700 §4.11.2: no error redirect to a self-registered client before the user has acted
    withholdErrorRedirects(provider, {
      configuredClients: new Set(options.clients.map((c) => c.client_id)), isReviewed: options.clientIdMetadataDocuments.isReviewed,
    }, createProviderErrorRenderer(options.pages, options.logger)),
    applyAnswerRules([noIdTokenOnRefresh, registrationRefusalCode, onlyIssuedClaims, ...idTokenAnswerRules(options.idTokens)]),
    revokeMissedReuse(current, options.adapter, diagnostics.missedRefreshReuse),
    codeExchanges.afterAnswer,
    discovery.keep,
  ]), provider as unknown as ProviderEvents,
  // before the provider reads an authorization request: what one address can make it store
  options.authorizationRateLimit ? limitAuthorizationRequests({ adapter: options.adapter, settings: options.authorizationRateLimit, addresses, pages }) : undefined));
  if (answeredBy('registration', options) === 'provider') {
    // Variant B: body size and per-address rate, before the provider reads the body
    provider.use(openRegistrationLimits({ adapter: options.adapter, rateLimit: options.registration.rateLimit, addresses }));
  }

  const metadataUrl = resourceMetadataUrl(options.baseUrl);
  const bearer = new BearerVerifier(provider, options.baseUrl);
  const requireBearer = createRequireBearer(createBearerAuthenticator(bearer, metadataUrl));

  const resourceRouter = new Router(ROUTER_MATCHING);
  const metadata = JSON.stringify(protectedResourceMetadata(options.baseUrl, options.docs.authMd !== false));
  const serveMetadata = function protectedResource(ctx: Parameters<Middleware>[0]) {
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.type = 'json';
    ctx.body = metadata;
  };
  // Only at the root: its `resource` is the origin, which RFC 9728 §3.3 allows at no other
  // address; MCP clients fall back to it from the path-aware URL of /mcp (README, MCP → Discovery)
  const metadataCors = openCors(OPEN_CORS.protectedResourceMetadata);
  resourceRouter.get(ENDPOINTS.protectedResourceMetadata.path, metadataCors, serveMetadata);
  resourceRouter.options(ENDPOINTS.protectedResourceMetadata.path, metadataCors);
  const userinfoCors = openCors(OPEN_CORS.userinfo);
  const userinfo = [userinfoCors, catchBearerErrors(metadataUrl), readUserinfoForm(), requireBearer(), userinfoHandler(options.accounts)];
  resourceRouter.get(ENDPOINTS.userinfo.path, ...userinfo);
  resourceRouter.post(ENDPOINTS.userinfo.path, ...userinfo);
  resourceRouter.options(ENDPOINTS.userinfo.path, userinfoCors);

  const resourceMethods = methodsByPath([ENDPOINTS.protectedResourceMetadata, ENDPOINTS.userinfo]);

  const memberClients = createMemberClientManager({
    provider,
    adapter: options.adapter,
    betaEnabled: options.betaEnabled,
    maxPerSite: options.memberClientsPerSite,
    siteExists: async (site) => (await options.sites.findById(site)) !== undefined,
    readTrace: diagnostics.readTrace,
  });
  const connectedApps = createConnectedApps({ provider, index: grantIndex, grantContexts, sites: options.sites });
  const signInThrottle = createSignInThrottle({
    adapter: options.adapter, settings: options.signInThrottle, addresses,
  });
  const trust = {
    staticClients: new Set(options.clients.map((c) => c.client_id)),
    vendors: new Set(options.registration.vendors.values()),
    isReviewed: options.clientIdMetadataDocuments.isReviewed,
  };
  const signIn = createSignInFlow({ provider, options, ownPageSignIns, pages, trust, pageRequests });
  const interactions = createInteractionRouter({ provider, options, grantContexts, signInThrottle, signIn, pages, trust, pageRequests });

  const accountApi = isServed('accountApi', options) && options.memberData && createAccountApi({ // `&& options.memberData` decides nothing (isServed did); it narrows `dataSource` for TypeScript
    bearer,
    accounts: options.accounts,
    resourceMetadata: metadataUrl,
    dataSource: options.memberData,
    options: options.accountApi,
    production: options.production,
    logger: options.logger,
  });

  const mcp = isServed('mcp', options)
    ? createMcpEndpoint({
      baseUrl: options.baseUrl,
      bearer,
      accounts: options.accounts,
      resourceMetadata: metadataUrl,
      dataSource: options.memberData,
      options: options.mcp,
      proxy: options.proxy,
      proxyHops: options.proxyHops,
      logger: options.logger,
    })
    : undefined;
  const docs = createDocsRouter({ options });

  // a host body parser in front: one configuration error, logged once, for routes() and every piece alike
  const refuseMisMounted = createMountOrderGuard(options.logger);
  const pieces = {
    resource: checkingMethods((path) => resourceMethods.get(path), resourceRouter.routes() as Middleware),
    interactions: checkingMethods(interactionMethods, interactions.routes() as Middleware),
    registration: answeredBy('registration', options) === 'platform'
      ? restrictedRegistration(provider, options.registration.vendors)
      : undefined,
    // what the protected-resource metadata advertises, every client can ask for (lib/provider/identity-scopes.ts)
    provider: dispatchToProvider(provider, options, discovery, dropUngrantableIdentityScopes(async (clientId) => {
      const client = await findClient(clientId);
      return client && scopeAllowance(client, options.clientIdMetadataDocuments);
    }), refuseMisMounted),
    accountApi: accountApi || undefined,
    mcp,
    docs,
  };
  const outage = storageOutageGuard(options.logger);
  // mounted on its own, a piece keeps on its paths what routes() applies in front of the
  // chain (lib/http/mounted-alone.ts); the provider piece answers both itself, the documents
  // need neither; each gives a request its id and the diagnostics
  const rules = { outage, refuseMisMounted };
  const alone = (piece: Middleware, owns: (path: string) => boolean) => mountedAlone(piece, owns, rules);
  // and each notices router.use(piece), as routes() notices router.use(auth.routes())
  const middleware = withRouterMountChecks(diagnostics.observeEach({
    resource: alone(pieces.resource, (path) => resourceMethods.has(path)),
    interactions: alone(pieces.interactions, (path) => interactionMethods(path) !== undefined),
    registration: pieces.registration && alone(pieces.registration, (path) => path === ENDPOINTS.registration.path),
    provider: pieces.provider,
    accountApi: pieces.accountApi && alone(pieces.accountApi, (path) => path === ENDPOINTS.accountApi.path),
    mcp: pieces.mcp && alone(pieces.mcp, (path) => path === ENDPOINTS.mcp.path),
    docs: pieces.docs,
  }), options.logger);

  const chain = [
    outage,
    pieces.resource,
    pieces.interactions,
    ...(pieces.accountApi ? [pieces.accountApi] : []),
    ...(pieces.mcp ? [pieces.mcp] : []),
    pieces.docs,
    ...(pieces.registration ? [pieces.registration] : []),
    pieces.provider,
  ];
  const afterPages = chain.indexOf(pieces.interactions) + 1;
  const providerDispatch = pieces.provider;
  const ownsPath = ownPathMatcher(options);
  const checkRouterMount = createRouterMountCheck(options.logger);
  const routes: Middleware = diagnostics.observed(function platformAuth(ctx, next) {
    // routed here by a @koa/router router: perhaps router.use(auth.routes()), logged once
    if ((ctx as { router?: unknown }).router !== undefined) checkRouterMount(ctx, routes);
    // the host's own routes skip the routers (no piece answers a path outside the endpoint
    // table) but keep the outage guard, which answers their storage failures 503 too
    const { path } = ctx; // parsed from the URL once, not at each test below
    if (!ownsPath(path)) return outage(ctx, next);
    // the provider's paths and /mcp skip the routers in between: they never answer those paths.
    // The provider's paths skip the outage guard too: the provider answers for itself, its own
    // guard (providerStorageOutageGuard) answers its 503s, and nothing of it is thrown out here.
    // The provider piece refuses a body a host parser read first itself (refuseMisMounted)
    if (providerDispatch.handles(path)) return providerDispatch(ctx, next);
    if (refuseMisMounted(ctx)) return Promise.resolve();
    if (pieces.mcp && path === ENDPOINTS.mcp.path) return outage(ctx, () => pieces.mcp!(ctx, next));
    // each piece either answers or calls the next; the last hands over to the host app
    const run = (i: number): Promise<void> => (i < chain.length ? Promise.resolve(chain[i]!(ctx, () => run(i + 1))) : next());
    // the pages' paths skip the resource router, whose paths they never are: four requests
    // of every login flow (a page that calls next goes on to the pieces after the pages)
    if (interactionMethods(path) !== undefined) return outage(ctx, () => pieces.interactions(ctx, () => run(afterPages)));
    return run(0);
  });

  return Object.freeze({
    provider,
    options,
    bearer,
    routes: () => routes,
    middleware,
    memberClients,
    connectedApps,
    signInThrottle,
    interactions: signIn.api,
    requireBearer,
    events: diagnostics.events,
    clientTrace: (clientId: string) => diagnostics.readTrace(clientId),
    tracedClients: () => diagnostics.tracedClients(),
    async close() {
      await diagnostics.close();
      const adapter = options.adapter as { close?: () => Promise<void> };
      if (options.ownsAdapter && typeof adapter.close === 'function') await adapter.close();
    },
  });
}

function warnAboutGeneratedSecrets(options: ResolvedOptions): void {
  if (options.generated.includes('jwks')) {
    options.logger.warn('platform-auth: options.jwks is not set; an ephemeral ES256 signing key was generated. ID tokens will not verify after a restart or on another instance. Set options.jwks in production.');
  }
  if (options.generated.includes('cookieKeys')) {
    options.logger.warn('platform-auth: options.cookieKeys is not set; random cookie keys were generated. Sign-in sessions end on restart and are not shared between instances. Set options.cookieKeys in production.');
  }
}
