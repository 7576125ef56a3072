/**
 * What CPU profiles (`npm run bench -- --profile`, then `node bench/profile-summary.ts`)
 * showed behind a missed target. The results file quotes a note next to the miss it
 * explains, and lists every note of the scenarios it ran, so a reader gets the measured
 * figure and its known cause together.
 *
 * Keys: `<scenario>/<rule>` or `<scenario>/<rule>/<storage>`, rule being `ratio`,
 * `throughput`, `redis-vs-memory` or `rss`. Each note says when and on what code it was
 * profiled: update or delete it when a change moves the bottleneck.
 *
 * @module
 */
const ROUTE_CHAIN = '(2026-11-21, HEAD ad51695 plus uncommitted work) ours costs the server 10-40 µs more CPU per '
  + 'provider request than bare oidc-provider (discovery about 120 vs 110 µs, introspection 250 vs 210, refresh '
  + '490 vs 440 under profiling), with no single hot spot: every request to a provider endpoint first crosses the host '
  + 'Koa app and the chain in routes() (storage-outage guard, resource router, interaction router, Account API, /mcp, '
  + 'docs, registration) before dispatch hands it to the provider\'s own Koa app, which wraps it again (outage guard, '
  + 'response shaping). Koa hello shows the same chain alone at about 10 µs. On the token endpoint, '
  + 'getResourceServerInfo\'s scope policy adds about 2% (scopeAllowance, scopesForAudience, canonicalResource '
  + 'recomputed on every call). Against endpoints of 110-450 µs that is 5-15%, so the 0.9 line sits inside '
  + 'run-to-run noise on this machine. Cheapest gains: test provider paths first in routes() (one Set lookup, then '
  + 'straight to dispatch), memoise the scope allowance per client.';

export const FINDINGS: Readonly<Record<string, string>> = {
  'discovery/ratio': ROUTE_CHAIN,
  'introspection/ratio': ROUTE_CHAIN,
  'refresh/ratio': ROUTE_CHAIN,
  'revocation/ratio': ROUTE_CHAIN,
  'login/throughput': '(2026-11-21, HEAD ad51695 plus uncommitted work) ours\' flows/s falls as the run goes on '
    + 'while the baseline\'s rises: lib/member-clients/grant-index.ts keeps ONE record per member client holding '
    + 'every live grant (14-day TTL), and each consent reads it, copies it (structuredClone in the memory adapter, '
    + 'JSON.parse/stringify on Redis) and writes it back, so a consent costs O(grants the client already holds). '
    + 'Every benchmark flow signs in through demo-member-app: after ~5k flows structuredClone is 30% of the server\'s '
    + 'busy time, ClientGrantIndex.add 27% and list 13% inclusive. A popular member client in production accumulates '
    + 'one entry per consenting user for 14 days. Fix: one key per (client, grant), e.g. a Redis SET and a memory Set, '
    + 'appended to instead of rewritten.',
  'refresh/redis-vs-memory': '(2026-11-21, HEAD ad51695) ours and bare oidc-provider alike run at about half their '
    + 'memory-adapter rate on Redis (both use adapters/redis.ts). The server process is CPU-bound on one core and a '
    + 'refresh costs it about twice the CPU on Redis: 26% of its busy time is inside RedisStore.call, 19% in '
    + 'writeUtf8String alone, i.e. one socket write per command; a refresh sends 3 GET, 3 EVALSHA and 2 MULTI/EXEC '
    + 'blocks (about 10 commands in at least 6 sequential round trips); ioredis itself 7%; redis-server takes another '
    + '10-15% of a core on the same two cores. Experiment: an ioredis client with enableAutoPipelining (passed as '
    + '`client`) raised ours on Redis by about 25% (1.3k to 1.67k req/s), still about 0.6 of memory. Closing the gap '
    + 'needs fewer round trips per refresh (auto-pipelining in the adapter\'s own client, batched reads of a token '
    + 'and its grant) or Redis on cores the server does not share.',
};
