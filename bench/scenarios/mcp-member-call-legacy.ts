/**
 * `/mcp` `tools/call` `list_my_courses` by a member, in MCP 2025-11-25 (no `_meta`
 * envelope), against the v1 SDK's stateless example: see bench/scenarios/mcp-member-call.ts.
 */
import { memberCallScenario } from './mcp-member-call.ts';

export default memberCallScenario('legacy');
