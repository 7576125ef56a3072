/**
 * A token revoked at the revocation endpoint is removed with its grant, never before it.
 *
 * oidc-provider's revocation deletes the presented token, then revokes its grant (every
 * token of it) in a second step. A storage fault between the two (a dropped connection, a
 * Redis killed after the delete, the Cluster node of the grant's records not answering) was
 * answered 503, and the client's retry, as RFC 7009 §2.2.1 lets it, found no token and was
 * answered 200 with nothing revoked: the grant's other tokens went on working and the app
 * stayed in the member's Connected apps, while the client was told the revocation succeeded.
 *
 * So the presented token's own delete is left out: the grant's revocation that follows
 * deletes it with every other token of the grant (`revokeByGrantId`; on a single Redis one
 * script, so the token and its grant go together or not at all). A revocation cut by a fault
 * leaves the token in place, and the retry finds it and revokes the grant again. A token
 * without a grant is deleted as before. The provider's `destroyed` event is emitted as it
 * would have been (`token.revoked` derives from it). One round trip fewer per revocation on
 * Redis, too: the delete went out on its own before the grant's revocation.
 *
 * The classes are the provider instance's own (`provider.AccessToken`, `provider.RefreshToken`);
 * `destroy` is replaced on their prototypes, as lib/provider/session-rotation.ts does for
 * sessions.
 *
 * @module
 */
import Provider from 'oidc-provider';

interface RevocableToken {
  readonly kind: string;
  readonly grantId?: string;
  emit(event: string): void;
}

interface RevocationContext {
  readonly oidc?: { readonly route?: string; readonly entities?: Readonly<Record<string, unknown>> };
}

/** Makes `provider`'s revocation endpoint remove a token with its grant, not before it. */
export function revokeTokensWithTheirGrant(provider: Provider): void {
  for (const model of [provider.AccessToken, provider.RefreshToken]) {
    const prototype = model.prototype as unknown as { destroy(this: RevocableToken): Promise<void> };
    const destroy = prototype.destroy;
    prototype.destroy = function destroyWithGrant(this: RevocableToken) {
      if (this.grantId && isBeingRevoked(this)) {
        // the grant's revocation, which the provider runs next, deletes it
        this.emit('destroyed');
        return Promise.resolve();
      }
      return destroy.call(this);
    };
  }
}

/** Whether `token` is the one the current request presents at the revocation endpoint. */
function isBeingRevoked(token: RevocableToken): boolean {
  const oidc = (Provider.ctx as RevocationContext | undefined)?.oidc;
  return oidc?.route === 'revocation' && oidc.entities?.[token.kind] === token;
}
