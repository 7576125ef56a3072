/**
 * Validates and defaults the options once, at start-up. Every message names the option,
 * what was received and what to change.
 *
 * @module
 */
import type { JWK, JWKS } from 'oidc-provider';

import { createMemoryAdapter } from '../../adapters/memory.ts';
import { resolveAccountApiOptions } from '../account-api/options.ts';
import { resolveDocsOptions } from '../docs/options.ts';
import { resolveDiagnosticsOptions } from '../events/options.ts';
import { resolveMcpOptions } from '../mcp/options.ts';
import { resolvePagesOptions, resolveSignInOptions } from '../pages/options.ts';
import { normaliseClientName } from '../registration/vendor-names.ts';
import { unsupportedNode } from './runtime.ts';
import { CONFIDENTIAL_CLIENT_AUTH_METHOD, DEFAULT_TTL, PROTOCOL, PUBLIC_CLIENT_AUTH_METHOD, isLoopbackHost } from '../constants.ts';
import {
  MIN_COOKIE_KEY_LENGTH, SecretsInputError, checkCookieKeys as checkCookieKeyList, checkProductionCookieKeys, checkSigningJwks, createCookieKey,
  createSigningKey, notRandom,
} from '../keys/secrets.ts';
import type { SigningJwk } from '../keys/secrets.ts';
import { IDENTITY_SCOPES, isKnownScope, SCOPE_NAMES, scopesForAudience } from '../scopes/catalogue.ts';
import type { Logger, MemberDataSource, PublicCatalogueSource } from '../contracts.ts';
import type { AddressRateSettings } from '../policies/address-rate.ts';
import type { RefreshRateSettings } from '../policies/refresh-rate.ts';
import type { RegistrationRateSettings } from '../policies/registration-limits.ts';
import type { SignInThrottleSettings } from '../policies/sign-in-throttle.ts';
import { specialUseHostOf } from '../policies/special-use-addresses.ts';
import type { FetchBudgetSettings } from '../cimd/budget.ts';
import { EXTRA_CLIENT_METADATA, isMetadataDocumentId } from '../policies/client-metadata.ts';
import {
  checkBoolean, checkFunction, checkInteger, checkKnownKeys, checkObject, checkStringList, didYouMean, fail, isPlainObject, mustBe, show, unknownKey,
} from './check.ts';
import { OPTION_DEFAULTS } from './options.ts';
import type {
  AuthorizationRateLimitOptions, ClientIdMetadataDocumentOptions, LifetimeName, MemberClientOptions, MetadataDocumentFetch, MetadataDocumentFetchBudget, PlatformAuthOptions, RegistrationOptions,
  RefreshTokenRateLimitOptions, RegistrationRateLimitOptions, ResolvedClientIdMetadataDocuments, ResolvedOptions, ResolvedRegistration, SignInThrottleOptions, StaticClient, TokenLifetimes,
  VendorIntegration,
} from './options.ts';

/** Canonical form of an origin: scheme://host[:port], no trailing slash. */
export function checkBaseUrl(value: unknown, production: boolean): string {
  const hint = 'options.baseUrl must be an absolute https origin without path, query or fragment (http is allowed for localhost only), e.g. "https://learn.example.com"';
  if (value instanceof URL) fail(`options.baseUrl must be a string, not a URL object; pass ${show(value.origin)} (its origin)`);
  if (typeof value !== 'string') fail(`${hint}; got ${show(value)}`);
  const url = URL.parse(value);
  if (!url) fail(`${hint}; got ${show(value)}`);
  if (url.username || url.password || url.search || url.hash || url.pathname !== '/') {
    fail(`${hint}; got ${show(value)}`);
  }
  if (url.protocol === 'http:') {
    if (production) fail(`options.baseUrl must use https in production; got ${show(value)}`);
    if (!isLoopbackHost(url.hostname)) fail(`${hint}; got ${show(value)}`);
  } else if (url.protocol !== 'https:') {
    fail(`${hint}; got ${show(value)}`);
  }
  return url.origin;
}

function checkAccounts(value: unknown): PlatformAuthOptions['accounts'] {
  const v = value as PlatformAuthOptions['accounts'] | undefined;
  if (!v || typeof v.authenticate !== 'function' || typeof v.findById !== 'function') {
    fail('options.accounts must be an object with authenticate(email, password) and findById(id) methods returning Promise<Account | undefined>');
  }
  return v;
}

