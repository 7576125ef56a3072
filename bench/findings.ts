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
const MCP_MODERN = '(2026-11-24 00:45-00:56 UTC, HEAD 4d0abb3, which has the /mcp routing and abort fixes of f785393; lib/ '
  + 'had no uncommitted changes (an untracked lib/policies/sign-in-throttle.ts of another engineer, imported by nothing); '
  + 'load average 0.0 → 1.7 over the unprofiled run, nothing else running) against the v2 SDK\'s own createMcpHandler '
  + 'building a server per request: tools/list 1.71 (CPU-cost 1.76, 331 vs 576 µs per request), now met; member '
  + 'tools/call 1.12 (CPU-cost 1.20, 554 vs 669 µs), a profiled rerun 1.28 (1.39). Profile of that rerun, in µs per '
  + 'request (ours 689 busy, baseline 828): the two fixes worked, the host chain before /mcp is now ~3 µs (platformAuth '
  + '+ storageOutage guard, under 0.5%) and no abort fires. What ours still pays and the baseline does not: bearer '
  + 'verification 38 µs (5.5% of ours; lib/resource/bearer.ts verify → AccessToken.find, of which 23 µs, 3.3%, is '
  + 'structuredClone in adapters/memory.ts find); isLegacyRequest 29 µs (4.2%, lib/mcp/endpoint.ts serve), a full '
  + 'classification (classifyInboundRequest, zod isJSONRPC* checks) of a request createMcpHandler classifies again '
  + 'inside fetch; async_hooks promise hooks ~28 µs (4%: promiseInitHook, emitInit, before/after hooks), which every '
  + 'promise of the process pays once oidc-provider\'s AsyncLocalStorage (helpers/als.js, als.run per provider request) '
  + 'has run; writeWebResponse 28 µs (4.1%: response.text() 16, header copy through ctx.set 10) where the baseline '
  + 'streams its answer for ~16; readJsonBody 13 µs (1.9%, the baseline\'s @koa/bodyparser costs the same). Not extra: '
  + 'toWebRequest 37 µs against the baseline\'s own Request building (~47). Ours saves GC (70 vs 128 µs) and the '
  + 'baseline\'s serveModern (factory and per-request schema conversion, 77 µs). 1.5× needs ours at ~446 µs, ~110 µs '
  + 'less: about everything listed above. Bench-only experiments that would price each without touching lib: fork the '
  + 'server children with --experimental-async-context-frame (bench/lib/server-process.ts) for the promise-hook tax; '
  + 'a baseline variant that calls isLegacyRequest before handler.fetch for the double classification; the same '
  + 'scenario on Redis (JSON.parse instead of structuredClone) for the memory adapter\'s copy.';

const MCP_LEGACY_CALL = '(2026-11-24 00:45 UTC, HEAD 4d0abb3, same run as the 2026-07-28 note; the legacy path was '
  + 'not profiled again) MCP 2025-11-25 member tools/call against the v1 SDK\'s per-request example: 1.08 by '
  + 'throughput, 1.13 by server CPU (510 vs 580 µs), not the 1.33 of the 2026-11-21 run (15dbd65, lib then on the v1 '
  + 'SDK); legacy tools/list kept its ratio (1.96, CPU-cost 1.96, vs 1.74). Ours\' legacy path runs the same code '
  + 'before serve as the modern one, so the ours-only costs profiled there apply (bearer verification ~38 µs, '
  + 'isLegacyRequest ~29 µs, promise hooks ~28 µs, writeWebResponse\'s copy); on top it connects a '
  + 'WebStandardStreamableHTTPServerTransport per request (handleRequest 10.8% inclusive in the 2026-11-24 profile at '
  + '2d4570c). The v1 baseline\'s per-request server is cheap enough (20.6% of its time at 2d4570c) that skipping it '
  + 'leaves ~1.1-1.2×.';

const REFRESH_GRACE = '(2026-11-24 00:56-01:06 UTC, HEAD 4d0abb3 plus another engineer\'s uncommitted sign-in '
  + 'throttle work in lib/, interactions/ and adapters/ (written at 00:54-00:58; it adds compareAndSet to the adapters and '
  + 'a throttle to the sign-in POST, neither on the refresh request path; the seeding logins passed it); load average '
  + '2.0 → 3.9, another engineer\'s jest e2e test held one of the two cores throughout, so pairs ranged 0.76-1.47) '
  + 'ours with refreshTokenGrace at its default (30 s) against ours with 0 in the same run: memory 0.96 (CPU-cost '
  + '0.97, 5 pairs) and 1.01 (1.00, 9 pairs), within noise of 0.97; Redis 0.97 (0.96) and 0.92 (0.92), and 1612 vs '
  + '1489 µs CPU per refresh (8%) in a profiled run. Profile on Redis: with the grace a rotation replaces one '
  + 'EVALSHA (the adapter\'s consume) by two writes, the rotated token rewritten whole with rotatedAt (SET and the '
  + 'grant-index script in a MULTI/EXEC, adapters/redis.ts upsert) and the RefreshTokenUse record (SET): ioredis '
  + 'transaction exec +71 µs per refresh, RedisStore #attempt +101 µs inclusive, socket writes (writeUtf8String) '
  + '+28 µs, GC +49 µs; the wrapper\'s own code (lib/policies/refresh-grace.ts find/consume) is ~17 µs. On memory the '
  + 'same two writes are cheap and the cost is within the run\'s noise. A cheaper rotation would write the mark and '
  + 'the use record in one script or one transaction.';

