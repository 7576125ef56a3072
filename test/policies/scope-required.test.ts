/**
 * lib/policies/scope-required.ts without HTTP: a request without scope is `invalid_scope`
 * (naming what the client may ask for), before any sign-in; a request with one passes. The
 * redirect that carries it is tested in test/interactions/no-scope.test.ts.
 */
import { errors } from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';

import { requireScope, scopeRequiredCheck } from '../../lib/policies/scope-required.ts';

function ctx(scope: string | undefined): KoaContextWithOIDC {
  return { oidc: { params: { scope }, client: { clientId: 'c' } } } as unknown as KoaContextWithOIDC;
}
const allowance = async () => new Set(['openid', 'account:read']);

it('lets a request that names scopes through without asking for anything', async () => {
  await expect(requireScope(ctx('openid account:read'), allowance)).resolves.toBe(false);
  await expect(requireScope(ctx('account:read'), allowance)).resolves.toBe(false);
});

it.each([undefined, '', '   '])('refuses scope %j with invalid_scope, listing the allowance', async (scope) => {
  const refusal = requireScope(ctx(scope), allowance);
  await expect(refusal).rejects.toBeInstanceOf(errors.InvalidScope);
  await expect(refusal).rejects.toMatchObject({
    error: 'invalid_scope',
    error_description: 'the request names no scope: ask for the scopes the client needs (it may ask for: openid account:read)',
  });
  await expect(refusal).rejects.toHaveProperty('scope', undefined);
});

it('says so without an allowance list when the client may hold nothing', async () => {
  await expect(requireScope(ctx(undefined), async () => new Set())).rejects.toMatchObject({
    error_description: 'the request names no scope: ask for the scopes the client needs',
  });
});

it('is a check of its own in the prompt, named for the rule', async () => {
  const check = scopeRequiredCheck(allowance);
  expect(check.reason).toBe('scope_required');
  await expect(check.check(ctx(undefined))).rejects.toBeInstanceOf(errors.InvalidScope);
  expect(await check.check(ctx('openid'))).toBe(false);
});
