/**
 * What diagnostics cost a member's `/mcp` tools/call (lib/events/: events, the per-client
 * trace, metrics, request ids): ours as a host runs it against ours with `events: false`,
 * in the same run and on the same storage, with the `mcp-member-call` workload (MCP
 * 2026-07-28, member token).
 */
import type { Scenario } from '../lib/types.ts';
import { oursNoDiagnostics } from '../servers/ours.ts';
import { memberCallScenario } from './mcp-member-call.ts';

const call = memberCallScenario('modern');

const scenario: Scenario = {
  ...call,
  id: 'mcp-member-call-diagnostics',
  title: '/mcp tools/call (member token, MCP 2026-07-28), diagnostics on vs events: false',
  order: 82,
  baselines: [oursNoDiagnostics],
  processesPerSide: 2,
  simultaneous: true,
  targets: [{ kind: 'ratio', min: 0.97, against: oursNoDiagnostics.id }],
  method: `${call.method} Here both sides are ours (the demo host); the baseline is started with events: false, `
    + 'so the ratio is what events, the trace and metrics cost a tools/call (target: ≤ 3%).',
};

export default scenario;
