/**
 * What a token says about its account: the claims of the ID token and UserInfo
 * (lib/claims.ts, by scope), and the `org_id` and `roles` an access token carries. The site
 * is the member client's own, or for an operator client the one chosen at consent
 * (lib/grant-context.ts).
 *
 * @module
 */
import { errors } from 'oidc-provider';
import type { Client, FindAccount, KoaContextWithOIDC } from 'oidc-provider';

import { accountClaims } from '../claims.ts';
import type { Account, AccountStore } from '../contracts.ts';
import type { GrantContextStore } from '../grant-context.ts';
import { parseScope } from '../scopes/catalogue.ts';
import type { AnswerKind } from './provider-answer.ts';
import { clientAudience, mayUseSite, memberClientSite, rolesAt } from './audience.ts';

export interface TokenClaimsDeps {
  readonly accounts: AccountStore;
  readonly grantContexts: GrantContextStore;
  /** for tokens minted outside a request (no ctx), e.g. by host tooling */
  readonly findClient: (clientId: string) => Promise<Client | undefined>;
  /** the answers that go out without an ID token (lib/policies/id-tokens.ts): its claims are not gathered */
  readonly withholdsIdToken?: (answer: AnswerKind) => boolean;
  /** `options.operatorRoles`: which roles make an account an operator of a site */
  readonly operatorRoles: readonly string[];
}

/** The site a token of `grantId` speaks for: the member client's, or the one chosen at consent. */
export async function resolveSite(grantContexts: GrantContextStore, client: Client | undefined, grantId: string | undefined): Promise<string | undefined> {
  if (!client) return undefined;
  if (clientAudience(client) === 'member') return memberClientSite(client);
  if (!grantId) return undefined;
  return (await grantContexts.find(grantId))?.orgId;
}

/** oidc-provider's `findAccount`: claims by scope, at the token's site. */
export function createFindAccount(deps: TokenClaimsDeps): FindAccount {
  return async function findAccount(ctx, sub, token) {
    const account = await deps.accounts.findById(sub);
    if (!account) return undefined;
    return {
      accountId: account.id,
      async claims(use, scope) {
        // oidc-provider gathers an ID token's claims before it asks to make the token, which
        // lib/provider/id-token-issuance.ts then skips: for an answer without one (a refresh),
        // no site lookup (a storage read after the tokens were written) for claims nobody gets
        if (use === 'id_token' && deps.withholdsIdToken?.({ route: ctx.oidc.route, grantType: ctx.oidc.params?.grant_type as string | undefined })) {
          return { sub: account.id };
        }
        const site = await resolveSite(deps.grantContexts, ctx.oidc.client, token?.grantId);
        return { ...accountClaims(account, site, new Set(parseScope(scope))) };
      },
    };
  };
}

interface MintedToken {
  readonly kind: string;
  readonly clientId?: string | undefined;
  readonly grantId?: string | undefined;
  readonly accountId?: string | undefined;
}

/** `invalid_grant` for an account that may no longer use the grant's site; the why is its `error_detail`. */
function siteRefused(site: string): Error {
  return new errors.InvalidGrant(`the account no longer has a role at ${site} that this application may act for`);
}

/**
 * Runs before a refresh consumes its token (oidc-provider's `rotateRefreshToken` asks first):
 * refuses the refresh of an account that may no longer use the grant's site, with the token
 * left as it was. Refused later, where the access token is made (below), the token would
 * already be rotated to a successor nobody received, and presenting it again once the role is
 * back would read as reuse and revoke the grant.
 */
export function createSiteCheckBeforeRotation(deps: TokenClaimsDeps) {
  return async function checkSiteBeforeRotation(ctx: KoaContextWithOIDC): Promise<void> {
    const token = ctx.oidc.entities.RefreshToken;
    if (!ctx.oidc.client || !token?.accountId) return;
    const { site, account } = await grantSite(deps, ctx.oidc.client, token.grantId, token.accountId);
    if (site && account && !mayUseSite(ctx.oidc.client, account, site, deps.operatorRoles)) throw siteRefused(site);
  };
}

/**
 * The site a grant's tokens speak for (`undefined`: none) and, when there is one, the account,
 * as the host's store has it now: what a check of {@link mayUseSite} needs.
 */
export async function grantSite(
  deps: Pick<TokenClaimsDeps, 'accounts' | 'grantContexts'>, client: Client | undefined, grantId: string | undefined, accountId: string,
): Promise<{ site?: string; account?: Account }> {
  const site = await resolveSite(deps.grantContexts, client, grantId);
  if (!site) return {};
  return { site, account: await deps.accounts.findById(accountId) };
}

/**
 * oidc-provider's `extraTokenClaims`: an access token carries its site and the account's roles
 * there. Asked for every access token a request issues (a code exchange, a refresh), it also
 * refuses one for an account that may no longer use the grant's site (its role there was
 * removed): `invalid_grant`, before the token is stored. The consent page checked it once; a
 * grant outlives roles, and a refresh token would otherwise mint tokens for the site for as
 * long as it lives. Tokens already issued run out with their lifetime.
 */
export function createExtraTokenClaims(deps: TokenClaimsDeps) {
  return async function extraTokenClaims(ctx: KoaContextWithOIDC | undefined, token: MintedToken) {
    if (token.kind !== 'AccessToken') return undefined;
    const client = ctx?.oidc?.client ?? await deps.findClient(token.clientId!);
    const { site, account } = await grantSite(deps, client, token.grantId, token.accountId!);
    if (!site) return undefined;
    // a code exchange (its code is single-use anyway); a refresh was checked before its rotation
    if (ctx && client && account && !mayUseSite(client, account, site, deps.operatorRoles)) throw siteRefused(site);
    return { org_id: site, roles: account ? rolesAt(account, site) : [] };
  };
}