/** An object with every method of `methods`; the first missing one fails, named. */
function checkMethods(path: string, value: unknown, methods: readonly string[], expected: string): void {
  if (value === null || typeof value !== 'object') mustBe(path, expected, value);
  for (const method of methods) {
    const fn = (value as Record<string, unknown>)[method];
    if (typeof fn !== 'function') fail(`${path}.${method} must be a function; got ${show(fn)}. ${path} must be ${expected}`);
  }
}

/** Every method a {@link Logger} has; the type check fails when the contract gains one. */
const LOGGER_METHODS = Object.keys({ info: true, warn: true, error: true } satisfies Record<keyof Logger, true>);

function checkLogger(value: unknown): Logger {
  // `null` has always read as left out
  if (value === undefined || value === null) return console;
  checkMethods('options.logger', value, LOGGER_METHODS, 'an object with info, warn and error methods (message: string) => void, e.g. console or a pino logger');
  return value as Logger;
}

/** The methods a {@link MemberDataSource} must have; `catalogue` is optional and checked on its own. */
const MEMBER_DATA_METHODS = Object.keys({
  findMember: true, listEnrolments: true, findLastWatchedLectures: true, listOrders: true, listEventRegistrations: true,
} satisfies Record<Exclude<keyof MemberDataSource, 'catalogue'>, true>);
const CATALOGUE_METHODS = Object.keys({ searchCourses: true, findCourseOutline: true } satisfies Record<keyof PublicCatalogueSource, true>);

function checkMemberData(value: unknown): MemberDataSource | undefined {
  // `null` has always meant no Account API (it was never mounted); now the docs agree
  if (value === undefined || value === null) return undefined;
  checkMethods('options.memberData', value, MEMBER_DATA_METHODS, `a MemberDataSource with the methods ${MEMBER_DATA_METHODS.join(', ')} (leave it out for no Account API and no MCP member tools)`);
  const { catalogue } = value as MemberDataSource;
  if (catalogue !== undefined) {
    checkMethods('options.memberData.catalogue', catalogue, CATALOGUE_METHODS, `a PublicCatalogueSource with the methods ${CATALOGUE_METHODS.join(', ')} (leave it out for no public catalogue)`);
  }
  return value as MemberDataSource;
}

/**
 * A near miss of the library's own client metadata (`audiance`, `orgId`) would be ignored by
 * oidc-provider and read as left out, so it fails here, before the audience rules misread the
 * client. Other unknown properties are found at start-up (./static-clients.ts).
 */
function checkExtraMetadataSpelling(path: string, client: object): void {
  for (const key of Object.keys(client)) {
    if ((EXTRA_CLIENT_METADATA as readonly string[]).includes(key)) continue;
    const hint = didYouMean(key, EXTRA_CLIENT_METADATA);
    if (hint) fail(`${path}.${key} is not client metadata that oidc-provider or this library reads, so it would be ignored${hint}`);
  }
}

/** The shortest `client_secret` production takes for a static client: as for cookie keys. */
const MIN_CLIENT_SECRET_LENGTH = MIN_COOKIE_KEY_LENGTH;

/**
 * In production, a static client's `client_secret` must be a long random secret: wrong secrets
 * are not throttled at the token, introspection and revocation endpoints (oidc-provider has no
 * such limit; one address measured ~500 guesses a second), so the secret's length and
 * randomness are all that keeps it from being guessed. The secrets the library makes itself
 * (member clients', Variant B's) are 32 random bytes. Never quotes the secret.
 */
function checkProductionClientSecret(path: string, secret: unknown): void {
  if (typeof secret !== 'string') return; // the provider's schema check says what is wrong (./static-clients.ts)
  const weakness = Array.from(secret).length < MIN_CLIENT_SECRET_LENGTH
    ? `is shorter than ${MIN_CLIENT_SECRET_LENGTH} characters`
    : notRandom(secret);
  if (weakness) {
    fail(`${path}.client_secret ${weakness}; production refuses it, since wrong client secrets are not throttled: `
      + 'use 32 random bytes, e.g. `node -e "console.log(require(\'node:crypto\').randomBytes(32).toString(\'base64url\'))"`, '
      + 'and give the client its new secret');
  }
}

/**
 * The resource servers that may introspect any token: confidential clients of `options.clients`.
 * A public client listed here would let anyone who knows its (public) `client_id` introspect
 * every token without a secret; an id naming no client would never match, silently.
 */
