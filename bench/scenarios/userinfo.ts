/**
 * UserInfo with a bearer token. Ours serves its own UserInfo (every token is bound to the
 * origin); the bare provider's UserInfo refuses resource-bound tokens, so its tokens are
 * requested without `resource`: each side is measured with the token its UserInfo accepts.
 */
import { httpWorkload } from '../load/autocannon.ts';
import { bearerHeader, memberTokens } from '../lib/token-pool.ts';
import type { Scenario } from '../lib/types.ts';
import { bareProvider } from '../servers/bare-provider.ts';
import { ours } from '../servers/ours.ts';

const scenario: Scenario = {
  id: 'userinfo',
  title: 'UserInfo',
  unit: 'req/s',
  order: 50,
  ours,
  baselines: [bareProvider],
  usesStorage: true,
  targets: [{ kind: 'ratio', min: 0.9 }],
  method: 'GET /api/oauth/userinfo with Authorization: Bearer; 8 access tokens from real login flows, '
    + 'one per connection (the baseline\'s without resource, the only kind its UserInfo accepts). Errors: non-200 or no sub.',
  async prepare(server) {
    const bound = server.target.id !== bareProvider.id;
    const tokens = await memberTokens(server, 8, bound);
    return httpWorkload({
      origin: server.origin,
      connection: (index) => [{
        path: '/api/oauth/userinfo',
        headers: bearerHeader(tokens, index),
        verify: (body) => body.includes('"sub"'),
      }],
    });
  },
};

export default scenario;
