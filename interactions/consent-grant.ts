/**
 * The grant a consent is written to. oidc-provider hands the consent prompt the grant the
 * browser's session already holds for the client (`interaction.grantId`) and lists what it
 * lacks (`details.missing*`); the consent adds those to it.
 *
 * An operator's grant acts at one site, the one chosen on the consent page (lib/grant-context.ts).
 * An operator of several sites who consents again for the same client from the same browser,
 * choosing another site, must not move the earlier grant there: its tokens (a refresh token
 * the integration holds) would then act at a site nobody chose for them, with scopes shown on
 * a page for another site. So consent for another site than the held grant's starts a grant of
 * its own, holding what the request asks for: the page lists every requested scope, whatever
 * the held grant has. The held grant keeps its site and its tokens.
 *
 * A new grant's id is derived from the interaction ({@link newGrantIdFor}): an Allow answered
 * 503 after its grant was stored (the interaction's write failed) and sent again rewrites
 * that grant rather than adding a second one to the member's connected apps.
 *
 * @module
 */
import { createHash } from 'node:crypto';

import type Provider from 'oidc-provider';

type Grant = InstanceType<Provider['Grant']>;
type GrantInit = ConstructorParameters<Provider['Grant']>[0];

/** What oidc-provider's consent prompt says the held grant lacks (`interaction.prompt.details`). */
export interface MissingGrants {
  readonly missingOIDCScope?: readonly string[];
  readonly missingOIDCClaims?: readonly string[];
  readonly missingResourceScopes?: Readonly<Record<string, readonly string[]>>;
}

/**
 * The id of the grant a consent in interaction `uid` starts: the same for every Allow of that
 * interaction, and nothing of the uid (the value of its cookies) readable from it.
 */
export function newGrantIdFor(uid: string): string {
  return createHash('sha256').update(`platform-auth consent grant ${uid}`).digest('base64url');
}

export interface ConsentGrantInput {
  /** the grant the session holds for the client, if any */
  readonly held: Grant | undefined;
  /** the interaction's uid: a new grant's id is derived from it */
  readonly interactionUid: string;
  /** whether `held` may take this consent: no site of its own, or the site chosen now */
  readonly sameSite: boolean;
  readonly accountId: string;
  readonly clientId: string;
  /** the scopes the authorization request asks for */
  readonly requested: readonly string[];
  readonly details: MissingGrants;
}

/**
 * The grant to save for this consent: `held` with what it lacks, or, for another site, a new
 * grant with everything requested. "Everything requested" is what the held grant has of the
 * request plus what it lacks: what the prompt computed against the held grant, without
 * computing the resource servers' scopes again.
 */
export function consentGrant(provider: Provider, input: ConsentGrantInput): Grant {
  const { held, details } = input;
  const grant = held && input.sameSite
    ? held
    // oidc-provider's models take their id as `jti` (models/base_model.js); its typings omit it
    : new provider.Grant({ jti: newGrantIdFor(input.interactionUid), accountId: input.accountId, clientId: input.clientId } as GrantInit);
  const carried = held && !input.sameSite ? held : undefined;
  const requested = new Set(input.requested);

  const oidcScope = [
    ...(carried ? carried.getOIDCScopeFiltered(requested).split(' ').filter(Boolean) : []),
    ...(details.missingOIDCScope ?? []),
  ];
  if (oidcScope.length > 0) grant.addOIDCScope(oidcScope.join(' '));
  if (details.missingOIDCClaims?.length) grant.addOIDCClaims([...details.missingOIDCClaims]);

  // every grant here is for one resource server, `baseUrl` (lib/policies/resource-indicator.ts
  // refuses any other), so the held grant's indicators are the ones this request is for
  const indicators = new Set([...Object.keys(carried?.resources ?? {}), ...Object.keys(details.missingResourceScopes ?? {})]);
  for (const indicator of indicators) {
    const scopes = [
      ...(carried ? carried.getResourceScopeFiltered(indicator, requested).split(' ').filter(Boolean) : []),
      ...(details.missingResourceScopes?.[indicator] ?? []),
    ];
    if (scopes.length > 0) grant.addResourceScope(indicator, scopes.join(' '));
  }
  return grant;
}