function checkIntrospectionClients(value: unknown, clients: readonly StaticClient[]): readonly string[] {
  const ids = checkStringList('options.introspectionClients', value, OPTION_DEFAULTS.introspectionClients);
  for (const [i, id] of ids.entries()) {
    const path = `options.introspectionClients[${i}]`;
    const client = clients.find((c) => c.client_id === id);
    if (!client) {
      fail(`${path} is ${show(id)}, which names no client of options.clients: list the client ids of the resource servers that introspect tokens${didYouMean(id, clients.map((c) => c.client_id))}`);
    }
    if ((client.token_endpoint_auth_method ?? PROTOCOL.defaultTokenEndpointAuthMethod) === PUBLIC_CLIENT_AUTH_METHOD) {
      fail(`${path} names the public client ${show(id)} (token_endpoint_auth_method "none"): anyone who knows its client_id could introspect every token without a secret; list confidential clients (${CONFIDENTIAL_CLIENT_AUTH_METHOD}) only`);
    }
  }
  return ids;
}

function checkClients(value: unknown, production: boolean): StaticClient[] {
  if (value === undefined) return [...OPTION_DEFAULTS.clients];
  if (!Array.isArray(value)) mustBe('options.clients', 'an array of client metadata objects', value);
  const seen = new Set<string>();
  return value.map((raw: unknown, i): StaticClient => {
    const path = `options.clients[${i}]`;
    if (!raw || typeof raw !== 'object') mustBe(path, 'a client metadata object', raw);
    const client = { ...(raw as StaticClient) };
    checkExtraMetadataSpelling(path, client);
    if (production) checkProductionClientSecret(path, client.client_secret);
    if (typeof client.client_id !== 'string' || !client.client_id) fail(`${path}.client_id must be a non-empty string`);
    if (seen.has(client.client_id)) fail(`${path}.client_id ${show(client.client_id)} is listed twice`);
    if (/^https:/i.test(client.client_id)) {
      fail(`${path}.client_id must not be an https URL: such client_ids name client ID metadata documents (options.clientIdMetadataDocuments)`);
    }
    seen.add(client.client_id);
    const audience = client.audience ?? OPTION_DEFAULTS.client.audience;
    if (audience !== 'member' && audience !== 'operator') mustBe(`${path}.audience`, '"member" or "operator"', client.audience);
    client.audience = audience;
    if (audience === 'member' && (typeof client.org_id !== 'string' || !client.org_id)) {
      fail(`${path}.org_id must name the site a member client belongs to`);
    }
    if (audience === 'operator' && client.org_id !== undefined) {
      fail(`${path}.org_id is only for member clients; operator clients act for the site the signing-in operator chooses`);
    }
    const allowed = new Set(scopesForAudience(audience));
    // anything but a string was read as "no scope given", i.e. every scope of the audience
    if (client.scope !== undefined && typeof client.scope !== 'string') {
      mustBe(`${path}.scope`, 'a string of space-separated scope names, e.g. "openid courses:read" (leave it out for the audience\'s default)', client.scope);
    }
    const requested = typeof client.scope === 'string'
      ? client.scope.split(' ').filter(Boolean)
      : audience === 'member' ? [...IDENTITY_SCOPES, 'account:read'] : scopesForAudience('operator');
    for (const scope of requested) {
      if (!isKnownScope(scope)) fail(`${path}.scope contains ${show(scope)}, which is not in the scope catalogue${didYouMean(scope, SCOPE_NAMES)}`);
      if (!allowed.has(scope)) fail(`${path}.scope contains ${show(scope)}, which ${audience} clients may not hold`);
    }
    client.scope = requested.join(' ');
    return client;
  });
}

/** runs a check of lib/keys/secrets.ts; what it refuses is a start-up error (its messages hold no secret) */
function asConfiguration<T>(check: () => T): T {
  try {
    return check();
  } catch (err) {
    if (err instanceof SecretsInputError) fail(err.message);
    throw err;
  }
}

/**
 * The keys as oidc-provider gets them: each with `alg` and `use` set, so all score alike when
 * it picks the signing key and the first one signs.
 */
function signingJwks(keys: readonly SigningJwk[]): JWKS {
  return { keys: keys.map((k) => ({ ...k, alg: PROTOCOL.idTokenSigningAlg, use: 'sig' }) as JWK) };
}

function checkJwks(value: unknown): JWKS {
  return signingJwks(asConfiguration(() => checkSigningJwks(value, 'options.jwks')).keys);
}

/** In production also {@link checkProductionCookieKeys}: long but guessable keys are refused. */
function checkCookieKeys(value: unknown, production: boolean): string[] {
  return asConfiguration(() => {
    const keys = checkCookieKeyList(value, 'options.cookieKeys');
    if (production) checkProductionCookieKeys(keys, 'options.cookieKeys');
    return keys;
  });
}

/**
 * One lifetime of `options.ttl`: whole seconds within its bounds. A value a thousand times a
 * valid one is most likely milliseconds (`authorizationCode: 60000`), and the message says so.
 */
