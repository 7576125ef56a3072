/**
 * A stand-in for the parts of an oidc-provider Provider that revoking an orphaned grant
 * touches (lib/policies/deleted-clients.ts), recording every call.
 */
import type Provider from 'oidc-provider';

export interface FakeProviderOptions {
  readonly grantExists?: boolean;
  readonly failRevoke?: boolean;
  readonly failFind?: boolean;
  readonly failDestroy?: boolean;
}

export function fakeProvider(options: FakeProviderOptions = {}) {
  const revoked: Record<'AccessToken' | 'RefreshToken' | 'AuthorizationCode', string[]> = {
    AccessToken: [], RefreshToken: [], AuthorizationCode: [],
  };
  const found: string[] = [];
  let destroyed = 0;
  const model = (name: keyof typeof revoked) => ({
    async revokeByGrantId(grantId: string) {
      revoked[name].push(grantId);
      if (options.failRevoke) throw new Error('storage down');
    },
  });
  const provider = {
    AccessToken: model('AccessToken'),
    RefreshToken: model('RefreshToken'),
    AuthorizationCode: model('AuthorizationCode'),
    Grant: {
      async find(grantId: string) {
        found.push(grantId);
        if (options.failFind) throw new Error('storage down');
        if (options.grantExists === false) return undefined;
        return {
          async destroy() {
            destroyed += 1;
            if (options.failDestroy) throw new Error('storage down');
          },
        };
      },
    },
  };
  return {
    provider: provider as unknown as Provider,
    revoked,
    found,
    get destroyed() { return destroyed; },
  };
}
