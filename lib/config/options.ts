/**
 * The options `createPlatformAuth` accepts, and what they resolve to. Checks live in
 * ./validate.ts (and each feature's own `options.ts`).
 *
 * Every field's TSDoc has a `@default`. A default that is a value is written once, in a
 * constant the validator reads, and the TSDoc points at it: `@default {@link NAME}` for the
 * whole constant, `@default {@link NAME}.a.b` for a property of it. A default that is a
 * behaviour ("an ephemeral key generated at start-up") is prose. The README options table is
 * generated from these declarations by `scripts/options-table.ts`, which resolves the links
 * to the constants' values.
 *
 * @module
 */
import type { ClientMetadata, JWKS } from 'oidc-provider';

import type { AdapterFactory } from '../../adapters/types.ts';
import type { AccountApiOptions, ResolvedAccountApiOptions } from '../account-api/options.ts';
import { DEFAULT_TTL } from '../constants.ts';
import type {
  AccountStore, Logger, MemberDataSource, SiteStore,
} from '../contracts.ts';
import type { FetchBudgetSettings } from '../cimd/budget.ts';
import type { DocsOptions, ResolvedDocsOptions } from '../docs/options.ts';
import type { MetricsOptions, ResolvedMetricsOptions, ResolvedTraceOptions, TraceOptions } from '../events/options.ts';
import type { McpOptions, ResolvedMcpOptions } from '../mcp/options.ts';
import type { PagesOptions, ResolvedPagesOptions, ResolvedSignInOptions, SignInOptions } from '../pages/options.ts';
import type { AddressRateSettings } from '../policies/address-rate.ts';
import type { RefreshRateSettings } from '../policies/refresh-rate.ts';
import type { RegistrationRateSettings } from '../policies/registration-limits.ts';
import type { SignInThrottleSettings } from '../policies/sign-in-throttle.ts';
import type { Audience } from '../scopes/catalogue.ts';

/**
 * What the options of {@link PlatformAuthOptions} are when left out, in the shape of the
 * options (`client` is each entry of `clients`). The one place these defaults are written:
 * the validator reads them, the TSDoc below and the README table point here. Token
 * lifetimes default to {@link DEFAULT_TTL}; `ttl` holds their bounds.
 */