function checkLifetime(name: LifetimeName, value: unknown): number {
  const range = OPTION_DEFAULTS.ttl[name];
  if (Number.isSafeInteger(value) && (value as number) >= range.min && (value as number) <= range.max) return value as number;
  const seconds = typeof value === 'number' ? value / 1000 : NaN;
  const hint = Number.isSafeInteger(seconds) && seconds >= range.min && seconds <= range.max ? `; it counts seconds, not milliseconds: write ${seconds}` : '';
  fail(`options.ttl.${name} must be a whole number of seconds from ${range.min} to ${range.max}; got ${show(value)}${hint}. Leave it out for the default, ${range.default}`);
}

function checkTtl(value: unknown): Required<TokenLifetimes> {
  // arrays have always passed here (`[]` reads as `{}`); checkObject keeps that
  const given = checkObject('options.ttl', value, 'an object of lifetimes in seconds', { allowArray: true }) ?? {};
  const out: Required<TokenLifetimes> = { ...DEFAULT_TTL };
  for (const [name, seconds] of Object.entries(given)) {
    if (!Object.hasOwn(DEFAULT_TTL, name)) unknownKey('options.ttl', name, Object.keys(DEFAULT_TTL), 'lifetime');
    out[name as LifetimeName] = checkLifetime(name as LifetimeName, seconds);
  }
  // oidc-provider treats a token whose grant has expired as gone: a token outliving its grant
  // would stop working before its expires_in (or its refresh) said
  for (const token of ['accessToken', 'refreshToken'] as const) {
    if (out[token] > out.grant) {
      fail(`options.ttl.${token} (${out[token]} s) is longer than options.ttl.grant (${out.grant} s): tokens end with their grant, so it would stop working early; raise ttl.grant or lower ttl.${token}`);
    }
  }
  return out;
}

const REGISTRATION_KEYS = Object.keys({
  variant: true, vendors: true, rateLimit: true, unusedClientExpiry: true,
} satisfies Record<keyof RegistrationOptions, true>);
const VENDOR_KEYS = Object.keys({ clientId: true, names: true } satisfies Record<keyof VendorIntegration, true>);

function checkRegistration(value: PlatformAuthOptions['registration'], clients: readonly StaticClient[]): ResolvedRegistration {
  const given = checkObject<RegistrationOptions>(
    'options.registration', value, 'an object like { variant: \'restricted\', vendors: [...] }', { allowArray: true },
  ) ?? {};
  checkKnownKeys('options.registration', given, REGISTRATION_KEYS);
  const variant = given.variant ?? OPTION_DEFAULTS.registration.variant;
  if (variant !== 'restricted' && variant !== 'open') mustBe('options.registration.variant', '"restricted" (Variant A) or "open" (Variant B)', given.variant);
  if (given.vendors !== undefined && !Array.isArray(given.vendors)) mustBe('options.registration.vendors', 'an array of { clientId, names? }', given.vendors);
  const vendors = new Map<string, string>();
  (given.vendors ?? OPTION_DEFAULTS.registration.vendors).forEach((vendor, i) => {
    const path = `options.registration.vendors[${i}]`;
    if (!isPlainObject(vendor)) mustBe(path, 'an object like { clientId, names? }', vendor);
    checkKnownKeys(path, vendor, VENDOR_KEYS);
    const client = clients.find((c) => c.client_id === vendor.clientId);
    if (!client) fail(`${path}.clientId ${show(vendor.clientId)} must name a client in options.clients`);
    if (client.audience !== 'operator') fail(`${path}.clientId ${show(vendor.clientId)} is a member client; vendor platforms are operator clients`);
    if (vendor.names !== undefined && (!Array.isArray(vendor.names) || vendor.names.length === 0)) {
      mustBe(`${path}.names`, 'a non-empty array of the client_name values of this platform, e.g. ["Acme LMS"] (leave it out for the client\'s client_name)', vendor.names);
    }
    const names = vendor.names ?? (client.client_name ? [client.client_name] : []);
    if (names.length === 0) fail(`${path}.names must list the client_name values of this platform (the client has no client_name to default to)`);
    for (const name of names) {
      if (typeof name !== 'string' || !normaliseClientName(name)) mustBe(`${path}.names`, 'non-empty strings', name);
      const key = normaliseClientName(name);
      if (vendors.has(key) && vendors.get(key) !== vendor.clientId) fail(`${path}.names: ${show(name)} already names the vendor ${show(vendors.get(key))}`);
      vendors.set(key, vendor.clientId);
    }
  });
  // checked in both variants; restricted registration stores nothing, so both are off there
  const rateLimit = checkRegistrationRateLimit(given.rateLimit);
  const unusedClientExpiry = checkUnusedClientExpiry(given.unusedClientExpiry);
  const open = variant === 'open';
  return { variant, vendors, rateLimit: open && rateLimit, unusedClientExpiry: open && unusedClientExpiry };
}

