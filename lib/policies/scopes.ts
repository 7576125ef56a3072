/**
 * Scope requests are refused, never trimmed: oidc-provider silently drops scopes that no
 * resource server knows, so every requested scope is checked here first and anything
 * unknown or outside the client's allowance is `invalid_scope` (RFC 6749 §4.1.2.1, §5.2).
 *
 * @module
 */
import { errors } from 'oidc-provider';

import { isKnownScope, parseScope } from '../scopes/catalogue.ts';

export function assertScopesAllowed(requested: string | undefined, clientScope: string | undefined): void {
  const allowance = new Set(parseScope(clientScope));
  for (const scope of parseScope(requested)) {
    if (!isKnownScope(scope)) {
      throw new errors.InvalidScope(`the scope ${scope} is not offered by this server`, scope);
    }
    if (!allowance.has(scope)) {
      throw new errors.InvalidScope(`the scope ${scope} is not allowed for this client`, scope);
    }
  }
}
