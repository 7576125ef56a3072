/**
 * Full login flows per second, driven over HTTP by bench/load/login-flow.ts.
 */
import { loginFlowWorkload, memberFlow } from '../load/login-flow.ts';
import type { Scenario } from '../lib/types.ts';
import { bareProvider } from '../servers/bare-provider.ts';
import { ours } from '../servers/ours.ts';

const scenario: Scenario = {
  id: 'login',
  title: 'Full login flow',
  unit: 'flows/s',
  order: 20,
  ours,
  baselines: [bareProvider],
  usesStorage: true,
  // the issue holds the flow to an absolute rate; the ratio is reported, not held
  targets: [{ kind: 'throughput', min: 150 }],
  method: 'One flow = GET authorize → sign-in page → POST credentials → consent page → POST allow → '
    + 'callback → POST token (PKCE S256, resource = origin), with a fresh cookie jar; the id_token must be ES256. '
    + 'Concurrency = connections, each virtual user runs flows back to back. Baseline pages: bench/servers/bare-interactions.ts. '
    + 'Every flow uses the same client and account, as a popular app would: per-client or per-account state that grows '
    + 'with each login shows as a rate falling from pair to pair.',
  async prepare(server) {
    return loginFlowWorkload(memberFlow(server.origin));
  },
};

export default scenario;