function checkRegistrationRateLimit(value: unknown): RegistrationRateSettings | false {
  return checkAddressRate('options.registration.rateLimit', value, OPTION_DEFAULTS.registration.rateLimit);
}

/** A rate per client address, `{ perIp, windowSeconds }` or `false` (lib/policies/address-rate.ts). */
function checkAddressRate(
  name: string, value: unknown, ranges: typeof OPTION_DEFAULTS.registration.rateLimit | typeof OPTION_DEFAULTS.authorizationRateLimit,
): AddressRateSettings | false {
  if (value === false) return false;
  const given = checkObject<RegistrationRateLimitOptions & AuthorizationRateLimitOptions>(name, value, 'false or an object like { perIp, windowSeconds }') ?? {};
  checkKnownKeys(name, given, Object.keys(ranges));
  return Object.freeze({
    perIp: checkInteger(`${name}.perIp`, given.perIp, ranges.perIp),
    windowSeconds: checkInteger(`${name}.windowSeconds`, given.windowSeconds, ranges.windowSeconds),
  });
}

/**
 * `{ perGrant, windowSeconds }` or `false` (lib/policies/refresh-rate.ts). A client refreshes
 * once per access token, so the sustained rate must allow two per `ttl.accessToken` (one a
 * little early, or two processes of one grant): `perGrant` left out is raised to that when
 * the access tokens are short; a `perGrant` given below it is refused.
 */
function checkRefreshRate(value: unknown, accessTokenSeconds: number): RefreshRateSettings | false {
  const name = 'options.refreshTokenRateLimit';
  if (value === false) return false;
  const ranges = OPTION_DEFAULTS.refreshTokenRateLimit;
  const given = checkObject<RefreshTokenRateLimitOptions>(name, value, 'false or an object like { perGrant, windowSeconds }') ?? {};
  checkKnownKeys(name, given, Object.keys(ranges));
  const windowSeconds = checkInteger(`${name}.windowSeconds`, given.windowSeconds, ranges.windowSeconds);
  const needed = Math.ceil((2 * windowSeconds) / accessTokenSeconds);
  if (given.perGrant === undefined) {
    return Object.freeze({ perGrant: Math.min(Math.max(ranges.perGrant.default, needed), ranges.perGrant.max), windowSeconds });
  }
  const perGrant = checkInteger(`${name}.perGrant`, given.perGrant, ranges.perGrant);
  if (perGrant < needed) {
    const interval = windowSeconds / perGrant;
    fail(`${name} lets a grant refresh once every ${Number(interval.toFixed(1))} s once its burst is spent, but options.ttl.accessToken is ${accessTokenSeconds} s: a client refreshing each access token a little early would be refused. Raise ${name}.perGrant to at least ${needed} (for windowSeconds ${windowSeconds}), leave it out for that, or set ${name} to false`);
  }
  return Object.freeze({ perGrant, windowSeconds });
}

function checkUnusedClientExpiry(value: unknown): number | false {
  if (value === false) return false;
  return checkInteger('options.registration.unusedClientExpiry', value, OPTION_DEFAULTS.registration.unusedClientExpiry);
}

const LIST_EACH_HOST = 'list each host by its full name, e.g. "app.example.com", "tools.example.com"';

/**
 * An entry of `allowedHosts`: a host name (or IP address), optionally with a port. It is
 * compared with a client_id URL's host as is, so a pattern (`*.example.com`, `.example.com`)
 * or a name no URL's host can be (`app.example.com.`, `example..com`, `-app.example.com`)
 * would never match, while turning the feature on and being listed in /auth.md.
 */
