/**
 * lib/policies/resource-indicator.ts without HTTP: RFC 8707 resource indicators name this
 * service by its origin; anything else is `invalid_target`, and requested scopes outside the
 * allowance are `invalid_scope`.
 */
import { errors } from 'oidc-provider';
import type { Client, KoaContextWithOIDC } from 'oidc-provider';

import { canonicalResource, refreshTargetCheck, resourceIndicatorsFeature } from '../../lib/policies/resource-indicator.ts';

const BASE = 'https://learn.example';

describe('canonicalResource', () => {
  it.each([
    'https://learn.example',
    'https://learn.example/',
    'https://LEARN.example/',
    'https://learn.example:443',
  ])('maps %s to the baseUrl', (indicator) => {
    expect(canonicalResource(indicator, BASE)).toBe(BASE);
  });

  it.each([
    ['another origin', 'https://other.example'],
    ['http instead of https', 'http://learn.example'],
    ['another port', 'https://learn.example:8443'],
    ['a subdomain', 'https://api.learn.example'],
    ['a path', 'https://learn.example/api'],
    ['a path with trailing slash', 'https://learn.example/mcp/'],
    ['a query', 'https://learn.example/?x=1'],
    ['a fragment', 'https://learn.example/#f'],
    ['an empty query', 'https://learn.example/?'],
    ['an empty fragment', 'https://learn.example/#'],
    ['a username', 'https://u@learn.example/'],
    ['userinfo', 'https://u:p@learn.example'],
    ['garbage', 'not a url'],
    ['an empty string', ''],
  ])('refuses %s', (_label, indicator) => {
    expect(canonicalResource(indicator, BASE)).toBeUndefined();
  });

  it('never names a baseUrl that is not an origin as URL writes it, also for the exact string', () => {
    // the shortcut for an indicator equal to baseUrl must not skip the canonical-form check
    expect(canonicalResource('https://LEARN.example', 'https://LEARN.example')).toBeUndefined();
    expect(canonicalResource('https://learn.example:443/', 'https://learn.example:443')).toBeUndefined();
  });

  it('works for an http loopback baseUrl with a port', () => {
    expect(canonicalResource('http://localhost:3000/', 'http://localhost:3000')).toBe('http://localhost:3000');
    expect(canonicalResource('http://localhost:3001/', 'http://localhost:3000')).toBeUndefined();
  });
});

