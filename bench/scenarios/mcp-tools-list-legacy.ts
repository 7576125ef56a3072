/**
 * `/mcp` `tools/list`, anonymous, in MCP 2025-11-25 (no `_meta` envelope), against the v1
 * SDK's stateless example: see bench/scenarios/mcp-tools-list.ts.
 */
import { toolsListScenario } from './mcp-tools-list.ts';

export default toolsListScenario('legacy');