function checkHost(name: string, host: unknown): string {
  const form = 'host names, optionally with a port ("app.example.com", "app.example.com:8443")';
  if (typeof host !== 'string') mustBe(`${name} entries`, form, host);
  if (host.includes('*')) fail(`${name}: ${show(host)} is a wildcard, and wildcards are not supported: ${LIST_EACH_HOST}`);
  const url = host.includes('/') ? null : URL.parse(`https://${host}`);
  // documents are fetched over https: ":443" is the same host, and URL drops it
  const given = host.toLowerCase();
  if (!url || (url.host !== given && `${url.host}:443` !== given) || url.username || url.password) mustBe(`${name} entries`, form, host);
  // an IPv6 address ([…]) has no labels
  const labels = url.hostname.startsWith('[') ? [] : url.hostname.split('.');
  if (labels.includes('')) {
    fail(`${name}: ${show(host)} has an empty label (a leading, trailing or doubled dot), so no client_id's host would ever match it; a leading dot does not mean "and its subdomains": wildcards are not supported, ${LIST_EACH_HOST}`);
  }
  if (labels.some((label) => label.startsWith('-') || label.endsWith('-'))) {
    fail(`${name}: ${show(host)} has a label that starts or ends with "-", which a host name cannot (RFC 1123 §2.1), so it would never match; ${LIST_EACH_HOST}`);
  }
  return url.host;
}

function checkFetchBudget(value: unknown): FetchBudgetSettings | false {
  const name = 'options.clientIdMetadataDocuments.fetchBudget';
  if (value === false) return false;
  const given = checkObject<MetadataDocumentFetchBudget>(name, value, 'false or an object like { perHost, perCaller, windowSeconds }') ?? {};
  const ranges = OPTION_DEFAULTS.clientIdMetadataDocuments.fetchBudget;
  checkKnownKeys(name, given, Object.keys(ranges));
  return Object.freeze({
    perHost: checkInteger(`${name}.perHost`, given.perHost, ranges.perHost),
    perCaller: checkInteger(`${name}.perCaller`, given.perCaller, ranges.perCaller),
    windowSeconds: checkInteger(`${name}.windowSeconds`, given.windowSeconds, ranges.windowSeconds),
  });
}

const METADATA_DOCUMENT_KEYS = Object.keys({
  enabled: true, allowedHosts: true, reviewed: true, fetch: true, fetchBudget: true, failureCacheSeconds: true,
} satisfies Record<keyof ClientIdMetadataDocumentOptions, true>);

function checkMetadataDocuments(
  value: PlatformAuthOptions['clientIdMetadataDocuments'], open: boolean, production: boolean, logger: Logger,
): ResolvedClientIdMetadataDocuments {
  const name = 'options.clientIdMetadataDocuments';
  const v = checkObject<ClientIdMetadataDocumentOptions>(name, value, 'an object', { allowArray: true }) ?? {};
  checkKnownKeys(name, v, METADATA_DOCUMENT_KEYS);
  const given = checkBoolean(`${name}.enabled`, v.enabled, undefined, 'a boolean');
  if (v.allowedHosts !== undefined && !Array.isArray(v.allowedHosts)) mustBe(`${name}.allowedHosts`, 'an array of host names', v.allowedHosts);
  const hosts = new Set((v.allowedHosts ?? OPTION_DEFAULTS.clientIdMetadataDocuments.allowedHosts).map((h) => checkHost(`${name}.allowedHosts`, h)));
  for (const host of hosts) {
    const special = specialUseHostOf(URL.parse(`https://${host}`)!.hostname);
    if (special !== undefined) {
      fail(`${name}.allowedHosts: ${show(host)} is a special-use address or name (${special}); documents are never fetched from one, so list public hosts only`);
    }
  }
  const enabled = given ?? (open || hosts.size > 0);
  if (enabled && !open && hosts.size === 0) {
    fail(`${name}: with restricted registration, documents are accepted only from allowedHosts; list the hosts or set enabled: false`);
  }
  let isReviewed: (clientId: string) => Promise<boolean>;
  if (v.reviewed === undefined) isReviewed = async () => false;
  else if (typeof v.reviewed === 'function') {
    const fn = v.reviewed;
    // a lookup that fails (throws or rejects) counts as not reviewed, as the README says: the
    // client keeps the unreviewed limits and the sign-in goes on, where it was a 500
    isReviewed = (id) => Promise.resolve().then(() => fn(id)).then((reviewed) => reviewed === true, (error: unknown) => {
      logger.warn(`platform-auth: ${name}.reviewed failed for ${JSON.stringify(id).slice(0, 300)}, so the client counts as not reviewed: ${error instanceof Error ? error.message : String(error)}`);
      return false;
    });
  } else if (Array.isArray(v.reviewed) && v.reviewed.every((r) => typeof r === 'string')) {
    // a document's client_id is always an https URL: anything else (a host, a bare name) would
    // never match, and its client would stay limited without a word
    for (const [i, id] of v.reviewed.entries()) {
      if (!isMetadataDocumentId(id) || !URL.parse(id)) {
        mustBe(`${name}.reviewed[${i}]`, 'the client_id of a document, its https URL ("https://tools.example/client.json")', id);
      }
    }
    const list = new Set(v.reviewed);
    isReviewed = async (id) => list.has(id);
  } else mustBe(`${name}.reviewed`, 'an array of client_id URLs or a function (clientId) => boolean', v.reviewed);
  const fetch = checkFunction<MetadataDocumentFetch>(`${name}.fetch`, v.fetch, '(url, init) => Promise<Response>');
  if (fetch !== undefined && production) {
    fail(`${name}.fetch is for tests only (it may bypass the SSRF protection of document fetches); remove it in production`);
  }
  return {
    enabled,
    allowedHosts: open ? null : hosts,
    isReviewed,
    fetch,
    fetchBudget: checkFetchBudget(v.fetchBudget),
    failureCacheSeconds: checkInteger(`${name}.failureCacheSeconds`, v.failureCacheSeconds, OPTION_DEFAULTS.clientIdMetadataDocuments.failureCacheSeconds),
  };
}

