/**
 * What sign-in throttling costs a login (lib/policies/sign-in-throttle.ts): ours as a host
 * runs it (`signInThrottle` at its defaults) against ours with `signInThrottle: false`, in
 * the same run and on the same storage. The workload is the `login` scenario's full flow;
 * every sign-in succeeds, so the throttle's cost is its check before the password and the
 * reset of the account's counter after it.
 */
import { loginFlowWorkload, memberFlow } from '../load/login-flow.ts';
import type { Scenario } from '../lib/types.ts';
import { ours, oursNoThrottle } from '../servers/ours.ts';

const scenario: Scenario = {
  id: 'login-throttle',
  title: 'Full login flow, sign-in throttle on vs signInThrottle: false',
  unit: 'flows/s',
  order: 21,
  ours,
  baselines: [oursNoThrottle],
  usesStorage: true,
  processesPerSide: 2,
  simultaneous: true,
  targets: [{ kind: 'ratio', min: 0.95, against: oursNoThrottle.id }],
  method: 'The `login` scenario\'s flow (GET authorize → sign-in → consent → callback → token, fresh cookie jar each). '
    + 'Both sides are ours (the demo host); the baseline is started with signInThrottle: false, so the ratio is what '
    + 'the throttle costs a login (target: ≤ 5%).',
  async prepare(server) {
    return loginFlowWorkload(memberFlow(server.origin));
  },
};

export default scenario;
