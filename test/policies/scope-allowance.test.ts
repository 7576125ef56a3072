/**
 * lib/policies/scope-allowance.ts without HTTP: which scopes a client may hold, the refusal of
 * anything else, and the one exception: identity scopes a client may not hold are dropped.
 */
import { errors } from 'oidc-provider';

import { assertScopesAllowed, grantableScope, scopeAllowance } from '../../lib/policies/scope-allowance.ts';
import type { ScopedClient, ScopePolicy } from '../../lib/policies/scope-allowance.ts';
import { findScope, IDENTITY_SCOPES, scopesForAudience } from '../../lib/scopes/catalogue.ts';

const OPERATOR_SCOPES = scopesForAudience('operator');

/** A policy that records which clients it was asked about. */
function reviewPolicy(reviewed: readonly string[] = []) {
  const asked: string[] = [];
  const policy: ScopePolicy = {
    async isReviewed(clientId) { asked.push(clientId); return reviewed.includes(clientId); },
  };
  return { policy, asked };
}

const sorted = (s: ReadonlySet<string>) => [...s].sort();

describe('scopeAllowance: static clients', () => {
  it('gives an operator client its registered scope', async () => {
    const client: ScopedClient = { clientId: 'op', audience: 'operator', scope: 'openid courses:read courses:write' };
    expect(sorted(await scopeAllowance(client, reviewPolicy().policy))).toEqual(['courses:read', 'courses:write', 'openid']);
  });

  it('drops registered scopes an operator client is not eligible for', async () => {
    const client: ScopedClient = { clientId: 'op', audience: 'operator', scope: 'openid account:read courses:read unknown:scope' };
    expect(sorted(await scopeAllowance(client, reviewPolicy().policy))).toEqual(['courses:read', 'openid']);
  });

  it('drops operator scopes from a member client', async () => {
    const client: ScopedClient = { clientId: 'm', audience: 'member', org_id: 'site-a', scope: 'openid email account:read account:write courses:read' };
    expect(sorted(await scopeAllowance(client, reviewPolicy().policy))).toEqual(['account:read', 'account:write', 'email', 'openid']);
  });

  it('gives a static client without scope nothing', async () => {
    expect((await scopeAllowance({ clientId: 'op', audience: 'operator' }, reviewPolicy().policy)).size).toBe(0);
  });

  it('does not ask about review for a client that is not a document', async () => {
    const { policy, asked } = reviewPolicy();
    await scopeAllowance({ clientId: 'op', scope: 'openid courses:write' }, policy);
    expect(asked).toEqual([]);
  });

  it('returns the same Set for the same client object, and a new one for another object', async () => {
    const { policy } = reviewPolicy();
    const client: ScopedClient = { clientId: 'op', scope: 'openid courses:read' };
    const first = await scopeAllowance(client, policy);
    expect(await scopeAllowance(client, policy)).toBe(first);

    const nextVersion: ScopedClient = { clientId: 'op', scope: 'openid' };
    const second = await scopeAllowance(nextVersion, policy);
    expect(second).not.toBe(first);
    expect(sorted(second)).toEqual(['openid']);
  });
});

describe('scopeAllowance: metadata-document clients', () => {
  const DOC = 'https://tools.example/client.json';

  it('gives a reviewed document without scope every operator scope', async () => {
    const allowance = await scopeAllowance({ clientId: DOC, clientIdMetadataDocument: true }, reviewPolicy([DOC]).policy);
    expect(sorted(allowance)).toEqual([...OPERATOR_SCOPES].sort());
    expect(allowance.has('courses:write')).toBe(true);
    expect(allowance.has('account:read')).toBe(false);
  });

  it('caps an unreviewed document without scope to read and identity scopes', async () => {
    const allowance = await scopeAllowance({ clientId: DOC, clientIdMetadataDocument: true }, reviewPolicy().policy);
    const expected = OPERATOR_SCOPES.filter((s) => ['identity', 'read'].includes(findScope(s)!.access));
    expect(sorted(allowance)).toEqual([...expected].sort());
    for (const s of IDENTITY_SCOPES) expect(allowance.has(s)).toBe(true);
    expect(allowance.has('courses:read')).toBe(true);
    expect(allowance.has('courses:write')).toBe(false);
    expect(allowance.has('storage:write')).toBe(false);
    expect(allowance.has('account:read')).toBe(false);
  });

  it('caps an unreviewed document with scope to the read and identity part of it', async () => {
    const client: ScopedClient = { clientId: DOC, clientIdMetadataDocument: true, scope: 'openid courses:read courses:write' };
    expect(sorted(await scopeAllowance(client, reviewPolicy().policy))).toEqual(['courses:read', 'openid']);
  });

  it('does not cap a reviewed document with scope', async () => {
    const client: ScopedClient = { clientId: DOC, clientIdMetadataDocument: true, scope: 'openid courses:read courses:write' };
    expect(sorted(await scopeAllowance(client, reviewPolicy([DOC]).policy))).toEqual(['courses:read', 'courses:write', 'openid']);
  });

  it('asks the policy about this client every time, so a review takes effect without a new client object', async () => {
    const reviewed: string[] = [];
    const asked: string[] = [];
    const policy: ScopePolicy = { async isReviewed(id) { asked.push(id); return reviewed.includes(id); } };
    const client: ScopedClient = { clientId: DOC, clientIdMetadataDocument: true };
    expect((await scopeAllowance(client, policy)).has('courses:write')).toBe(false);
    reviewed.push(DOC);
    expect((await scopeAllowance(client, policy)).has('courses:write')).toBe(true);
    expect(asked).toEqual([DOC, DOC]);
  });

  it('treats a truthy non-true clientIdMetadataDocument as a static client', async () => {
    const client = { clientId: DOC, clientIdMetadataDocument: 'yes' } as unknown as ScopedClient;
    expect((await scopeAllowance(client, reviewPolicy().policy)).size).toBe(0);
  });
});