function checkSignInThrottle(value: unknown): SignInThrottleSettings | false {
  const name = 'options.signInThrottle';
  if (value === false) return false;
  const given = checkObject<SignInThrottleOptions>(name, value, 'false or an object like { accountFailures, ipFailures, windowSeconds, maxDelaySeconds }') ?? {};
  const ranges = OPTION_DEFAULTS.signInThrottle;
  checkKnownKeys(name, given, Object.keys(ranges));
  return Object.freeze({
    accountFailures: checkInteger(`${name}.accountFailures`, given.accountFailures, ranges.accountFailures),
    ipFailures: checkInteger(`${name}.ipFailures`, given.ipFailures, ranges.ipFailures),
    windowSeconds: checkInteger(`${name}.windowSeconds`, given.windowSeconds, ranges.windowSeconds),
    maxDelaySeconds: checkInteger(`${name}.maxDelaySeconds`, given.maxDelaySeconds, ranges.maxDelaySeconds),
  });
}

const MEMBER_CLIENT_KEYS = Object.keys({ betaEnabled: true, maxPerSite: true } satisfies Record<keyof MemberClientOptions, true>);

function checkBeta(value: unknown): (siteId: string) => Promise<boolean> {
  const name = 'options.memberClients.betaEnabled';
  if (value === undefined) return async () => false;
  if (typeof value === 'boolean') return async () => value;
  if (typeof value === 'function') return async (site) => (await (value as (s: string) => unknown)(site)) === true;
  if (Array.isArray(value) && value.every((s) => typeof s === 'string')) {
    const sites = new Set(value as string[]);
    return async (site) => sites.has(site);
  }
  mustBe(name, 'a boolean, an array of site ids or a function (siteId) => boolean', value);
}

/** Resolves the options once; throws ConfigurationError with a fix for anything that cannot work. */
/** Every top-level option; the type check below fails when `PlatformAuthOptions` gains one that is not listed. */
const OPTION_NAMES = [
  'baseUrl', 'accounts', 'sites', 'clients', 'adapter', 'jwks', 'cookieKeys', 'idTokens', 'operatorRoles', 'ttl',
  'refreshTokenGrace', 'refreshTokenRateLimit', 'introspectionClients', 'proxy', 'proxyHops', 'signInThrottle', 'authorizationRateLimit', 'production', 'logger', 'memberData', 'accountApi', 'registration',
  'clientIdMetadataDocuments', 'memberClients', 'mcp', 'docs', 'events', 'trace', 'metrics', 'signIn', 'pages',
] as const satisfies readonly (keyof PlatformAuthOptions)[];
const everyOptionListed: Exclude<keyof PlatformAuthOptions, (typeof OPTION_NAMES)[number]> extends never ? true : never = true;

