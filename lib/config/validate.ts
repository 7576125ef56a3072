/**
 * Validates and defaults the options once, at start-up. Every message names the option,
 * what was received and what to change.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';

import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import type { JWK, JWKS } from 'oidc-provider';

import { createMemoryAdapter } from '../../adapters/memory.ts';
import { resolveAccountApiOptions } from '../account-api/index.ts';
import { ConfigurationError } from '../errors.ts';
import { IDENTITY_SCOPES, isKnownScope, scopesForAudience } from '../scopes/catalogue.ts';
import type {
  Logger, PlatformAuthOptions, ResolvedOptions, StaticClient, TokenLifetimes,
} from './options.ts';

const DEFAULT_TTL: Required<TokenLifetimes> = {
  accessToken: 3600,
  refreshToken: 14 * 24 * 3600,
  authorizationCode: 60,
  interaction: 3600,
  session: 14 * 24 * 3600,
  grant: 14 * 24 * 3600,
};

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

function fail(message: string): never {
  throw new ConfigurationError(message);
}

function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === undefined) return 'undefined';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/** Canonical form of an origin: scheme://host[:port], no trailing slash. */
export function checkBaseUrl(value: unknown, production: boolean): string {
  const hint = 'options.baseUrl must be an absolute https origin without path, query or fragment (http is allowed for localhost only), e.g. "https://learn.example.com"';
  if (typeof value !== 'string') fail(`${hint}; got ${show(value)}`);
  const url = URL.parse(value);
  if (!url) fail(`${hint}; got ${show(value)}`);
  if (url.username || url.password || url.search || url.hash || url.pathname !== '/') {
    fail(`${hint}; got ${show(value)}`);
  }
  if (url.protocol === 'http:') {
    if (production) fail(`options.baseUrl must use https in production; got ${show(value)}`);
    if (!LOOPBACK_HOSTS.has(url.hostname)) fail(`${hint}; got ${show(value)}`);
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

function checkClients(value: unknown): StaticClient[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) fail(`options.clients must be an array of client metadata objects; got ${show(value)}`);
  const seen = new Set<string>();
  return value.map((raw: unknown, i): StaticClient => {
    const path = `options.clients[${i}]`;
    if (!raw || typeof raw !== 'object') fail(`${path} must be a client metadata object; got ${show(raw)}`);
    const client = { ...(raw as StaticClient) };
    if (typeof client.client_id !== 'string' || !client.client_id) fail(`${path}.client_id must be a non-empty string`);
    if (seen.has(client.client_id)) fail(`${path}.client_id ${show(client.client_id)} is listed twice`);
    seen.add(client.client_id);
    const audience = client.audience ?? 'operator';
    if (audience !== 'member' && audience !== 'operator') fail(`${path}.audience must be "member" or "operator"; got ${show(client.audience)}`);
    client.audience = audience;
    if (audience === 'member' && (typeof client.org_id !== 'string' || !client.org_id)) {
      fail(`${path}.org_id must name the site a member client belongs to`);
    }
    if (audience === 'operator' && client.org_id !== undefined) {
      fail(`${path}.org_id is only for member clients; operator clients act for the site the signing-in operator chooses`);
    }
    const allowed = new Set(scopesForAudience(audience));
    const requested = typeof client.scope === 'string'
      ? client.scope.split(' ').filter(Boolean)
      : audience === 'member' ? [...IDENTITY_SCOPES, 'account:read'] : scopesForAudience('operator');
    for (const scope of requested) {
      if (!isKnownScope(scope)) fail(`${path}.scope contains ${show(scope)}, which is not in the scope catalogue`);
      if (!allowed.has(scope)) fail(`${path}.scope contains ${show(scope)}, which ${audience} clients may not hold`);
    }
    client.scope = requested.join(' ');
    return client;
  });
}

function checkJwks(value: unknown): JWKS {
  const hint = 'options.jwks must be { keys: [...] } with at least one private ES256 key (kty "EC", crv "P-256", d, kid)';
  const jwks = value as JWKS | undefined;
  if (!jwks || !Array.isArray(jwks.keys) || jwks.keys.length === 0) fail(hint);
  jwks.keys.forEach((key: JWK, i: number) => {
    if (key.kty !== 'EC' || key.crv !== 'P-256' || typeof key.d !== 'string') {
      fail(`options.jwks.keys[${i}] must be a private EC P-256 key (ES256 is the only ID-token algorithm); got kty ${show(key.kty)}, crv ${show(key.crv)}`);
    }
    if (key.alg !== undefined && key.alg !== 'ES256') fail(`options.jwks.keys[${i}].alg must be "ES256" or absent; got ${show(key.alg)}`);
    if (typeof key.kid !== 'string' || !key.kid) fail(`options.jwks.keys[${i}].kid must be a non-empty string so ID tokens name their key`);
  });
  return { keys: jwks.keys.map((k) => ({ ...k, alg: 'ES256', use: 'sig' })) };
}

function checkCookieKeys(value: unknown): string[] {
  const hint = 'options.cookieKeys must be a non-empty array of secrets of at least 32 characters each';
  if (!Array.isArray(value) || value.length === 0) fail(`${hint}; got ${show(Array.isArray(value) ? `${value.length} keys` : typeof value)}`);
  value.forEach((k: unknown, i: number) => {
    if (typeof k !== 'string' || k.length < 32) fail(`${hint}; options.cookieKeys[${i}] is too short or not a string`);
  });
  return value as string[];
}

function checkTtl(value: unknown): Required<TokenLifetimes> {
  if (value === undefined) return { ...DEFAULT_TTL };
  if (!value || typeof value !== 'object') fail(`options.ttl must be an object of lifetimes in seconds; got ${show(value)}`);
  const out = { ...DEFAULT_TTL };
  for (const [name, seconds] of Object.entries(value)) {
    if (!(name in DEFAULT_TTL)) fail(`options.ttl.${name} is not a known lifetime; use one of ${Object.keys(DEFAULT_TTL).join(', ')}`);
    if (!Number.isSafeInteger(seconds) || (seconds as number) <= 0) fail(`options.ttl.${name} must be a positive whole number of seconds; got ${show(seconds)}`);
    out[name as keyof TokenLifetimes] = seconds as number;
  }
  return out;
}

function checkStringList(name: string, value: unknown, fallback: string[]): string[] {
  if (value === undefined) return fallback;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || !v)) {
    fail(`options.${name} must be an array of non-empty strings; got ${show(value)}`);
  }
  return value as string[];
}

