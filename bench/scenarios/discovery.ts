/**
 * Discovery: GET /.well-known/openid-configuration. Never touches storage, so it runs once.
 * Ours computes the document once (lib/policies/discovery-cache.ts); bare oidc-provider per request.
 */
import { httpWorkload } from '../load/autocannon.ts';
import type { Scenario } from '../lib/types.ts';
import { bareProvider } from '../servers/bare-provider.ts';
import { ours } from '../servers/ours.ts';

const scenario: Scenario = {
  id: 'discovery',
  title: 'Discovery GET',
  unit: 'req/s',
  order: 10,
  ours,
  baselines: [bareProvider],
  usesStorage: false,
  targets: [{ kind: 'ratio', min: 0.9 }],
  method: 'GET /.well-known/openid-configuration; 200 expected. Bare oidc-provider builds the document per request; '
    + 'ours serves the provider\'s first answer again, without entering the provider (lib/policies/discovery-cache.ts).',
  async prepare(server) {
    return httpWorkload({
      origin: server.origin,
      connection: () => [{ path: '/.well-known/openid-configuration' }],
    });
  },
};

export default scenario;