describe('assertScopesAllowed', () => {
  const allowance: ReadonlySet<string> = new Set(['openid', 'profile', 'courses:read']);

  /** oidc-provider sets `scope` on the error; its types leave it out. */
  type ScopeRefusal = errors.InvalidScope & { readonly scope?: string };

  function refusal(requested: string | undefined): ScopeRefusal {
    try {
      assertScopesAllowed(requested, allowance);
    } catch (err) {
      expect(err).toBeInstanceOf(errors.InvalidScope);
      return err as ScopeRefusal;
    }
    throw new Error(`expected ${requested} to be refused`);
  }

  it('accepts scopes within the allowance, an empty request and no request', () => {
    expect(() => assertScopesAllowed('openid courses:read', allowance)).not.toThrow();
    expect(() => assertScopesAllowed('  openid  openid ', allowance)).not.toThrow();
    expect(() => assertScopesAllowed('', allowance)).not.toThrow();
    expect(() => assertScopesAllowed(undefined, allowance)).not.toThrow();
  });

  it('refuses a scope the catalogue does not know as "not offered"', () => {
    const err = refusal('openid admin:everything');
    expect(err).toMatchObject({ error: 'invalid_scope', status: 400, scope: 'admin:everything' });
    expect(err.error_description).toMatch(/admin:everything is not offered by this server/);
  });

  it('refuses a known scope outside the allowance as "not allowed for this client"', () => {
    const err = refusal('openid courses:write');
    expect(err).toMatchObject({ error: 'invalid_scope', scope: 'courses:write' });
    expect(err.error_description).toMatch(/courses:write is not allowed for this client/);
  });

  it('refuses the whole request rather than trimming the refused scope away', () => {
    const err = refusal('openid profile courses:read courses:write');
    expect(err.scope).toBe('courses:write');
  });

  it('names the first offending scope in request order', () => {
    expect(refusal('courses:write nope:nope').scope).toBe('courses:write');
    expect(refusal('nope:nope courses:write').scope).toBe('nope:nope');
  });

  it('refuses against an empty allowance', () => {
    expect(() => assertScopesAllowed('openid', new Set())).toThrow(errors.InvalidScope);
  });
});

describe('grantableScope: the identity scopes a client may not hold are dropped, nothing else', () => {
  const memberWithoutEmail = new Set(['openid', 'profile', 'account:read']);

  it('drops an identity scope outside the allowance, keeping the order', () => {
    expect(grantableScope('openid profile email', memberWithoutEmail)).toBe('openid profile');
    expect(grantableScope('email account:read openid', memberWithoutEmail)).toBe('account:read openid');
    expect(grantableScope('openid profile email', new Set(['account:read', 'email']))).toBe('email');
  });

  it('leaves a request alone that asks for nothing to drop', () => {
    expect(grantableScope('openid profile account:read', memberWithoutEmail)).toBeUndefined();
    expect(grantableScope(undefined, memberWithoutEmail)).toBeUndefined();
    expect(grantableScope('', memberWithoutEmail)).toBeUndefined();
  });

  it('drops no other scope: those are refused (invalid_scope), never trimmed', () => {
    expect(grantableScope('openid courses:read', memberWithoutEmail)).toBeUndefined();
    expect(grantableScope('openid email courses:read', memberWithoutEmail)).toBe('openid courses:read');
    expect(() => assertScopesAllowed('openid courses:read', memberWithoutEmail)).toThrow(errors.InvalidScope);
  });

  it('drops nothing when nothing would remain: the request is refused naming the scope', () => {
    expect(grantableScope('openid profile email', new Set(['account:read']))).toBeUndefined();
  });

  it('covers every identity scope the protected-resource metadata advertises', () => {
    expect(grantableScope(IDENTITY_SCOPES.join(' '), new Set(['courses:read']))).toBeUndefined();
    expect(grantableScope(`${IDENTITY_SCOPES.join(' ')} courses:read`, new Set(['courses:read']))).toBe('courses:read');
  });
});
