/**
 * platform-auth: the OAuth 2.0 / OpenID Connect surface of a course-hosting service,
 * built on oidc-provider.
 *
 * @example
 * ```ts
 * import Koa from 'koa';
 * import { createPlatformAuth } from 'platform-auth';
 *
 * const auth = await createPlatformAuth({ baseUrl: 'https://learn.example.com', accounts, jwks, cookieKeys });
 * const app = new Koa();
 * app.use(auth.routes());
 * ```
 *
 * @module
 */
export { createPlatformAuth } from './platform-auth.ts';
export type { PlatformAuth } from './platform-auth.ts';
export type { AuthorizationRateLimitOptions, ClientIdMetadataDocumentOptions, MemberClientOptions, MetadataDocumentFetch, MetadataDocumentFetchBudget, PlatformAuthOptions, RefreshTokenRateLimitOptions, RegistrationOptions, RegistrationRateLimitOptions, ResolvedOptions, SignInThrottleOptions, StaticClient, TokenLifetimes, VendorIntegration } from './config/options.ts';
// types the options table names (README "Options"): a host types its settings and secrets with them
export type { JWKS } from 'oidc-provider';
export type { AccountApiOptions } from './account-api/options.ts';
export type { LimitRow } from './docs/options.ts';
// the member-data service the Account API and the MCP member tools share (README "The data source (`options.memberData`)")
export { createMemberDataService } from './member-data/service.ts';
export type {
  EnrolledCourse, EnrolledCourseWithProgress, EventRegistration, EventSummary, LectureProgress, MemberAccount, MemberDataService,
  MemberDataServiceOptions, MemberIdentity, MemberProfile, Order, OrderItem,
} from './member-data/service.ts';
// the contracts a host implements (lib/contracts.ts)
export type {
  Account, AccountStore, CourseOutlineRecord, EnrolmentRecord, EventRecord, EventRegistrationRecord, Instant,
  LectureProgressRecord, Logger, MemberDataSource, MemberRecord, MemberRef, MoneyRecord, OrderItemKind, OrderItemRecord,
  OrderRecord, OrderStatus, OutlineLectureRecord, OutlineSectionRecord, PageRequest, PageResult, PublicCatalogueSource,
  PublicCourseRecord, RegistrationStatus, SignInContext, Site, SiteStore,
} from './contracts.ts';
// sign-in by the host, and the pages' look, languages and templates (README "Sign-in options", "Branding & languages")
export type { HostSignIn, SignInRequest, SiteBranding } from './contracts.ts';
export type { BrandOptions, HostSessionResolver, PagesOptions, SignInOptions } from './pages/options.ts';
export type { ExpectedSignIn, InteractionsApi, PendingSignIn } from './pages/sign-in.ts';
export { DEFAULT_TEMPLATES } from './pages/templates.ts';
export type {
  ClientTrust, ClientTrustKind, ClientView, ConsentPageData, LoginPageData, NoticePageData, PageTemplate, PageTemplates, SiteView, TemplateKit,
} from './pages/templates.ts';
export type { PageBrand } from './pages/branding.ts';
export type { Locale, MessageKey } from './pages/messages/index.ts';
export type { SignInAttempt, SignInThrottle } from './http/sign-in-throttle.ts';
// diagnostics: events, the per-client trace, metrics (README "Events", "Trace", "Metrics")
export { EVENT_NAMES } from './events/types.ts';
export type {
  AccessRefusalReason, EventBase, EventListener, EventName, MetadataDocumentFailure, PlatformAuthEvent, PlatformAuthEventMap,
  ResourceEndpoint,
} from './events/types.ts';
export type { PlatformAuthEvents } from './events/hub.ts';
export type { MetricsOptions, TraceOptions } from './events/options.ts';
export type { TraceEntry } from './trace/entry.ts';
export type { TracedClient } from './trace/store.ts';
export type { TraceOutcome } from './trace/explain.ts';
export { METRICS } from './metrics/instruments.ts';
export type { ConnectedApp, ConnectedApps, ConnectedAppTarget, ConnectedGrant } from './connected-apps/manager.ts';
export type {
  IssuedMemberClient, MemberClient, MemberClientInput, MemberClientManager,
} from './member-clients/manager.ts';
export {
  PlatformAuthError, InvalidTokenError, AuthenticationRequiredError, InsufficientScopeError, InvalidRequestError,
  TemporarilyUnavailableError, ConfigurationError, MemberClientError,
} from './errors.ts';
export type { PlatformAuthErrorCode } from './errors.ts';
/** the sites where an account holds an operator role (for a host's admin area) */
export { operatorSites } from './policies/audience.ts';
export { SCOPES, SCOPE_NAMES, IDENTITY_SCOPES, scopesForAudience, findScope } from './scopes/catalogue.ts';
export type { Audience, ScopeAccess, ScopeDefinition } from './scopes/catalogue.ts';
export { ENDPOINTS } from './endpoints.ts';
export { CsrfTokens, createNonce, escapeHtml, html, noticePage, page, setPageHeaders, writeNoticePage } from './pages/index.ts';
export type { Html, NoticeView } from './pages/index.ts';
export { describeBearerRoute } from './docs/index.ts';
export { defineMcpTool, McpToolError } from './mcp/index.ts';
export type {
  AnyMcpTool, McpCaller, McpInputSchema, McpOptions, McpTool, McpToolAudience, McpToolContext, McpToolResult,
} from './mcp/index.ts';
export type {
  AuthMdOptions, BearerRouteDescription, DocsOptions, OpenApiDocument, OpenApiOptions, OpenApiPaths,
} from './docs/index.ts';
export type { EndpointDefinition, EndpointId } from './endpoints.ts';
export { BearerVerifier, extractBearerToken, toScopes } from './resource/bearer.ts';
export type { BearerAuth, Scopes, VerifyOptions } from './resource/bearer.ts';
export type { RequireBearerOptions, BearerState } from './resource/require-bearer.ts';
export { createMemoryAdapter } from '../adapters/memory.ts';
export { REFRESH_USE_MODEL, StorageUnavailableError } from '../adapters/types.ts';
export type {
  AdapterFactory, CappedList, ClosableAdapterFactory, CompareAndSet, ConsumeAndKeep, LatestByMember, LatestEntry,
  PutRecords, RecordWrite, SynchronousWrites,
} from '../adapters/types.ts';