export const OPTION_DEFAULTS = Object.freeze({
  clients: Object.freeze([]) as readonly StaticClient[],
  client: Object.freeze({ audience: 'operator' as Audience }),
  idTokens: true,
  events: true,
  operatorRoles: Object.freeze(['owner', 'admin']) as readonly string[],
  // Upper bounds catch a lifetime written in milliseconds (60000 for a 60 s code) and keep
  // every expiry a date (a `new Date(exp * 1000)` of 9e12 s throws). Each is well above
  // what a deployment needs; every default is inside.
  ttl: Object.freeze({
    // a bearer token works for whoever holds it until it expires: longer use is what refresh
    // tokens are for
    accessToken: Object.freeze({ min: 1, max: 86_400, default: DEFAULT_TTL.accessToken, unit: 'seconds' }),
    refreshToken: Object.freeze({ min: 1, max: 365 * 86_400, default: DEFAULT_TTL.refreshToken, unit: 'seconds' }),
    // RFC 6749 §4.1.2: "A maximum authorization code lifetime of 10 minutes is RECOMMENDED"
    authorizationCode: Object.freeze({ min: 1, max: 600, default: DEFAULT_TTL.authorizationCode, unit: 'seconds' }),
    // a sign-in or consent page left open for longer starts again
    interaction: Object.freeze({ min: 1, max: 86_400, default: DEFAULT_TTL.interaction, unit: 'seconds' }),
    session: Object.freeze({ min: 1, max: 365 * 86_400, default: DEFAULT_TTL.session, unit: 'seconds' }),
    grant: Object.freeze({ min: 1, max: 365 * 86_400, default: DEFAULT_TTL.grant, unit: 'seconds' }),
  }),
  introspectionClients: Object.freeze([]) as readonly string[],
  proxy: false,
  // one proxy (a load balancer) in front: it appends the client's address to X-Forwarded-For
  proxyHops: Object.freeze({ min: 1, max: 10, default: 1 }),
  signInThrottle: Object.freeze({
    accountFailures: Object.freeze({ min: 1, max: 1000, default: 5 }),
    // higher than per account: many people share one address (a school network behind NAT)
    ipFailures: Object.freeze({ min: 1, max: 100_000, default: 50 }),
    windowSeconds: Object.freeze({ min: 1, max: 86_400, default: 900, unit: 'seconds' }),
    maxDelaySeconds: Object.freeze({ min: 1, max: 86_400, default: 900, unit: 'seconds' }),
  }),
  // a burst of 600 authorization requests per address (a school signing in at once behind
  // one NAT), then two a second; a request over 2 KiB counts once per started 2 KiB, so what
  // one address keeps stored as Interaction records stays in the tens of megabytes
  authorizationRateLimit: Object.freeze({
    perIp: Object.freeze({ min: 1, max: 1_000_000, default: 600 }),
    windowSeconds: Object.freeze({ min: 1, max: 86_400, default: 300, unit: 'seconds' }),
  }),
  // covers a Retry-After of 5 s and a Redis Cluster failover (node timeout + election)
  refreshTokenGrace: Object.freeze({ min: 0, max: 300, default: 30, unit: 'seconds' }),
  // a burst of 60 refreshes per grant, then one a minute: a client refreshes once per access
  // token (an hour), so this is dozens of times what one needs, and a loop keeps a bounded
  // number of tokens stored (each one two weeks) instead of a kilobyte per request
  refreshTokenRateLimit: Object.freeze({
    perGrant: Object.freeze({ min: 1, max: 1_000_000, default: 60 }),
    windowSeconds: Object.freeze({ min: 1, max: 86_400, default: 3600, unit: 'seconds' }),
  }),
  registration: Object.freeze({
    variant: 'restricted' as NonNullable<RegistrationOptions['variant']>,
    vendors: Object.freeze([]) as readonly VendorIntegration[],
    // a burst of 30 registrations per address, then one every 2 minutes: a person registers
    // a client once per installation, and a staff room behind one NAT stays well inside it
    rateLimit: Object.freeze({
      perIp: Object.freeze({ min: 1, max: 100_000, default: 30 }),
      windowSeconds: Object.freeze({ min: 1, max: 86_400, default: 3600, unit: 'seconds' }),
    }),
    // longer than a grant (14 days), so a client used every other week never expires
    unusedClientExpiry: Object.freeze({ min: 1, max: 365 * 86_400, default: 30 * 86_400, unit: 'seconds' }),
  }),
  // a school has a handful of integrations; each create rewrites the site's list (one record)
  memberClients: Object.freeze({
    maxPerSite: Object.freeze({ min: 1, max: 10_000, default: 100 }),
  }),
  clientIdMetadataDocuments: Object.freeze({
    allowedHosts: Object.freeze([]) as readonly string[],
    fetchBudget: Object.freeze({
      // distinct documents on one host are few (usually one per client); one a second at most
      // also caps what this service sends to any host, so it cannot be turned on a third party
      perHost: Object.freeze({ min: 1, max: 100_000, default: 60 }),
      // a fetch happens only when no instance has the document cached: people behind one
      // address (a school network) or a developer trying documents stay well under it, a
      // scan of hosts or ports does not
      perCaller: Object.freeze({ min: 1, max: 100_000, default: 30 }),
      windowSeconds: Object.freeze({ min: 1, max: 86_400, default: 60, unit: 'seconds' }),
    }),
    // oidc-provider's lower bound for caching a document
    failureCacheSeconds: Object.freeze({ min: 1, max: 3600, default: 30, unit: 'seconds' }),
  }),
});

