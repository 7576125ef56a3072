/**
 * An authorization request names its scopes. RFC 6749 §3.3 leaves a request without `scope`
 * to the server: use a pre-defined default, or fail with `invalid_scope`. This server fails,
 * before anyone signs in: a default would grant what nobody asked for (an operator client's
 * default is every operator scope), and without one oidc-provider would show an empty consent
 * and then answer `access_denied`. The error redirect carries `state` and `iss` as usual, and
 * its description lists what the client may ask for.
 *
 * @module
 */
import { errors, interactionPolicy } from 'oidc-provider';
import type { Client, KoaContextWithOIDC } from 'oidc-provider';

import { parseScope } from '../scopes/catalogue.ts';

/** The scopes a client may hold (./scope-allowance.ts). */
export type Allowance = (client: Client) => Promise<ReadonlySet<string>>;

/** Throws `invalid_scope` for a request without scopes; never asks for an interaction. */
export async function requireScope(ctx: KoaContextWithOIDC, allowance: Allowance): Promise<false> {
  if (parseScope(ctx.oidc.params?.scope as string | undefined).length > 0) return false;
  const allowed = ctx.oidc.client ? [...await allowance(ctx.oidc.client)].join(' ') : '';
  throw new errors.InvalidScope(allowed
    ? `the request names no scope: ask for the scopes the client needs (it may ask for: ${allowed})`
    : 'the request names no scope: ask for the scopes the client needs', undefined as unknown as string);
}

/** The check, first of the login prompt, so it runs before any sign-in (and for `prompt=none`). */
export function scopeRequiredCheck(allowance: Allowance): InstanceType<typeof interactionPolicy.Check> {
  return new interactionPolicy.Check('scope_required', 'the request names no scope', 'invalid_scope', (ctx) => requireScope(ctx, allowance));
}
