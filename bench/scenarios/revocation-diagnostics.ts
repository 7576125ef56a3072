/**
 * What diagnostics cost a revocation (lib/events/: the token.revoked event, the per-client
 * trace, metrics, and the revoked-token record that lets a later refusal of the token say
 * "revoked" and whose it was, lib/events/revoked-tokens.ts): ours as a host runs it against
 * ours with `events: false`, in the same run and on the same storage, with the `revocation`
 * workload. Of the diagnostics scenarios this is the one where they do the most per request:
 * a refresh or a tools/call writes no record of its own.
 */
import type { Scenario } from '../lib/types.ts';
import { ours, oursNoDiagnostics } from '../servers/ours.ts';
import { REVOCATION_METHOD, revocationWorkload } from './revocation.ts';

const scenario: Scenario = {
  id: 'revocation-diagnostics',
  title: 'Revocation, diagnostics on vs events: false',
  unit: 'req/s',
  order: 62,
  ours,
  baselines: [oursNoDiagnostics],
  usesStorage: true,
  processesPerSide: 2,
  targets: [{ kind: 'ratio', min: 0.97, against: oursNoDiagnostics.id }],
  method: `${REVOCATION_METHOD} Both sides are ours (the demo host); the baseline is started with events: false, `
    + 'so the ratio is what events, the trace, metrics and the revoked-token record cost a revocation (target: ≤ 3%).',
  prepare: async (server) => revocationWorkload(server),
};

export default scenario;