/** A client known at start-up: oidc-provider client metadata plus its audience. */
export interface StaticClient extends ClientMetadata {
  /**
   * Who the client acts for.
   * @default {@link OPTION_DEFAULTS}.client.audience
   */
  audience?: Audience;
  /** The site a member client belongs to; required when `audience` is `member`. */
  org_id?: string;
}

/** A vendor platform that Variant A registration hands out (spec §4, Registration). */
export interface VendorIntegration {
  /** a client in `options.clients` (operator audience) */
  clientId: string;
  /**
   * The `client_name` values that name this platform; matched case- and
   * whitespace-insensitively.
   * @default [the client's client_name]
   */
  names?: string[];
}

/**
 * `POST /api/oauth/register`. `restricted` (Variant A) hands out the client_id of a known
 * vendor platform by its `client_name` and registers nothing; `open` (Variant B) is RFC 7591
 * dynamic registration of operator clients through oidc-provider.
 */
export interface RegistrationOptions {
  /**
   * `restricted` (Variant A) or `open` (Variant B).
   * @default {@link OPTION_DEFAULTS}.registration.variant
   */
  variant?: 'restricted' | 'open';
  /**
   * Variant A's vendor platforms: static operator clients (`options.clients`) handed out by
   * their `client_name`.
   * @default {@link OPTION_DEFAULTS}.registration.vendors
   */
  vendors?: VendorIntegration[];
  /**
   * Variant B: registrations per client address (IPv6: per /64, found as `proxy` and
   * `proxyHops` say), shared by every instance through the adapter; the excess is answered
   * 429 `temporarily_unavailable` with `Retry-After`. `false` turns it off. Ignored with
   * `restricted`, which registers nothing.
   */
  rateLimit?: RegistrationRateLimitOptions | false;
  /**
   * Variant B: seconds after which a client that registered itself and has had no grant
   * created or used since (a consent, a token issued) is deleted, its record reclaimed by the
   * storage's own expiry. `false`: registered clients never expire. Static, vendor, member and
   * metadata-document clients never expire this way. Ignored with `restricted`.
   * @default {@link OPTION_DEFAULTS}.registration.unusedClientExpiry.default
   */
  unusedClientExpiry?: number | false;
}

/**
 * The registration rate of one client address (lib/policies/registration-limits.ts): `perIp`
 * registrations at once, then one every `windowSeconds / perIp` seconds (a bucket of `perIp`,
 * refilled at `perIp` per `windowSeconds`). Every request the limit lets through counts,
 * whether its metadata is then accepted or not.
 */
export interface RegistrationRateLimitOptions {
  /**
   * Registrations one address may make at once (the size of its bucket).
   * @default {@link OPTION_DEFAULTS}.registration.rateLimit.perIp.default
   */
  perIp?: number;
  /**
   * Seconds in which an address's used-up bucket fills again.
   * @default {@link OPTION_DEFAULTS}.registration.rateLimit.windowSeconds.default
   */
  windowSeconds?: number;
}

/** What a client ID metadata document fetch gets: oidc-provider's `init` (method, headers, its timeout `signal`). */
export type MetadataDocumentFetch = (url: string, init: RequestInit & { dispatcher?: unknown }) => Promise<Response>;

