/**
 * Token introspection by the client the tokens were issued to. Nothing is consumed, so a
 * few real tokens are presented round-robin.
 */
import { form, httpWorkload } from '../load/autocannon.ts';
import { memberTokens, roundRobin } from '../lib/token-pool.ts';
import type { Scenario } from '../lib/types.ts';
import { bareProvider } from '../servers/bare-provider.ts';
import { ours } from '../servers/ours.ts';

const scenario: Scenario = {
  id: 'introspection',
  title: 'Introspection',
  unit: 'req/s',
  order: 40,
  ours,
  baselines: [bareProvider],
  usesStorage: true,
  targets: [{ kind: 'ratio', min: 0.9 }],
  method: 'POST /api/oauth/introspect token=<access token>, client_id=demo-member-app (the public client '
    + 'introspects its own tokens); 8 access tokens from real login flows, round-robin. Errors: non-200 or active ≠ true.',
  async prepare(server) {
    const next = roundRobin((await memberTokens(server, 8)).map((t) => t.access_token));
    return httpWorkload({
      origin: server.origin,
      connection: () => [{
        ...form({}),
        path: '/api/oauth/introspect',
        setup: (request) => ({ ...request, body: new URLSearchParams({ token: next(), client_id: 'demo-member-app' }).toString() }),
        verify: (body) => body.includes('"active":true'),
      }],
    });
  },
};

export default scenario;
