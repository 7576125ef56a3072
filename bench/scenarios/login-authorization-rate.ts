/**
 * What the authorization-request rate costs a login (lib/policies/authorization-rate.ts): ours
 * as the bench runs it (the rate counted on every authorization request, its budget raised out
 * of the load generator's reach) against ours with `authorizationRateLimit: false`, in the
 * same run and on the same storage. The workload is the `login` scenario's full flow, which
 * makes one authorization request (the resumptions after sign-in and consent are not counted).
 */
import { loginFlowWorkload, memberFlow } from '../load/login-flow.ts';
import type { Scenario } from '../lib/types.ts';
import { ours, oursNoAuthorizationRate } from '../servers/ours.ts';

const scenario: Scenario = {
  id: 'login-authorization-rate',
  title: 'Full login flow, authorization-request rate on vs authorizationRateLimit: false',
  unit: 'flows/s',
  order: 22,
  ours,
  baselines: [oursNoAuthorizationRate],
  usesStorage: true,
  processesPerSide: 2,
  simultaneous: true,
  targets: [{ kind: 'ratio', min: 0.97, against: oursNoAuthorizationRate.id }],
  method: 'The `login` scenario\'s flow (GET authorize → sign-in → consent → callback → token, fresh cookie jar each). '
    + 'Both sides are ours (the demo host); the baseline is started with authorizationRateLimit: false, so the ratio is what '
    + 'counting each authorization request against its address costs a login (target: ≤ 3%).',
  async prepare(server) {
    return loginFlowWorkload(memberFlow(server.origin));
  },
};

export default scenario;
