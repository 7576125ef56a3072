/**
 * oidc-provider makes an ID token for every token answer whose scope has `openid`: it
 * gathers the account's claims, hashes the access token (`at_hash`) and signs (ES256, a
 * crypto job per token). It does so also where the answer rules then take the token out: on
 * refresh (spec §2.3) and, with `idTokens: false`, everywhere (lib/policies/id-tokens.ts,
 * `withholdsIdToken`). Profiles of the refresh bench put about a sixth of a refresh's CPU
 * there, spent on a token nobody receives.
 *
 * The provider offers no setting for it, so its `IdToken` class (the one its grants
 * construct, read from `provider.IdToken` each time) is replaced on this instance by a
 * subclass whose `issue` makes nothing for an ID token of such an answer. Every other use of
 * the class (the ID token of a code exchange, `id_token_hint` validation, JWT answers) is the
 * provider's own. The answer rules stay: should a provider release stop reading the class
 * from the instance, answers are still right, only slower (test/provider/id-token-issuance.test.ts
 * would then fail).
 *
 * @module
 */
import type Provider from 'oidc-provider';

import type { AnswerKind } from '../policies/provider-answer.ts';

type IssueOptions = Parameters<InstanceType<Provider['IdToken']>['issue']>[0];

/** Keeps `provider` from making the ID tokens of the answers `withheld` names. */
export function skipWithheldIdTokens(provider: Provider, withheld: (answer: AnswerKind) => boolean): void {
  const Base = provider.IdToken;
  // named as the provider's: its static `expiresIn` finds the lifetime by class name (`ttl.IdToken`)
  const IdToken = class IdToken extends Base {
    override issue(options: IssueOptions): Promise<string> {
      const oidc = this.ctx?.oidc;
      if (options?.use === 'idtoken' && oidc && withheld({ route: oidc.route, grantType: oidc.params?.grant_type })) {
        // the grant puts no `id_token` in its answer for an undefined one
        return Promise.resolve(undefined as unknown as string);
      }
      return super.issue(options);
    }
  };
  Object.defineProperty(provider, 'IdToken', { value: IdToken, configurable: true });
}
