/**
 * Who may call a tool. One rule, read by `tools/list` (what is shown), by the HTTP layer
 * (401/403 before the call is run) and by the call itself (checked again inside).
 *
 * @module
 */
import type { PlatformAuthError } from '../../errors.ts';
import { InsufficientScopeError, InvalidTokenError } from '../../errors.ts';
import { noteRefusal, refusalOf } from '../../events/refusals.ts';
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
 * - the other audience: 403 `insufficient_scope` naming no scope: no grant of this client can
 *   help (an operator client asking for a member scope is refused `invalid_scope`), so a
 *   client stepping up to the tool's scopes would loop;
 * - a member token without a site: 401, as at the Account API;
 * - a scope missing: 403 `insufficient_scope` with the tool's scopes (the step-up).
 */
export function refuseCall(tool: ToolAccess, caller: BearerAuth | undefined): PlatformAuthError | undefined {
  if (tool.audience === 'public') return undefined;
  const scope = tool.scopes.join(' ');
  if (!caller) return new ToolAuthenticationRequiredError(tool.name, scope);
  if (caller.audience !== tool.audience) {
    return refused(caller, new InsufficientScopeError('', `the ${tool.name} tool is for ${tool.audience} clients; this token is from ${caller.audience === 'operator' ? 'an operator' : 'a member'} client`), 'wrong_client_type');
  }
  if (tool.audience === 'member' && !caller.site) return refused(caller, new InvalidTokenError('the access token names no site'), 'no_site');
  if (tool.scopes.some((s) => !caller.scopes.has(s))) {
    return refused(caller, new InsufficientScopeError(scope, `the ${tool.name} tool requires the ${scope} scope`), 'missing_scope');
  }
  return undefined;
}

/**
 * One answer for a POST whose calls were refused (a batch holds several): its challenge names
 * every scope the POST's calls need, held or not, as a single call's names its tool's scopes,
 * so a client that steps up once is served (MCP authorization, scope challenges: "servers
 * SHOULD include all scopes required for the current operation in a single challenge"; RFC
 * 6750 §3.1). A refusal no scope can lift (a member token without a site, a tool of the other
 * audience) is answered as it is. `called`: every tool the POST calls; `refusals`: those
 * refused, in order. A POST calling tools of both audiences is refused before this
 * ({@link mixedAudiences}).
 */
export function combinedRefusal(called: readonly ToolAccess[], refusals: readonly PlatformAuthError[]): PlatformAuthError | undefined {
  const [first] = refusals;
  if (!first || called.length === 1) return first;
  const unliftable = refusals.find((error) => !error.scope);
  if (unliftable) return unliftable;
  const needing = called.filter((tool) => tool.audience !== 'public');
  const scope = [...new Set(needing.flatMap((tool) => tool.scopes))].join(' ');
  // no token: every refusal is the 401 that asks for one; with a token, every one is a 403
  if (first instanceof ToolAuthenticationRequiredError) return new ToolAuthenticationRequiredError([...new Set(needing.map((tool) => tool.name))], scope);
  const description = [...new Set(refusals.map((error) => error.description))].join('; ');
  return noteRefusal(new InsufficientScopeError(scope, description), refusalOf(first));
}

/**
 * Why no token could serve this POST, or `undefined`: it calls member tools and operator tools
 * (a 2025-03-26 batch), and every token is one client's, of one audience. Refused as the
 * client's mistake before any challenge: a challenge naming both audiences' scopes leads to
 * an authorization that no client can be granted (each is refused the other's scopes).
 */
export function mixedAudiences(called: readonly ToolAccess[]): string | undefined {
  const byAudience = new Map<McpToolAudience, string[]>();
  for (const tool of called) {
    if (tool.audience !== 'public') byAudience.set(tool.audience, [...(byAudience.get(tool.audience) ?? []), tool.name]);
  }
  if (byAudience.size < 2) return undefined;
  const named = [...byAudience].map(([audience, names]) => `${audience} clients (${[...new Set(names)].join(', ')})`).join(' and tools for ');
  return `the batch calls tools for ${named}; no one token may call both: send them in separate requests, each with its own client's token`;
}

export function mayCall(tool: ToolAccess, caller: BearerAuth | undefined): boolean {
  if (tool.audience === 'public') return true;
  return caller !== undefined
    && caller.audience === tool.audience
    && (tool.audience !== 'member' || caller.site !== undefined)
    && tool.scopes.every((s) => caller.scopes.has(s));
}