async function generateSigningKeys(): Promise<JWKS> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(jwk);
  return { keys: [{ ...jwk, kid, alg: 'ES256', use: 'sig' }] as JWK[] };
}

/** Resolves the options once; throws ConfigurationError with a fix for anything that cannot work. */
export async function validateOptions(input: PlatformAuthOptions): Promise<ResolvedOptions> {
  if (!input || typeof input !== 'object') fail('createPlatformAuth(options) needs an options object with at least baseUrl and accounts');
  const production = input.production ?? process.env.NODE_ENV === 'production';
  if (typeof production !== 'boolean') fail(`options.production must be a boolean; got ${show(input.production)}`);
  const logger: Logger = input.logger ?? console;
  const baseUrl = checkBaseUrl(input.baseUrl, production);
  const generated: ('jwks' | 'cookieKeys')[] = [];

  if (production && input.jwks === undefined) {
    fail('options.jwks is required in production: pass your ES256 private signing keys (a generated key would change on every restart and differ between instances)');
  }
  if (production && input.cookieKeys === undefined) {
    fail('options.cookieKeys is required in production: pass long random secrets (generated ones would log everyone out on restart and differ between instances)');
  }
  let jwks: JWKS;
  if (input.jwks === undefined) {
    jwks = await generateSigningKeys();
    generated.push('jwks');
  } else {
    jwks = checkJwks(input.jwks);
  }
  let cookieKeys: string[];
  if (input.cookieKeys === undefined) {
    cookieKeys = [randomBytes(32).toString('base64url')];
    generated.push('cookieKeys');
  } else {
    cookieKeys = checkCookieKeys(input.cookieKeys);
  }

  if (input.adapter !== undefined && typeof input.adapter !== 'function') {
    fail('options.adapter must be an oidc-provider adapter factory (modelName) => adapter, e.g. createMemoryAdapter() or createRedisAdapter(...)');
  }
  if (input.idTokens !== undefined && typeof input.idTokens !== 'boolean') fail(`options.idTokens must be a boolean; got ${show(input.idTokens)}`);
  if (input.proxy !== undefined && typeof input.proxy !== 'boolean') fail(`options.proxy must be a boolean; got ${show(input.proxy)}`);
  if (input.sites !== undefined && typeof input.sites?.findById !== 'function') fail('options.sites must be an object with a findById(id) method');

  return Object.freeze({
    baseUrl,
    issuer: baseUrl,
    accounts: checkAccounts(input.accounts),
    sites: input.sites ?? { findById: async (id: string) => ({ id, name: id }) },
    clients: checkClients(input.clients),
    adapter: input.adapter ?? createMemoryAdapter(),
    ownsAdapter: input.adapter === undefined,
    jwks,
    cookieKeys,
    idTokens: input.idTokens ?? true,
    operatorRoles: checkStringList('operatorRoles', input.operatorRoles, ['owner', 'admin']),
    ttl: checkTtl(input.ttl),
    introspectionClients: checkStringList('introspectionClients', input.introspectionClients, []),
    proxy: input.proxy ?? false,
    production,
    logger,
    memberData: input.memberData,
    accountApi: resolveAccountApiOptions(input.accountApi, production),
    generated,
  });
}