export async function validateOptions(input: PlatformAuthOptions): Promise<ResolvedOptions> {
  // first: on an older Node the checks below would fail in ways that do not say why
  const runtime = unsupportedNode();
  if (runtime) fail(runtime);
  if (!input || typeof input !== 'object') fail('createPlatformAuth(options) needs an options object with at least baseUrl and accounts');
  // a misspelt option (`cookiekeys`) would otherwise be ignored and its default used silently
  if (everyOptionListed) checkKnownKeys('options', input, OPTION_NAMES);
  // `production: null` has always read as left out
  const production = checkBoolean('options.production', input.production ?? undefined, process.env.NODE_ENV === 'production', 'a boolean');
  const logger = checkLogger(input.logger);
  const baseUrl = checkBaseUrl(input.baseUrl, production);
  const generated: ('jwks' | 'cookieKeys')[] = [];

  if (production && input.jwks === undefined) {
    fail(`options.jwks is required in production: pass your ${PROTOCOL.idTokenSigningAlg} private signing keys (a generated key would change on every restart and differ between instances); \`npx --no-install platform-auth keys --out secrets.json\` makes them`);
  }
  if (production && input.cookieKeys === undefined) {
    fail('options.cookieKeys is required in production: pass long random secrets (generated ones would log everyone out on restart and differ between instances); `npx --no-install platform-auth keys --out secrets.json` makes them');
  }
  let jwks: JWKS;
  if (input.jwks === undefined) {
    jwks = signingJwks([await createSigningKey()]);
    generated.push('jwks');
  } else {
    jwks = checkJwks(input.jwks);
  }
  let cookieKeys: string[];
  if (input.cookieKeys === undefined) {
    cookieKeys = [createCookieKey()];
    generated.push('cookieKeys');
  } else {
    cookieKeys = checkCookieKeys(input.cookieKeys, production);
  }

  if (input.adapter !== undefined && typeof input.adapter !== 'function') {
    fail('options.adapter must be an oidc-provider adapter factory (modelName) => adapter, e.g. createMemoryAdapter() or createRedisAdapter(...)');
  }
  // as with generated keys: the default store ends every sign-in and token on a restart and
  // is not shared between instances. Passing createMemoryAdapter() says that is meant
  if (production && input.adapter === undefined) {
    fail('options.adapter is required in production: the default in-memory store loses every token, grant and sign-in on restart and is not shared between instances; pass createRedisAdapter({ url, keyPrefix }) from \'platform-auth/adapters/redis\', or adapter: createMemoryAdapter() from \'platform-auth/adapters/memory\' for one instance that may lose them');
  }
  const idTokens = checkBoolean('options.idTokens', input.idTokens, OPTION_DEFAULTS.idTokens, 'a boolean');
  const proxy = checkBoolean('options.proxy', input.proxy, OPTION_DEFAULTS.proxy, 'a boolean');
  if (input.sites !== undefined && typeof input.sites?.findById !== 'function') fail('options.sites must be an object with a findById(id) method');

  const clients = checkClients(input.clients, production);
  const registration = checkRegistration(input.registration, clients);
  const memberClients = checkObject<MemberClientOptions>('options.memberClients', input.memberClients, 'an object like { betaEnabled }', { allowArray: true }) ?? {};
  checkKnownKeys('options.memberClients', memberClients, MEMBER_CLIENT_KEYS);

  const ttl = checkTtl(input.ttl);
  return Object.freeze({
    baseUrl,
    issuer: baseUrl,
    accounts: checkAccounts(input.accounts),
    sites: input.sites ?? { findById: async (id: string) => ({ id, name: id }) },
    clients,
    adapter: input.adapter ?? createMemoryAdapter(),
    ownsAdapter: input.adapter === undefined,
    jwks,
    cookieKeys,
    idTokens,
    operatorRoles: checkStringList('options.operatorRoles', input.operatorRoles, OPTION_DEFAULTS.operatorRoles),
    ttl,
    introspectionClients: checkIntrospectionClients(input.introspectionClients, clients),
    refreshTokenGrace: checkInteger('options.refreshTokenGrace', input.refreshTokenGrace, OPTION_DEFAULTS.refreshTokenGrace),
    refreshTokenRateLimit: checkRefreshRate(input.refreshTokenRateLimit, ttl.accessToken),
    proxy,
    proxyHops: checkInteger('options.proxyHops', input.proxyHops, OPTION_DEFAULTS.proxyHops),
    signInThrottle: checkSignInThrottle(input.signInThrottle),
    authorizationRateLimit: checkAddressRate('options.authorizationRateLimit', input.authorizationRateLimit, OPTION_DEFAULTS.authorizationRateLimit),
    production,
    logger,
    memberData: checkMemberData(input.memberData),
    accountApi: resolveAccountApiOptions(input.accountApi, production),
    registration,
    clientIdMetadataDocuments: checkMetadataDocuments(input.clientIdMetadataDocuments, registration.variant === 'open', production, logger),
    betaEnabled: checkBeta(memberClients.betaEnabled),
    memberClientsPerSite: checkInteger('options.memberClients.maxPerSite', memberClients.maxPerSite, OPTION_DEFAULTS.memberClients.maxPerSite),
    mcp: resolveMcpOptions(input.mcp),
    docs: resolveDocsOptions(input.docs),
    signIn: resolveSignInOptions(input.signIn, baseUrl),
    pages: resolvePagesOptions(input.pages),
    ...resolveDiagnosticsOptions(input, OPTION_DEFAULTS.events),
    generated,
  });
}
