/**
 * Revocation of access tokens. Each request revokes a live token, so tokens are prepared
 * before every run: one real login flow gives a template, and the server's bench-only
 * `mintAccessTokens` command stores copies of it through the provider's own model
 * (bench/servers/mint.ts), enough for the run at twice the fastest rate seen so far, or at twice 4k/s when
 * none was faster; what a run leaves unused expires soon after it (mint.ts). RFC 7009 answers
 * 200 for an unknown token too, so a connection that found the pool empty counts its
 * request as an error rather than a success.
 */
import { form, httpWorkload } from '../load/autocannon.ts';
import { memberTokens } from '../lib/token-pool.ts';
import type { Scenario } from '../lib/types.ts';
import { bareProvider } from '../servers/bare-provider.ts';
import { ours } from '../servers/ours.ts';

/**
 * Tokens per second minted at least: the warm-up, the first run, is slow (cold JIT), and a
 * rate taken from it alone left later runs short.
 */
const FLOOR_PER_S = 4_000;
/**
 * Tokens minted per token the fastest run so far would have used: rates move by half on a
 * shared machine, and a run lasts a little longer than its nominal duration.
 */
const HEADROOM = 2;
const SLACK_S = 1;

const scenario: Scenario = {
  id: 'revocation',
  title: 'Revocation',
  unit: 'req/s',
  order: 60,
  ours,
  baselines: [bareProvider],
  usesStorage: true,
  targets: [{ kind: 'ratio', min: 0.9 }],
  method: 'POST /api/oauth/revoke token=<access token>, token_type_hint=access_token, client_id=demo-member-app. '
    + 'Every request revokes a different live token, minted before the run through the provider\'s AccessToken model '
    + 'from a real token (bench/servers/mint.ts). Errors: non-200, or a request sent after the pool ran out.',
  async prepare(server) {
    const [template] = await memberTokens(server, 1);
    let pool: string[] = [];
    // the fastest rate seen in a run so far: a slow warm-up must not starve the runs after it
    let perSecond = 0;
    let sent = 0;
    let firstAt = 0;
    let lastAt = 0;
    return httpWorkload({
      origin: server.origin,
      async beforeRun({ durationS }) {
        if (sent > 1 && lastAt > firstAt) perSecond = Math.max(perSecond, sent / ((lastAt - firstAt) / 1000));
        // the floor before the headroom: after a slow first run (a busy minute of the VM) the
        // next ran at 2.7 times its rate (5,060/s after 1,841/s, 2026-12-07) and emptied a pool
        // sized at the bare floor, twice 1,841/s being below it
        const rate = Math.max(perSecond, FLOOR_PER_S) * HEADROOM;
        pool = await server.command<string[]>('mintAccessTokens', {
          template: template!.access_token, count: Math.ceil(rate * (durationS + SLACK_S)),
        });
        sent = 0;
        firstAt = 0;
      },
      connection() {
        let fresh = true;
        return [{
          ...form({}),
          path: '/api/oauth/revoke',
          setup(request) {
            const token = pool.pop();
            fresh = token !== undefined;
            lastAt = performance.now();
            if (sent++ === 0) firstAt = lastAt;
            return {
              ...request,
              body: new URLSearchParams({ token: token ?? 'pool-exhausted', token_type_hint: 'access_token', client_id: 'demo-member-app' }).toString(),
            };
          },
          verify: () => fresh,
        }];
      },
    });
  },
};

export default scenario;