/** Client ID Metadata Documents: `client_id` as an https URL of the client's metadata. */
export interface ClientIdMetadataDocumentOptions {
  /**
   * Accept metadata documents at all.
   * @default true when registration is open or `allowedHosts` is not empty
   */
  enabled?: boolean;
  /**
   * Hosts (`app.example.com`, or `host:port`) whose documents are accepted, each by its full
   * name and port: an entry without a port is port 443 only, so list another port as
   * `host:port`. Wildcards (`*.example.com`) and domain suffixes (`.example.com`) are not
   * supported and are refused at start-up, so list each host. When registration is open,
   * every host is.
   * @default {@link OPTION_DEFAULTS}.clientIdMetadataDocuments.allowedHosts
   */
  allowedHosts?: string[];
  /**
   * The clients a site operator has reviewed. Until then a document's client may request
   * read scopes (`*:read`) and identity scopes only.
   * @default no client is reviewed
   */
  reviewed?: string[] | ((clientId: string) => boolean | Promise<boolean>);
  /**
   * Replaces the request that loads documents. **Tests only**: the replacement takes over
   * resolving and connecting, so it bypasses the check of the addresses a host resolves to
   * (names and literal addresses are still refused, and the budget still applies);
   * production refuses it.
   * @default the library's request: special-use addresses refused before connecting, the connection pinned to the checked address, oidc-provider's timeout and the document size limit
   */
  fetch?: MetadataDocumentFetch;
  /**
   * Fetch budgets, shared by every instance through the adapter: within each window, at
   * most `perHost` documents fetched from one host (any port) and at most `perCaller` fetches
   * triggered by one client address (IPv6: per /64; see `proxy` and `proxyHops` for how the
   * address is found). A document served from the cache costs nothing. Over budget, the
   * request that names the client is answered 429 `temporarily_unavailable` with
   * `Retry-After`. `false` turns the budgets off.
   */
  fetchBudget?: MetadataDocumentFetchBudget | false;
  /**
   * Seconds a failed fetch (network error, non-200 answer, oversized body) is remembered for
   * its URL, and a host refused for the special-use address it resolved to is remembered for
   * the host: asked again within that time, the remembered failure is the answer, without a
   * lookup, a connection or a charge to the budget.
   * @default {@link OPTION_DEFAULTS}.clientIdMetadataDocuments.failureCacheSeconds.default
   */
  failureCacheSeconds?: number;
}

/** `options.clientIdMetadataDocuments.fetchBudget`. */
export interface MetadataDocumentFetchBudget {
  /**
   * Documents fetched from one host (name or IP address, any port) per window.
   * @default {@link OPTION_DEFAULTS}.clientIdMetadataDocuments.fetchBudget.perHost.default
   */
  perHost?: number;
  /**
   * Document fetches triggered by one client address per window.
   * @default {@link OPTION_DEFAULTS}.clientIdMetadataDocuments.fetchBudget.perCaller.default
   */
  perCaller?: number;
  /**
   * The window, in seconds; a new one begins with the first fetch after it ends.
   * @default {@link OPTION_DEFAULTS}.clientIdMetadataDocuments.fetchBudget.windowSeconds.default
   */
  windowSeconds?: number;
}

/** The member clients a site operator creates ("Developers → OAuth applications"). */
export interface MemberClientOptions {
  /**
   * Whether a site has the "MCP connections" beta; creation is refused elsewhere.
   * @default no site
   */
  betaEnabled?: boolean | string[] | ((siteId: string) => boolean | Promise<boolean>);
  /**
   * How many member clients a site may have; `create` beyond it is refused (`access_denied`,
   * 403) until one is deleted. Each site's list is one record, read whole by `list` and
   * rewritten by every create and delete, so it is kept to what a school's integrations need.
   * @default {@link OPTION_DEFAULTS}.memberClients.maxPerSite.default
   */
  maxPerSite?: number;
}

/**
 * The refresh rate of one grant (lib/policies/refresh-rate.ts): a bucket of `perGrant`
 * refreshes, refilled at `perGrant` per `windowSeconds`.
 */
export interface RefreshTokenRateLimitOptions {
  /**
   * Refreshes one grant may make at once (the size of its bucket). Left out, it is 60, or
   * two per `ttl.accessToken` within `windowSeconds` when that is more (short access
   * tokens); given, it must be at least that.
   * @default {@link OPTION_DEFAULTS}.refreshTokenRateLimit.perGrant.default
   */
  perGrant?: number;
  /**
   * Seconds in which a grant's used-up bucket fills again.
   * @default {@link OPTION_DEFAULTS}.refreshTokenRateLimit.windowSeconds.default
   */
  windowSeconds?: number;
}

