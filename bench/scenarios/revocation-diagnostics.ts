/**
 * What diagnostics cost a revocation (lib/events/: the token.revoked event, the per-client
 * trace, metrics, and the revoked-token record that lets a later refusal of the token say
 * "revoked" and whose it was, lib/events/revoked-tokens.ts): ours as a host runs it against
 * ours with `events: false`, in the same run and on the same storage, with the `revocation`
 * workload. Of the diagnostics scenarios this is the one where they do the most per request:
 * a refresh or a tools/call writes no record of its own.
 */
import { featureCostScenario } from '../lib/feature-cost.ts';
import { ours, oursNoDiagnostics } from '../servers/ours.ts';
import revocation from './revocation.ts';

export default featureCostScenario({
  id: 'revocation-diagnostics',
  title: 'Revocation, diagnostics on vs events: false',
  order: 62,
  ours,
  baseline: oursNoDiagnostics,
  off: 'events: false',
  priced: 'events, the trace, metrics and the revoked-token record cost a revocation',
  workload: revocation,
});