const RESIDENT_MEMORY = '(2026-11-21, HEAD ad51695) not data the server holds: the JS heap after GC stays flat or '
  + 'shrinks (discovery 37 → 31 MB) while RSS rises 40-50% between the 10k and 100k samples, in bare oidc-provider as '
  + 'much as in ours, and only on requests that reach the provider (ours\' own UserInfo and Koa hello stay flat over '
  + '170k requests). It is not monotonic: in a 365k-request discovery run ours ended at 182 MB, below its 10k sample. '
  + 'Memory kept resident off the JS heap on oidc-provider\'s request path (not malloc arenas: MALLOC_ARENA_MAX=1 and '
  + 'MALLOC_TRIM_THRESHOLD_=0 change nothing); a longer soak is the way to tell it from a slow native leak.';

/** A profiled cause of a miss, and the commit whose code it was measured on. */
export interface Finding {
  /** `git rev-parse --short HEAD` of the run that was profiled */
  readonly commit: string;
  readonly note: string;
}

/**
 * Quoted next to a miss only when the run under test is on the same commit: a cause
 * measured on older code may since have been removed (bench/lib/targets.ts).
 */
const REFRESH_THIS_ROUND = '(2026-11-24 03:35-04:03 UTC: the bench run (results history 2026-11-24T03-35-17) and a profiled rerun, both on 50b4ad4; '
  + 'load average 0.5 at the start, nothing else running) ours vs bare oidc-provider: memory 0.744 (CPU-cost '
  + '0.751), Redis 0.824 (0.837), down from 0.91 and 0.90 on eb3f867; Redis vs memory 0.765 (0.810 by CPU). Profile of the '
  + 'memory rerun (ours 1,450 vs bare 952 µs CPU per refresh), extra per refresh by function: GC +63 µs; structuredClone '
  + '+44 µs (adapters/memory.ts copies every record it writes and reads: the grace mark and use record, the grant\'s last '
  + 'use for Connected apps, the refresh token read by the grace wrapper); socket writev +30 µs; promise hooks +30 µs; '
  + 'lib/policies/refresh-grace.ts consume +12 µs; lib/events emit and trace entry ~15 µs. The ES256 id_token signature '
  + '(~80 µs) is the same on both. Each rule added this round (grant last use, client expiry, redirect trust, diagnostics) '
  + 'adds a little to every refresh and no single one explains the gap; diagnostics on vs off in the same run were 1.04 '
  + '(memory) and 1.03 (Redis), so not them. Next: a memory adapter that stores records frozen instead of cloning them '
  + 'twice, and one provider middleware instead of the six that each wrap the token endpoint.';

const MCP_MEMBER_CALL_MEMORY = '(2026-11-24 06:30-06:50 UTC, HEAD 5b89285 (lib as of 07c89c6), nothing else running) member '
  + 'tools/call against the v2 SDK\'s own createMcpHandler: on Redis 1.664 (CPU-cost 1.760), met; on memory 1.308 (CPU-cost '
  + '1.372), missed. Ours costs ~650 µs per call on memory and ~470 µs on Redis for the same requests (two runs each, also '
  + 'with Redis measured first, so not the order); the baseline costs the same on both (~850-900 µs, it reads no storage). '
  + 'Profiles of both (same run): the memory adapter\'s own code is 1.6% of ours\' busy time (JSON.parse of the token and its '
  + 'grant, ~11 µs), and GC is lower on memory (8.6% vs 13.7%); what is higher is everything else, roughly uniformly: writev, '
  + 'the SDK\'s per-close SdkError (stack capture), zod, undici\'s Request and Response.json, toIsoInstant. So the gap is not a '
  + 'hot spot of the memory path; not explained yet. Next: a run with --cpu-prof of ours alone on memory vs Redis with the '
  + 'same request count, and --trace-deopt to look for code that deoptimises only when storage answers synchronously '
  + '(the memory adapter resolves in the same tick, Redis a turn later). Runs on memory with this code ranged 1.20-1.31 '
  + 'that morning (5f8bc1d, where records became JSON text instead of structured clones, and 07c89c6).';