/**
 * The authorization-request rate of one client address (lib/policies/authorization-rate.ts):
 * a bucket of `perIp` units, refilled at `perIp` per `windowSeconds`. A request to the
 * authorization endpoint costs one unit per started 2 KiB of its URL (a real one costs one);
 * the resumption of a started flow costs nothing.
 */
export interface AuthorizationRateLimitOptions {
  /**
   * Units one address may spend at once (the size of its bucket): about that many
   * authorization requests in a burst.
   * @default {@link OPTION_DEFAULTS}.authorizationRateLimit.perIp.default
   */
  perIp?: number;
  /**
   * Seconds in which an address's used-up bucket fills again.
   * @default {@link OPTION_DEFAULTS}.authorizationRateLimit.windowSeconds.default
   */
  windowSeconds?: number;
}

/**
 * Sign-in throttling (lib/policies/sign-in-throttle.ts): after a few failed sign-ins per
 * account (email) or per client address, each further attempt must wait 1 s, 2 s, 4 s, … after
 * the last one, up to `maxDelaySeconds`; earlier attempts get a 429 page with `Retry-After`
 * and never reach `accounts.authenticate`. Shared by every instance through the adapter.
 */
export interface SignInThrottleOptions {
  /**
   * Failed sign-ins per account (the email as typed, case-insensitive, whether or not the
   * account exists) that cost nothing within the window; a successful sign-in forgets them.
   * @default {@link OPTION_DEFAULTS}.signInThrottle.accountFailures.default
   */
  accountFailures?: number;
  /**
   * Failed sign-ins per client address (IPv6: per /64) that cost nothing within the window,
   * whichever accounts they name; successes do not count. See `proxy` and `proxyHops` for how
   * the address is found.
   * @default {@link OPTION_DEFAULTS}.signInThrottle.ipFailures.default
   */
  ipFailures?: number;
  /**
   * Seconds after its wait ends (its last failure, plus the wait that failure earned) at which
   * an account or address is forgotten.
   * @default {@link OPTION_DEFAULTS}.signInThrottle.windowSeconds.default
   */
  windowSeconds?: number;
  /**
   * The longest wait between attempts, in seconds, once the free failures are used up.
   * @default {@link OPTION_DEFAULTS}.signInThrottle.maxDelaySeconds.default
   */
  maxDelaySeconds?: number;
}

/** The lifetimes `options.ttl` sets: exactly the keys of {@link DEFAULT_TTL}. */
export type LifetimeName = keyof typeof DEFAULT_TTL;

/**
 * Token and session lifetimes, in seconds; each a whole number within its bounds
 * ({@link OPTION_DEFAULTS}.ttl). The ID token's is fixed (`PROTOCOL.idTokenLifetime`).
 */
export interface TokenLifetimes {
  /**
   * An access token. It works for whoever holds it until it expires; refresh tokens are for
   * longer use.
   * @default {@link OPTION_DEFAULTS}.ttl.accessToken.default
   */
  accessToken?: number;
  /**
   * A refresh token; it is rotated on every use.
   * @default {@link OPTION_DEFAULTS}.ttl.refreshToken.default
   */
  refreshToken?: number;
  /**
   * An authorization code (single use); RFC 6749 §4.1.2 recommends at most 10 minutes.
   * @default {@link OPTION_DEFAULTS}.ttl.authorizationCode.default
   */
  authorizationCode?: number;
  /**
   * How long a sign-in/consent page stays valid.
   * @default {@link OPTION_DEFAULTS}.ttl.interaction.default
   */
  interaction?: number;
  /**
   * The browser sign-in session.
   * @default {@link OPTION_DEFAULTS}.ttl.session.default
   */
  session?: number;
  /**
   * A user's consent to a client. Its tokens end with it, so it is at least as long as
   * `accessToken` and `refreshToken` (refused at start-up otherwise).
   * @default {@link OPTION_DEFAULTS}.ttl.grant.default
   */
  grant?: number;
}

