/**
 * What an anonymous caller of `/mcp` is shown and may call, as both documents say it: from
 * `options.mcp.advertiseMemberTools` (lib/mcp/tools/registry.ts), which shows it the member
 * tools too, marked as needing sign-in.
 *
 * @module
 */
import type { ResolvedOptions } from '../config/options.ts';
import { SIGN_IN_META_KEY } from '../mcp/tools/registry.ts';

const MEMBER_TOKEN = 'a member token with `account:read` adds the member\'s own tools';

/** markdown, after "a request with no token is": how it is served (a table cell, a rule). */
export function anonymousToolsSummary(options: ResolvedOptions): string {
  return options.mcp.advertiseMemberTools
    ? 'served as anonymous: it may call the public tools only, and its `tools/list` also shows the member tools, marked as needing sign-in'
    : 'served as anonymous, with public tools only';
}

/** markdown: what `tools/list` lists for each caller, and what a call without a token answers. */
export function toolListRule(options: ResolvedOptions): string {
  if (!options.mcp.advertiseMemberTools) {
    return `Without a token the caller is anonymous and sees the public tools only; ${MEMBER_TOKEN}. \`tools/list\` lists only what the caller may call.`;
  }
  return `Without a token the caller is anonymous and may call the public tools only, yet \`tools/list\` also lists the member tools, each marked \`_meta["${SIGN_IN_META_KEY}"]: true\` with its scopes in \`securitySchemes\`: calling one without a token is answered \`401\` with a \`WWW-Authenticate\` challenge naming its \`scope\` (no error code), which is where sign-in starts. With a token, ${MEMBER_TOKEN}, and \`tools/list\` lists only what the caller may call, unmarked.`;
}