describe('resourceIndicatorsFeature', () => {
  const client = { clientId: 'op' } as unknown as Client;
  const allowanceOf = new Set(['openid', 'courses:read']);
  const asked: unknown[] = [];
  const feature = resourceIndicatorsFeature({
    baseUrl: BASE,
    accessTokenTTL: 1234,
    allowance: async (c) => { asked.push(c); return allowanceOf; },
  });

  function ctx(scope?: string): KoaContextWithOIDC {
    return { oidc: { params: scope === undefined ? {} : { scope } } } as unknown as KoaContextWithOIDC;
  }

  beforeEach(() => { asked.length = 0; });

  it('is enabled and binds tokens to the baseUrl when no resource is named', async () => {
    expect(feature.enabled).toBe(true);
    expect(await feature.defaultResource(ctx(), client)).toBe(BASE);
    expect(await feature.useGrantedResource()).toBe(true);
  });

  it('refuses a token request naming several resources, which oidc-provider would collapse', async () => {
    const token = (resource: unknown) => ({ oidc: { route: 'token', params: { resource } } }) as unknown as KoaContextWithOIDC;
    await expect(feature.defaultResource(token([BASE, BASE]), client, [BASE, BASE])).rejects.toMatchObject({ error: 'invalid_target' });
    // several resources granted at authorization, none named at the token endpoint: the default
    expect(await feature.defaultResource(token(undefined), client, [BASE, `${BASE}/`])).toBe(BASE);
  });

  it.each([BASE, `${BASE}/`])('describes the resource server for %s', async (indicator) => {
    const info = await feature.getResourceServerInfo(ctx('openid courses:read'), indicator, client);
    expect(info).toEqual({ audience: BASE, scope: 'openid courses:read', accessTokenTTL: 1234, accessTokenFormat: 'opaque' });
    expect(asked).toEqual([client]);
  });

  it('offers the whole allowance when no scope is requested', async () => {
    const info = await feature.getResourceServerInfo(ctx(), BASE, client);
    expect(info.scope).toBe('openid courses:read');
  });

  it.each(['https://other.example', `${BASE}/mcp`, `${BASE}/?a=b`])('refuses the resource %s as invalid_target', async (indicator) => {
    const promise = feature.getResourceServerInfo(ctx('openid'), indicator, client);
    await expect(promise).rejects.toBeInstanceOf(errors.InvalidTarget);
    await expect(promise).rejects.toMatchObject({ error: 'invalid_target', status: 400 });
  });

  it('refuses another resource before looking up the allowance', async () => {
    await expect(feature.getResourceServerInfo(ctx('openid'), 'https://other.example', client)).rejects.toThrow();
    expect(asked).toEqual([]);
  });

  it('refuses a requested scope outside the allowance as invalid_scope', async () => {
    const promise = feature.getResourceServerInfo(ctx('openid courses:write'), BASE, client);
    await expect(promise).rejects.toBeInstanceOf(errors.InvalidScope);
    await expect(promise).rejects.toMatchObject({ error: 'invalid_scope', scope: 'courses:write' });
  });

  it('refuses an unknown requested scope as invalid_scope', async () => {
    await expect(feature.getResourceServerInfo(ctx('openid nope'), BASE, client)).rejects.toMatchObject({
      error: 'invalid_scope', scope: 'nope', error_description: expect.stringMatching(/not offered/),
    });
  });
});

describe('refreshTargetCheck: what would refuse a refresh after its rotation, asked before it', () => {
  const client = { clientId: 'member' } as unknown as Client;
  const asked: unknown[] = [];
  const check = refreshTargetCheck({
    baseUrl: BASE, accessTokenTTL: 60, allowance: async (c) => { asked.push(c); return new Set(['openid', 'account:read']); },
  });
  /** a refresh request for a token granted for `granted` */
  const refresh = (params: Record<string, unknown>, granted = `${BASE}/`) => ({
    oidc: { client, params, entities: { RefreshToken: { resourceIndicators: new Set([granted]) } } },
  }) as unknown as KoaContextWithOIDC;

  beforeEach(() => { asked.length = 0; });

  it('lets a refresh that names nothing through without a lookup', async () => {
    await expect(check(refresh({}))).resolves.toBeUndefined();
    expect(asked).toEqual([]);
  });

  it('lets the granted resource, as granted, and scopes within the allowance through', async () => {
    await expect(check(refresh({ resource: `${BASE}/`, scope: 'openid account:read' }))).resolves.toBeUndefined();
    expect(asked).toEqual([client]);
  });

  it.each([
    ['the granted resource in its other spelling', { resource: BASE }],
    ['another resource', { resource: 'https://other.example' }],
    ['two resources', { resource: [`${BASE}/`, `${BASE}/`] }],
  ])('refuses %s as invalid_target', async (_label, params) => {
    await expect(check(refresh(params))).rejects.toMatchObject({ error: 'invalid_target' });
  });

  it('refuses a granted resource that is not this server as invalid_target', async () => {
    await expect(check(refresh({ resource: 'https://other.example' }, 'https://other.example'))).rejects.toMatchObject({
      error: 'invalid_target', error_description: expect.stringContaining(BASE),
    });
  });

  it('refuses a scope outside the allowance as invalid_scope', async () => {
    await expect(check(refresh({ scope: 'openid courses:read' }))).rejects.toMatchObject({ error: 'invalid_scope', scope: 'courses:read' });
  });

  it('leaves a request without a client or token to oidc-provider', async () => {
    await expect(check({ oidc: { params: { resource: 'x' }, entities: {} } } as unknown as KoaContextWithOIDC)).resolves.toBeUndefined();
  });
});