export interface PlatformAuthOptions {
  /**
   * The origin this service is reached at, e.g. `https://learn.example.com`. It is the
   * issuer, the resource indicator of every token, and the base of every endpoint.
   * `https` is required in production; in development `http` is accepted for localhost and
   * loopback only (e.g. `http://localhost:3000`).
   */
  baseUrl: string;
  /**
   * The host's accounts: sign-in and the claims of `sub`. `authenticate(email, password,
   * context)` (`context`: `{ ip, userAgent }`, a parameter implementations may leave out) and
   * `findById(id)`, both returning `Promise<Account | undefined>`, where `Account` is
   * `{ id, email, name, roles: { [siteId]: string[] } }`.
   */
  accounts: AccountStore;
  /**
   * The host's sites, to show their names on the consent page: `findById(id)` returning
   * `{ id, name }`.
   * @default each site is named by its id
   */
  sites?: SiteStore;
  /**
   * Clients known at start-up (for example the demo clients): oidc-provider client metadata
   * plus `audience` (`operator`, the default, or `member`) and, for member clients, `org_id`. Each is built
   * at start-up: metadata oidc-provider refuses, or a property it would ignore, fails
   * `createPlatformAuth`. In production a `client_secret` must be a long random secret (at
   * least 32 characters, not a shorter string repeated, at least 7 distinct characters):
   * wrong client secrets are not throttled.
   * @default {@link OPTION_DEFAULTS}.clients
   */
  clients?: StaticClient[];
  /**
   * Storage, an oidc-provider adapter factory (`createMemoryAdapter()` from
   * `adapters/memory`, `createRedisAdapter()` from `adapters/redis`). Required in production:
   * pass `createMemoryAdapter()` yourself for one instance that may lose its tokens and
   * sign-ins on restart.
   * @default a fresh in-memory store (development only: lost on restart, not shared)
   */
  adapter?: AdapterFactory;
  /**
   * The private signing keys (JWKS) for ID tokens; ES256 (`kty: "EC"`, `crv: "P-256"`)
   * with a `kid`. Required in production.
   * @default an ephemeral key generated at start-up (development only, with a warning)
   */
  jwks?: JWKS;
  /**
   * Secrets that sign the sign-in session cookies, newest first (rotate by prepending).
   * Each at least 32 characters; in production also all different, not a shorter string
   * repeated, and of at least 7 distinct characters (what `npx --no-install platform-auth keys`
   * prints always is). Required in production.
   * @default random keys generated at start-up (development only, with a warning)
   */
  cookieKeys?: string[];
  /**
   * Issue ID tokens. When `false`, discovery lists neither
   * `id_token_signing_alg_values_supported` nor `jwks_uri` (nor `auth_time`, `amr`, `acr` and
   * `iss` in `claims_supported`), the JWKS endpoint is not served, a Variant B registration
   * answer carries neither `id_token_signed_response_alg` nor `require_auth_time`, no
   * `id_token` is ever returned, and clients use UserInfo.
   * @default {@link OPTION_DEFAULTS}.idTokens
   */
  idTokens?: boolean;
  /**
   * The roles that make an account an operator of a site (may use operator clients for it).
   * @default {@link OPTION_DEFAULTS}.operatorRoles
   */
  operatorRoles?: string[];
  /** Token and session lifetimes in seconds. */
  ttl?: TokenLifetimes;
  /**
   * Seconds during which a rotated refresh token, presented again by its own client, is
   * rotated again instead of being treated as reuse, as long as its successor has not been
   * used: a refresh retried after a 503 (storage failed between consuming the old token and
   * storing the new ones) or racing refreshes of one token keep the member signed in. Reuse
   * after the grace, after the successor was used, or by another client still revokes the
   * whole grant (RFC 9700 §4.14.2).
   * @default {@link OPTION_DEFAULTS}.refreshTokenGrace.default
   */
  refreshTokenGrace?: number;
  /**
   * Refreshes per grant (one client's sign-in in one browser session), shared by every
   * instance through the adapter: each refresh stores a refresh token for `ttl.refreshToken`
   * and keeps the rotated one as long for reuse detection, so this bounds what one grant can
   * make the server store. It is checked before the token is rotated: the excess gets 429
   * `temporarily_unavailable` with `Retry-After`, and the token stays usable. Its sustained
   * rate allows at least two refreshes per `ttl.accessToken`. `false` turns it off.
   */
  refreshTokenRateLimit?: RefreshTokenRateLimitOptions | false;
  /**
   * Who may introspect a token besides the client it was issued to: the client ids of
   * trusted resource servers, confidential clients of `clients` (a public client or an
   * unknown id is refused at start-up).
   * @default {@link OPTION_DEFAULTS}.introspectionClients
   */
  introspectionClients?: string[];
  /**
   * Trust `X-Forwarded-For` and `X-Forwarded-Host` (set when behind a proxy that writes them).
   * The client's address (sign-in throttling, the context of `accounts.authenticate`) is then
   * read from `X-Forwarded-For` as `proxyHops` says, and `/mcp` checks the `X-Forwarded-Host`
   * against `mcp.allowedHosts`; without it, always the socket's peer and `Host`, whatever the
   * host app's own `app.proxy` is. URLs never depend on it: every URL, scheme included, is
   * `baseUrl`'s whatever the connection or these headers say.
   * @default {@link OPTION_DEFAULTS}.proxy
   */
  proxy?: boolean;
  /**
   * With `proxy: true`, how many proxies in front of this service append to
   * `X-Forwarded-For`: the client's address is the entry this many places from the right
   * (Koa's `maxIpsCount`), and so is the host `/mcp` checks in `X-Forwarded-Host` (a single
   * entry, from a proxy that sets the header, whatever this says). Entries further left are
   * written by the client and never trusted. Ignored without `proxy`.
   * @default {@link OPTION_DEFAULTS}.proxyHops.default
   */
  proxyHops?: number;
  /**
   * Sign-in throttling, per account and per client address, on the sign-in page and through
   * `auth.signInThrottle` for a host's own sign-in forms; `false` turns it off.
   */
  signInThrottle?: SignInThrottleOptions | false;
  /**
   * Authorization requests per client address (IPv6: per /64, found as `proxy` and
   * `proxyHops` say), shared by every instance through the adapter: each one an anonymous
   * browser starts is stored (an `Interaction`) for `ttl.interaction`, so this bounds what one
   * address can make the server store. The excess gets a 429 page with `Retry-After`.
   * `false` turns it off (put a limit in front instead).
   */
  authorizationRateLimit?: AuthorizationRateLimitOptions | false;
  /**
   * Production mode refuses generated keys and cookie secrets, the default in-memory store,
   * weak static client secrets, an `http` `baseUrl`, GraphiQL and the test-only
   * metadata-document `fetch`.
   * @default process.env.NODE_ENV === 'production'
   */
  production?: boolean;
  /**
   * Where warnings go: an object with `info`, `warn` and `error` methods. Nothing the
   * library logs ever contains a token or a secret.
   * @default console
   */
  logger?: Logger;
  /**
   * The host's member data. The Account API (`/account/graphql`) and the MCP member tools
   * read it.
   * @default none: `/account/graphql` is not mounted, and `/mcp` has no member or catalogue tools
   */
  memberData?: MemberDataSource;
  /** Account API settings (page size cap, query limits, introspection, GraphiQL). */
  accountApi?: AccountApiOptions;
  /** Client registration: Variant A (restricted, the default) or B (open). */
  registration?: RegistrationOptions;
  /** Client ID Metadata Documents. */
  clientIdMetadataDocuments?: ClientIdMetadataDocumentOptions;
  /** Member clients created through `auth.memberClients`. */
  memberClients?: MemberClientOptions;
  /** The MCP endpoint (`/mcp`): its tools; `false` turns it off. */
  mcp?: McpOptions | false;
  /** `/openapi.json` and `/auth.md`. */
  docs?: DocsOptions;
  /**
   * Who signs people in: the library's email + password page (the default), the host's own
   * session (`session`), the host's own sign-in page (`loginUrl`), or both.
   */
  signIn?: SignInOptions;
  /** The library's pages: their look when no site brands them, their languages, their templates. */
  pages?: PagesOptions;
  /**
   * Diagnostics: the events of `auth.events`, and through them the trace, the metrics and
   * the event log lines. `false` builds no event at all (no listener is called, nothing is
   * traced, recorded or logged from events), the baseline to measure their cost against;
   * `trace` and `metrics` must then be left out. Request ids (`X-Request-Id`) stay on.
   * @default {@link OPTION_DEFAULTS}.events
   */
  events?: boolean;
  /**
   * The per-client trace: each client's last events in plain words with what to do, shared
   * by every instance through the adapter (`auth.memberClients.trace()`, `auth.clientTrace()`);
   * `false` turns it off.
   */
  trace?: TraceOptions | false;
  /**
   * OpenTelemetry metrics (counters and a latency histogram; README "Metrics"), a no-op until
   * the host installs an SDK; `false` turns them off.
   */
  metrics?: MetricsOptions | false;
}

