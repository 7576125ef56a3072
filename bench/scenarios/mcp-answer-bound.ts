/**
 * What the bound on the wait for an `/mcp` answer costs a tools/call (lib/mcp/answer-bound.ts:
 * a timer and a race per POST, and what stops the timer when the client leaves): ours as a
 * host runs it (`mcp.answerTimeout` at its default, 30 s) against ours with
 * `mcp.answerTimeout: false`, in the same run and on the same storage, with the
 * `mcp-member-call` workload (MCP 2026-07-28, member token). The bound never runs out here:
 * every call is answered in well under a second, so the ratio is the cost of keeping watch.
 */
import { featureCostScenario } from '../lib/feature-cost.ts';
import { ours, oursNoAnswerBound } from '../servers/ours.ts';
import mcpMemberCall from './mcp-member-call.ts';

export default featureCostScenario({
  id: 'mcp-answer-bound',
  title: '/mcp tools/call (member token, MCP 2026-07-28), answer bound on (30 s) vs mcp.answerTimeout: false',
  order: 83,
  ours,
  baseline: oursNoAnswerBound,
  off: 'mcp.answerTimeout: false',
  priced: 'the answer bound costs a tools/call',
  workload: mcpMemberCall,
});
