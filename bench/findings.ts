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
const MCP_MODERN = '(2026-11-24, HEAD 2d4570c; lib/ had no uncommitted changes, the working tree had uncommitted '
  + 'changes in bench/, .ci/, scripts/ and test/ only; load average 3 to 9 on 2 cores, other work running) measured '
  + 'against the v2 SDK\'s own createMcpHandler with a server built per request: tools/list 1.31 by throughput, 1.49 by '
  + 'server CPU (453 vs 614 µs per request; a profiled rerun gave 1.55/1.64, so it sits on the threshold), member '
  + 'tools/call 1.17 and 1.20 (726 vs 885 µs). Profiles (share of each server\'s busy time): in the v2 SDK a server per '
  + 'request is cheap. The baseline\'s factory (new McpServer, three or seven registerTool calls, raw shapes wrapped in z.object) is '
  + '3.7-5.4%, and the SDK converting the tools\' zod input schemas to JSON Schema on every request on a fresh server '
  + '(serveModern → toolInputSchemaJson → standardSchemaToJsonSchema → zod toJSONSchema) is 6.7% of a tools/call and '
  + '13.9% of a tools/list: 12-18% in all, about 100-110 µs per request. That is everything the pool saves ours (its '
  + 'servers convert once; ours\' tools/list answers from lib/mcp/tools/registry.ts). Ours then adds: the host chain '
  + 'before /mcp (platformAuth → storageOutage guard → accountApi router, lib/platform-auth.ts:167, 4.2% list, 6.0% call); '
  + 'bearer verification (lib/resource/bearer.ts verify, 4.4%, half of it structuredClone in adapters/memory.ts find); '
  + 'Koa ↔ web conversion (toWebRequest lib/mcp/http.ts:91, 3.7-4.3%; writeWebResponse lib/mcp/http.ts:106, 3.4-3.9%); '
  + 'the AbortController toWebRequest arms with ctx.res.once(\'close\', () => controller.abort()) (lib/mcp/http.ts:101), '
  + 'which fires after every completed response too: a DOMException with a stack (1.4% self) and the abort listeners, '
  + '3.0% of a call and 4.3% of a list; readJsonBody 1.6-2.8%. Common to both sides, the same SDK code: GC 13-17%, the '
  + 'socket writev of the answer 9-15%, Response.json 1.4-1.9%, an SdkError with a stack built on every server close '
  + '(Protocol._onclose, 1.4-2.3%). So against the v2 handler a pool can buy about 1.15-1.2× in CPU before auth: 1.5× '
  + 'would need ours to do less of the SDK\'s own per-request work than the SDK\'s handler does, not only to skip '
  + 'building servers. Cheapest lib gain seen: abort only when the client left before the answer (as '
  + '@modelcontextprotocol/node\'s toNodeHandler does), 3-4%; not enough for 1.5 on tools/call.';

const MCP_LEGACY_CALL = '(2026-11-24, HEAD 2d4570c, same working tree and machine as the 2026-07-28 note) MCP '
  + '2025-11-25 member tools/call against the v1 SDK\'s per-request example: 1.13 by throughput, 1.02 by server CPU '
  + '(720 vs 706 µs), down from 1.33 and 1.24 (562 vs 661 µs) in the run of 2026-11-21 04:07Z (15dbd65, lib on the v1 '
  + 'SDK), so the legacy path has not kept its ratio. Both sides changed: the library\'s tools moved from zod 3 to zod 4, '
  + 'so the v1 baseline now validates zod 4 schemas (661 → 706 µs), and ours\' legacy path grew more (562 → 720 µs; '
  + 'part of that is the busier machine). Profile of ours on this path: the v1 baseline spends 20.6% of its time '
  + 'building its server per request (getServer/registerTool); ours pays the host chain (5.6%), bearer verification '
  + '(4.0%, structuredClone 2.0%), toWebRequest (3.1%) and writeWebResponse (3.3%), the abort fired on every response '
  + 'close (lib/mcp/http.ts:101, 3.1%), the SDK\'s SdkError with a stack on every server close (1.8%), and '
  + 'isLegacyRequest plus the v2 WebStandardStreamableHTTPServerTransport (handleRequest 10.8% inclusive). Removed in '
  + 'the migration: withoutStackTraces (Error.stackTraceLimit = 0 around the transport\'s synchronous dispatch, '
  + 'measured at about 130 → 100 µs of SDK time per request on the v1 SDK); the v2 SDK still builds errors with stacks '
  + 'per request (SdkError, DOMException).';

const RESIDENT_MEMORY = '(2026-11-21, HEAD ad51695) not data the server holds: the JS heap after GC stays flat or '
  + 'shrinks (discovery 37 → 31 MB) while RSS rises 40-50% between the 10k and 100k samples, in bare oidc-provider as '
  + 'much as in ours, and only on requests that reach the provider (ours\' own UserInfo and Koa hello stay flat over '
  + '170k requests). It is not monotonic: in a 365k-request discovery run ours ended at 182 MB, below its 10k sample. '
  + 'Memory kept resident off the JS heap on oidc-provider\'s request path (not malloc arenas: MALLOC_ARENA_MAX=1 and '
  + 'MALLOC_TRIM_THRESHOLD_=0 change nothing); a longer soak is the way to tell it from a slow native leak.';

export const FINDINGS: Readonly<Record<string, string>> = {
  'mcp-tools-list/ratio': MCP_MODERN,
  'mcp-member-call/ratio': MCP_MODERN,
  'mcp-member-call-legacy/ratio': MCP_LEGACY_CALL,
  'discovery/rss': RESIDENT_MEMORY,
  'introspection/rss': RESIDENT_MEMORY,
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
