/**
 * A deleted client takes its grants with it: deleting a member client (lib/member-clients)
 * removes only the client record, and a grant of it met later (by the bearer check or by
 * introspection) is revoked there, with every token of it. Whatever is not met expires.
 *
 * @module
 */
import type Provider from 'oidc-provider';

/**
 * Revokes a grant and every token and code of it; a storage failure rejects, so that a caller
 * for whom the revocation is the answer (reuse detection) can answer 503 and be asked again.
 * The Grant goes first: every token needs it (oidc-provider's refresh and introspection, the
 * bearer check), so a revocation cut off after it (on a Cluster, the node of one token lost)
 * has ended the grant even if the token whose reuse started it is gone and a retry finds
 * nothing to revoke.
 */
export async function revokeGrant(provider: Provider, grantId: string): Promise<void> {
  await (await provider.Grant.find(grantId))?.destroy();
  await Promise.all([provider.AccessToken, provider.RefreshToken, provider.AuthorizationCode].map((model) => model.revokeByGrantId(grantId)));
}

/** Revokes a grant whose client no longer exists, and its tokens; best effort. */
export async function revokeOrphanedGrant(provider: Provider, grantId: string): Promise<void> {
  try {
    await revokeGrant(provider, grantId);
  } catch {
    // the token is refused either way; the records expire on their own
  }
}
