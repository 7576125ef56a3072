/**
 * Token introspection by the client the tokens were issued to. Nothing is consumed, so a
 * few real tokens are presented, one per connection (a fixed body: see `connectionToken`).
 */
import { form, httpWorkload } from '../load/autocannon.ts';
import { connectionToken, memberTokens } from '../lib/token-pool.ts';
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
    + 'introspects its own tokens); 8 access tokens from real login flows, one per connection. Errors: non-200 or active ≠ true.',
  async prepare(server) {
    const tokens = await memberTokens(server, 8);
    return httpWorkload({
      origin: server.origin,
      connection: (index) => [{
        ...form({ token: connectionToken(tokens, index), client_id: 'demo-member-app' }),
        path: '/api/oauth/introspect',
        verify: (body) => body.includes('"active":true'),
      }],
    });
  },
};

export default scenario;
