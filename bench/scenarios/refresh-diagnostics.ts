/**
 * What diagnostics cost a refresh (lib/events/: events, the per-client trace, metrics): ours
 * as a host runs it (defaults: events on, trace on, metrics through @opentelemetry/api,
 * a no-op without an SDK, as in a host that installed none) against ours with
 * `events: false`, in the same run and on the same storage. The workload is the `refresh`
 * scenario's rotation chains.
 */
import { featureCostScenario } from '../lib/feature-cost.ts';
import { ours, oursNoDiagnostics } from '../servers/ours.ts';
import refresh from './refresh.ts';

export default featureCostScenario({
  id: 'refresh-diagnostics',
  title: 'Refresh grant, diagnostics on vs events: false',
  order: 32,
  ours,
  baseline: oursNoDiagnostics,
  off: 'events: false',
  priced: 'events, the trace and metrics cost a refresh',
  workload: refresh,
});
