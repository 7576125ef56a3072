/**
 * Who may call a tool. One rule, read by `tools/list` (what is shown), by the HTTP layer
 * (401/403 before the call is run) and by the call itself (checked again inside).
 *
 * @module
 */
import type { PlatformAuthError } from '../../errors.ts';
import { InsufficientScopeError, InvalidTokenError } from '../../errors.ts';
import { noteRefusal } from '../../events/refusals.ts';
import type { BearerAuth } from '../../resource/bearer.ts';
import { ToolAuthenticationRequiredError } from '../errors.ts';
import type { McpToolAudience } from './types.ts';

/** The part of a tool the rule reads. */
export interface ToolAccess {
  readonly name: string;
  readonly audience: McpToolAudience;
  readonly scopes: readonly string[];
}

/** `error`, noted with who was refused and why, for `access.refused` (lib/events/refusals.ts). */
function refused(caller: BearerAuth, error: PlatformAuthError, reason: 'wrong_client_type' | 'no_site' | 'missing_scope'): PlatformAuthError {
  return noteRefusal(error, { reason, clientId: caller.clientId, accountId: caller.sub, site: caller.site });
}

/**
 * Why `caller` may not call `tool`, as the error to answer; `undefined` when it may.
 * - no token: 401 `invalid_token`, naming the tool's scopes so the client asks for them;
 * - the other audience: 403 `insufficient_scope` (no grant of this client can help);
 * - a member token without a site: 401, as at the Account API;
 * - a scope missing: 403 `insufficient_scope` with the tool's scopes (the step-up).
 */
export function refuseCall(tool: ToolAccess, caller: BearerAuth | undefined): PlatformAuthError | undefined {
  if (tool.audience === 'public') return undefined;
  const scope = tool.scopes.join(' ');
  if (!caller) return new ToolAuthenticationRequiredError(tool.name, scope);
  if (caller.audience !== tool.audience) {
    return refused(caller, new InsufficientScopeError(scope, `the ${tool.name} tool is for ${tool.audience} clients; this token is from ${caller.audience === 'operator' ? 'an operator' : 'a member'} client`), 'wrong_client_type');
  }
  if (tool.audience === 'member' && !caller.site) return refused(caller, new InvalidTokenError('the access token names no site'), 'no_site');
  if (tool.scopes.some((s) => !caller.scopes.has(s))) {
    return refused(caller, new InsufficientScopeError(scope, `the ${tool.name} tool requires the ${scope} scope`), 'missing_scope');
  }
  return undefined;
}

export function mayCall(tool: ToolAccess, caller: BearerAuth | undefined): boolean {
  if (tool.audience === 'public') return true;
  return caller !== undefined
    && caller.audience === tool.audience
    && (tool.audience !== 'member' || caller.site !== undefined)
    && tool.scopes.every((s) => caller.scopes.has(s));
}