export interface ResolvedRegistration {
  readonly variant: 'restricted' | 'open';
  /** normalised name → client id */
  readonly vendors: ReadonlyMap<string, string>;
  /** `false`: off, or restricted registration */
  readonly rateLimit: RegistrationRateSettings | false;
  /** seconds; `false`: never, or restricted registration */
  readonly unusedClientExpiry: number | false;
}

export interface ResolvedClientIdMetadataDocuments {
  readonly enabled: boolean;
  /** `null`: every host */
  readonly allowedHosts: ReadonlySet<string> | null;
  readonly isReviewed: (clientId: string) => Promise<boolean>;
  readonly fetch: MetadataDocumentFetch | undefined;
  /** `false`: off */
  readonly fetchBudget: FetchBudgetSettings | false;
  readonly failureCacheSeconds: number;
}

export interface ResolvedOptions {
  readonly baseUrl: string;
  readonly issuer: string;
  readonly accounts: AccountStore;
  readonly sites: SiteStore;
  readonly clients: readonly StaticClient[];
  readonly adapter: AdapterFactory;
  readonly ownsAdapter: boolean;
  readonly jwks: JWKS;
  readonly cookieKeys: readonly string[];
  readonly idTokens: boolean;
  readonly operatorRoles: readonly string[];
  readonly ttl: Required<TokenLifetimes>;
  readonly introspectionClients: readonly string[];
  readonly refreshTokenGrace: number;
  /** `false`: off */
  readonly refreshTokenRateLimit: RefreshRateSettings | false;
  readonly proxy: boolean;
  readonly proxyHops: number;
  /** `false`: off */
  readonly signInThrottle: SignInThrottleSettings | false;
  /** `false`: off */
  readonly authorizationRateLimit: AddressRateSettings | false;
  readonly production: boolean;
  readonly logger: Logger;
  readonly memberData: MemberDataSource | undefined;
  readonly accountApi: ResolvedAccountApiOptions;
  readonly registration: ResolvedRegistration;
  readonly clientIdMetadataDocuments: ResolvedClientIdMetadataDocuments;
  readonly betaEnabled: (siteId: string) => Promise<boolean>;
  /** `options.memberClients.maxPerSite` */
  readonly memberClientsPerSite: number;
  readonly mcp: ResolvedMcpOptions;
  readonly docs: ResolvedDocsOptions;
  readonly signIn: ResolvedSignInOptions;
  readonly pages: ResolvedPagesOptions;
  /** `options.events`: `false` builds no event */
  readonly events: boolean;
  /** `false`: off */
  readonly trace: ResolvedTraceOptions | false;
  /** `false`: off */
  readonly metrics: ResolvedMetricsOptions | false;
  /** keys of the generated development secrets, for the start-up banner */
  readonly generated: readonly ('jwks' | 'cookieKeys')[];
}
