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
const ROUTE_CHAIN = '(2026-11-21, HEAD ad51695 plus uncommitted work) consistent, not noise: in the full run at '
  + 'load average 1.5-2 every pair but one sat at 0.84-0.91, and the server CPU per request says the same (full run of '
  + '03:43 UTC: discovery 114 vs 100 µs, introspection 223 vs 197, revocation 222 vs 194, refresh 438 vs 389 on '
  + 'memory). The profiles show no single hot spot: every request to a provider endpoint first crosses the host Koa '
  + 'app and the chain in routes() (storage-outage guard, resource router, interaction router, Account API, /mcp, '
  + 'docs, registration) before dispatch hands it to the provider\'s own Koa app, which wraps it again (outage guard, '
  + 'response shaping). Koa hello measures that chain alone: 30 vs 21 µs per request. On the token endpoint '
  + 'getResourceServerInfo\'s scope policy adds about 2% of the CPU (scopeAllowance, scopesForAudience, '
  + 'canonicalResource recomputed on every call) and extraTokenClaims a little more. Against endpoints of 100-450 µs, '
  + '10-50 µs is the 10-12% that separates 0.88 from 0.9. Cheapest gains: test provider paths first in routes() (one '
  + 'Set lookup, then straight to dispatch, skipping six routers), memoise the scope allowance per client. Both done '
  + 'after that run (commit "perf: provider paths skip the library\'s other routers"); re-profile if a miss remains.';

const RESIDENT_MEMORY = '(2026-11-21, HEAD ad51695) not data the server holds: the JS heap after GC stays flat or '
  + 'shrinks (discovery 37 → 31 MB) while RSS rises 40-50% between the 10k and 100k samples, in bare oidc-provider as '
  + 'much as in ours, and only on requests that reach the provider (ours\' own UserInfo and Koa hello stay flat over '
  + '170k requests). It is not monotonic: in a 365k-request discovery run ours ended at 182 MB, below its 10k sample. '
  + 'Memory kept resident off the JS heap on oidc-provider\'s request path (not malloc arenas: MALLOC_ARENA_MAX=1 and '
  + 'MALLOC_TRIM_THRESHOLD_=0 change nothing); a longer soak is the way to tell it from a slow native leak.';

export const FINDINGS: Readonly<Record<string, string>> = {
  'discovery/rss': RESIDENT_MEMORY,
  'introspection/rss': RESIDENT_MEMORY,
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
    + 'one entry per consenting user for 14 days. Fixed after that run: the per-client grant index is gone (deleting '
    + 'a member client makes its tokens refused everywhere through the client lookup); re-profile if a miss remains.',
  'refresh/redis-vs-memory': '(2026-11-21, HEAD ad51695) measured between 0.48 and 0.91 across runs that day (the '
    + 'memory and Redis runs are minutes apart, so this ratio carries the machine\'s drift); in the full run of 03:43 '
    + 'UTC 0.63, and 0.66 by server CPU per refresh (438 vs 667 µs); bare oidc-provider on the same adapter does no '
    + 'better (0.62). Under '
    + 'profiling a refresh cost the server up to twice the CPU on Redis: 26% of its busy time is inside RedisStore.call, 19% in '
    + 'writeUtf8String alone, i.e. one socket write per command; a refresh sends 3 GET, 3 EVALSHA and 2 MULTI/EXEC '
    + 'blocks (about 10 commands in at least 6 sequential round trips); ioredis itself 7%; redis-server takes another '
    + '10-15% of a core on the same two cores. Experiment: an ioredis client with enableAutoPipelining (passed as '
    + '`client`) raised ours on Redis by about 25% (1.3k to 1.67k req/s), still about 0.6 of memory. Closing the gap '
    + 'needs fewer round trips per refresh (auto-pipelining in the adapter\'s own client, batched reads of a token '
    + 'and its grant) or Redis on cores the server does not share. The adapter\'s own client now auto-pipelines.',
};