const REFRESH_MEMORY = '(2026-11-24 05:25-05:45 UTC, HEAD 5f8bc1d, nothing else running) ours vs bare oidc-provider on '
  + 'refresh: memory 0.756 (CPU-cost 0.771), Redis 0.843 (0.878); Redis vs memory 0.925 (0.976 by CPU), met; the grace '
  + 'on vs off 0.899 (0.906) on memory and 0.968 (0.960) on Redis. Profile of ours vs bare on memory (same run), extra µs '
  + 'per refresh: GC +10; memory adapter writes +5 (set, JSON.stringify of the grace mark, the use record and the grant\'s last '
  + 'use); resource indicator URL parsing +4 (removed in 07c89c6); lib/policies/refresh-grace.ts consume +4.6 (copies of the '
  + 'token record); promise hooks +4; diagnostics (toTraceEntry, emit, record, provider events) ~6.5; then a tail of 1-2 µs '
  + 'items, each provider middleware of ours, header writes, token claims. No single cause: the ~140 µs per refresh between '
  + 'ours (~610 µs) and bare (~470 µs) is spread over some fifty functions. Next: fold the provider middlewares that wrap '
  + 'the token endpoint into one, and write the grace mark without copying the record twice.';

const LOGIN_THROTTLE = '(2026-11-24 04:00 UTC, HEAD e1a5716, nothing else running) ours with the throttle at its defaults '
  + 'against signInThrottle: false on memory: 0.947 by throughput (pairs 0.83-1.01, 3 of 6 reached 0.95), CPU-cost 0.961; '
  + 'the run before 0.935 (0.949) on memory and 1.026 (1.012) on Redis. Profile of ours in that run: the throttle\'s own '
  + 'code (lib/policies/sign-in-throttle.ts #apply and attempt, lib/http/sign-in-throttle.ts, the SHA-256 key hashes) is '
  + '2.1% of the server\'s busy time, i.e. the cost is within the 5% and the throughput miss is the run\'s noise. A '
  + 'returning account costs four compare-and-sets and no reads (cd957a5).';

export const FINDINGS: Readonly<Record<string, Finding>> = {
  'mcp-tools-list/ratio': { commit: '4d0abb3', note: MCP_MODERN },
  'mcp-member-call/ratio': { commit: '5b89285', note: MCP_MEMBER_CALL_MEMORY },
  'mcp-member-call-legacy/ratio': { commit: '4d0abb3', note: MCP_LEGACY_CALL },
  'discovery/rss': { commit: 'ad51695', note: RESIDENT_MEMORY },
  'introspection/rss': { commit: 'ad51695', note: RESIDENT_MEMORY },
  'refresh-grace/ratio': { commit: '4d0abb3', note: REFRESH_GRACE },
  'refresh/ratio': { commit: '5f8bc1d', note: REFRESH_MEMORY },
  'login-throttle/ratio/memory': { commit: 'e1a5716', note: LOGIN_THROTTLE },
  'refresh/redis-vs-memory': { commit: '50b4ad4', note: REFRESH_THIS_ROUND + ' Before this round\'s Redis changes (one script per write, token and grant read together, the rotation in one script): (2026-11-24 00:56 UTC, HEAD 4d0abb3 with the same uncommitted sign-in throttle work as the refresh-grace note, load 2-4 with a jest run on one core) 0.41 by '
    + 'throughput, 0.59 by server CPU (631 vs 1,077 µs per refresh); ours vs bare oidc-provider on the same Redis 1.06 '
    + '(CPU-cost 0.92), so the gap is the storage, not our layer. In the profile of ours on Redis of the same hour '
    + '(refresh-grace run): writeUtf8String 14.8% self, ioredis 7.2%, RedisStore #attempt 15% inclusive, GC 13%. '
    + 'Earlier: (2026-11-21, HEAD ad51695) measured between 0.48 and 0.91 across runs that day (the '
    + 'memory and Redis runs are minutes apart, so this ratio carries the machine\'s drift); in the full run of 03:43 '
    + 'UTC 0.63, and 0.66 by server CPU per refresh (438 vs 667 µs); bare oidc-provider on the same adapter does no '
    + 'better (0.62). Under '
    + 'profiling a refresh cost the server up to twice the CPU on Redis: 26% of its busy time is inside RedisStore.call, 19% in '
    + 'writeUtf8String alone, i.e. one socket write per command; a refresh sends 3 GET, 3 EVALSHA and 2 MULTI/EXEC '
    + 'blocks (about 10 commands in at least 6 sequential round trips); ioredis itself 7%; redis-server takes another '
    + '10-15% of a core on the same two cores. Experiment: an ioredis client with enableAutoPipelining (passed as '
    + '`client`) raised ours on Redis by about 25% (1.3k to 1.67k req/s), still about 0.6 of memory. Closing the gap '
    + 'needs fewer round trips per refresh (auto-pipelining in the adapter\'s own client, batched reads of a token '
    + 'and its grant) or Redis on cores the server does not share. The adapter\'s own client now auto-pipelines.' },
};
