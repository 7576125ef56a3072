/**
 * What diagnostics cost a refresh (lib/events/: events, the per-client trace, metrics): ours
 * as a host runs it (defaults: events on, trace on, metrics through @opentelemetry/api,
 * a no-op without an SDK, as in a host that installed none) against ours with
 * `events: false`, in the same run and on the same storage. The workload is the `refresh`
 * scenario's rotation chains.
 */
import type { Scenario } from '../lib/types.ts';
import { ours, oursNoDiagnostics } from '../servers/ours.ts';
import { REFRESH_METHOD, refreshWorkload } from './refresh.ts';

const scenario: Scenario = {
  id: 'refresh-diagnostics',
  title: 'Refresh grant, diagnostics on vs events: false',
  unit: 'req/s',
  order: 32,
  ours,
  baselines: [oursNoDiagnostics],
  usesStorage: true,
  processesPerSide: 2,
  targets: [{ kind: 'ratio', min: 0.97, against: oursNoDiagnostics.id }],
  method: `${REFRESH_METHOD} Both sides are ours (the demo host); the baseline is started with events: false, `
    + 'so the ratio is what events, the trace and metrics cost a refresh (target: ≤ 3%).',
  prepare: async (server) => refreshWorkload(server),
};

export default scenario;
