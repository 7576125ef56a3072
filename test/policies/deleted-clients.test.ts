/**
 * lib/policies/deleted-clients.ts without HTTP: an orphaned grant is revoked with every
 * token of it, best effort.
 */
import type Provider from 'oidc-provider';

import { revokeOrphanedGrant } from '../../lib/policies/deleted-clients.ts';
import { fakeProvider } from './fake-provider.ts';

it('revokes access tokens, refresh tokens and codes by grant id, and destroys the grant', async () => {
  const fake = fakeProvider();
  await revokeOrphanedGrant(fake.provider, 'grant-1');
  expect(fake.revoked).toEqual({ AccessToken: ['grant-1'], RefreshToken: ['grant-1'], AuthorizationCode: ['grant-1'] });
  expect(fake.found).toEqual(['grant-1']);
  expect(fake.destroyed).toBe(1);
});

it('does nothing more when the grant is already gone', async () => {
  const fake = fakeProvider({ grantExists: false });
  await expect(revokeOrphanedGrant(fake.provider, 'grant-1')).resolves.toBeUndefined();
  expect(fake.revoked.AccessToken).toEqual(['grant-1']);
  expect(fake.destroyed).toBe(0);
});

it.each([
  ['revoking tokens', { failRevoke: true }],
  ['finding the grant', { failFind: true }],
  ['destroying the grant', { failDestroy: true }],
])('swallows a storage error while %s', async (_label, failures) => {
  const fake = fakeProvider(failures);
  await expect(revokeOrphanedGrant(fake.provider, 'grant-1')).resolves.toBeUndefined();
});

it('swallows a provider whose models throw synchronously', async () => {
  const broken = { get AccessToken(): never { throw new Error('boom'); } } as unknown as Provider;
  await expect(revokeOrphanedGrant(broken, 'grant-1')).resolves.toBeUndefined();
});
