/**
 * `mintAccessTokens`: copies of a real access token, each in a copy of its grant, stored
 * through the provider's own models, for workloads where every request consumes a token
 * (revocation). Minting tens of thousands over HTTP would take minutes; in-process it takes
 * seconds.
 *
 * Each copy gets a grant of its own because revoking an access token revokes every token
 * of its grant (oidc-provider's revocation calls `revokeByGrantId`): copies sharing the
 * template's grant would all die with the first request, and each later request would
 * revoke nothing. The copies are made from a token and grant the server issued through a
 * real login flow, so every stored field (client, account, scope, audience, grant scopes)
 * is the server's own; only ids and times are new, and `extraTokenClaims` runs again as
 * it does at the token endpoint.
 *
 * @module
 */
import type Provider from 'oidc-provider';

export interface MintRequest {
  /** an access token value this server issued */
  readonly template: string;
  readonly count: number;
}

const TOKEN_FIELDS = ['scope', 'aud', 'expiresWithSession', 'claims'] as const;
const GRANT_FIELDS = ['openid', 'resources', 'rejected', 'rar'] as const;
const BATCH = 200;
/**
 * Lifetime of each copy and its grant: a pool is minted right before the run it is for, and
 * what the run leaves unused (a pool is sized for twice the fastest rate) is of no further
 * use; with an hour's lifetime it stayed in the server's storage (on memory, its heap) for
 * the rest of the scenario. Minting the largest pool takes seconds; a run, 6 s.
 */
const TTL_S = 120;

export function mintAccessTokens(provider: Provider) {
  return async function mint(arg: unknown): Promise<string[]> {
    const { template, count } = arg as MintRequest;
    const source = await provider.AccessToken.find(template);
    const [client, grant] = source
      ? await Promise.all([provider.Client.find(source.clientId!), provider.Grant.find(source.grantId!)])
      : [];
    if (!source || !client || !grant) throw new Error('mintAccessTokens: the template token, its client or its grant is gone');
    const tokenFields: Record<string, unknown> = {};
    for (const key of TOKEN_FIELDS) if (source[key] !== undefined) tokenFields[key] = source[key];
    const grantFields: Record<string, unknown> = {};
    for (const key of GRANT_FIELDS) if (grant[key] !== undefined) grantFields[key] = structuredClone(grant[key]);

    async function mintOne(): Promise<string> {
      const copy = new provider.Grant({ accountId: grant!.accountId!, clientId: grant!.clientId!, ...grantFields });
      // BaseModel.save(ttl) takes the lifetime; oidc-provider's types leave the argument out
      const grantId = await (copy as unknown as { save(ttl: number): Promise<string> }).save(TTL_S);
      const token = new provider.AccessToken({
        ...tokenFields, client: client!, accountId: source!.accountId!, grantId, gty: source!.gty!, expiresIn: TTL_S,
      });
      return token.save();
    }

    const tokens: string[] = [];
    // batches: a Redis adapter gets many commands in flight, memory does not care
    for (let done = 0; done < count; done += BATCH) {
      tokens.push(...await Promise.all(Array.from({ length: Math.min(BATCH, count - done) }, mintOne)));
    }
    return tokens;
  };
}
