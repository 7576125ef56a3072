/**
 * Refresh grant with rotation. Every refresh consumes the token it presents, so each
 * connection owns a chain: it starts from a refresh token of a real login flow and sends,
 * each time, the refresh token the previous response returned. Every request is valid and
 * none races another for the same token. Fresh chains are obtained before every run.
 */
import { form, httpWorkload } from '../load/autocannon.ts';
import type { TokenResponse } from '../load/login-flow.ts';
import { memberTokens } from '../lib/token-pool.ts';
import type { RunningServer, Scenario, Workload } from '../lib/types.ts';
import { bareProvider } from '../servers/bare-provider.ts';
import { ours } from '../servers/ours.ts';

const CLIENT_ID = 'demo-member-app';

export const REFRESH_METHOD = 'POST /api/oauth/token grant_type=refresh_token (public member client). One rotation chain per '
  + 'connection, seeded by a real login flow before each run; each request sends the refresh token the '
  + 'previous response returned. Errors: non-200, or a 200 without a new refresh_token. Bare oidc-provider also '
  + 'makes and signs an ES256 ID token for each refresh (it has no setting to skip it); ours sends none (spec §2.3) '
  + 'and makes none (lib/provider/id-token-issuance.ts).';

/** The rotating refresh workload against one server (shared with bench/scenarios/refresh-grace.ts). */
export function refreshWorkload(server: RunningServer): Workload {
  let seeds: TokenResponse[] = [];
  return httpWorkload({
    origin: server.origin,
    async beforeRun({ connections }) {
      seeds = await memberTokens(server, connections);
    },
    connection(index) {
      let refreshToken = seeds[index]!.refresh_token!;
      const base = form({ grant_type: 'refresh_token', client_id: CLIENT_ID, refresh_token: '' });
      return [{
        ...base,
        path: '/api/oauth/token',
        setup: (request) => ({
          ...request,
          body: new URLSearchParams({ grant_type: 'refresh_token', client_id: CLIENT_ID, refresh_token: refreshToken }).toString(),
        }),
        verify(body) {
          const next = (JSON.parse(body) as TokenResponse).refresh_token;
          // a chain must move on: the same token back would mean no rotation happened
          if (!next || next === refreshToken) return false;
          refreshToken = next;
          return true;
        },
      }];
    },
  });
}

const scenario: Scenario = {
  id: 'refresh',
  title: 'Refresh grant (rotating)',
  unit: 'req/s',
  order: 30,
  ours,
  baselines: [bareProvider],
  usesStorage: true,
  // what Redis costs against memory: bench/scenarios/refresh-redis.ts
  targets: [{ kind: 'ratio', min: 0.9 }],
  method: REFRESH_METHOD,
  prepare: async (server) => refreshWorkload(server),
};

export default scenario;
