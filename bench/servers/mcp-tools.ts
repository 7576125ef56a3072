/**
 * What both `/mcp` baselines (bench/servers/bare-mcp.ts on the v1 SDK, bare-mcp-v2.ts on the
 * v2 SDK) serve: the library's own tool definitions (lib/mcp/tools/public.ts and member.ts:
 * same names, descriptions, zod input schemas and handlers) over the same member-data service
 * and the demo host's seeded data, and the member every member call is answered for. Only the
 * definitions are shared: each baseline registers them with its SDK's `McpServer.registerTool`
 * on a server it builds per request, and lists them with that SDK's own `tools/list`.
 *
 * @module
 */
import { createDemoMemberData } from '../../examples/host/member-data.ts';
import type { Logger } from '../../lib/index.ts';
import { MAX_PAGE_SIZE } from '../../lib/member-data/pagination.ts';
import { createMemberDataService } from '../../lib/member-data/service.ts';
import { memberTools } from '../../lib/mcp/tools/member.ts';
import { publicTools } from '../../lib/mcp/tools/public.ts';
import type { AnyMcpTool, McpToolResult } from '../../lib/mcp/tools/types.ts';
import { toScopes } from '../../lib/resource/bearer.ts';
import type { BearerAuth } from '../../lib/resource/bearer.ts';

export const MCP_PATH = '/mcp';
export const READ_ONLY = Object.freeze({ readOnlyHint: true, openWorldHint: false });
export const quiet: Logger = { info() {}, warn() {}, error: (m) => console.error(m) };

/**
 * What ours' member tools are given after checking a token of the demo member client: Sam
 * Student (`acc-student`) at `demo-school`, the member whose tokens the scenarios present to ours.
 */
export const BENCH_CALLER: BearerAuth = Object.freeze({
  sub: 'acc-student',
  clientId: 'demo-member-app',
  audience: 'member',
  site: 'demo-school',
  roles: ['student'],
  scopes: toScopes(['openid', 'profile', 'email', 'account:read']),
  expiresAt: Math.floor(Date.now() / 1000) + 365 * 24 * 3600,
  grantId: 'bench',
});

/**
 * The tool definitions a baseline serves: the public tools (what ours lists to an anonymous
 * caller), plus the member tools with `member`. Made once per baseline process; servers,
 * registrations and validators are the baseline's to make per request.
 */
export function benchTools(member: boolean): AnyMcpTool[] {
  const service = createMemberDataService(createDemoMemberData(), { maxPageSize: MAX_PAGE_SIZE });
  return [
    ...publicTools({ catalogue: service.catalogue, defaultSite: 'demo-school', maxPageSize: MAX_PAGE_SIZE }),
    ...(member ? memberTools({ service, maxPageSize: MAX_PAGE_SIZE }) : []),
  ];
}

/** Runs a tool's handler for `caller` (the bench member, or anonymous). */
export function runFor(tool: AnyMcpTool, caller: BearerAuth | undefined) {
  return (args: unknown): McpToolResult | Promise<McpToolResult> => (tool.handler as (a: unknown, c: BearerAuth | undefined) => McpToolResult | Promise<McpToolResult>)(args, caller);
}
