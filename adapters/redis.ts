/**
 * Redis storage (ioredis) shared by every process of a deployment: the production
 * counterpart of adapters/memory, with the same contract (adapters/types.ts).
 *
 * Key layout, all under `keyPrefix` so several deployments can share one Redis:
 *
 * - `<prefix><Model>:{<id>}`: the record, a JSON string, with the record's TTL. A credential's
 *   (an access or refresh token's, a code's) is `<prefix><Model>:{sha256:<base64url>}`, its
 *   JSON with `"jti":true` for the token: no key, value or command holds it (./redis-keys.ts).
 * - `<prefix>index:uid:<Model>:{<uid>}` and `<prefix>index:userCode:<Model>:{<userCode>}`:
 *   the id of the record, with the record's TTL. Lookups re-check the record's own
 *   `uid`/`userCode`, so a stale index entry can never return the wrong record.
 * - `<prefix>index:grant:{<grantId>}`: a SET of the full keys of the grant's records
 *   (only models in GRANTABLE_MODELS). Its TTL is raised to the longest TTL of its
 *   members, so it outlives every record it must be able to revoke.
 *
 * Hash tags (`{...}`) pin each key to a Redis Cluster slot by the id alone, because
 * `find(id)` only knows the id, not the grant. A grant's records therefore live in
 * different slots, and on a Cluster nothing can touch them all in one command or script:
 * there, writes that maintain indexes are separate commands, and revoking a grant (also the
 * one triggered by a replayed `consume`) is SMEMBERS followed by one DEL per key. The grant
 * index and the `Grant` record share the `{<grantId>}` tag, so those two still go together.
 * On a single Redis (the common case) a record and its indexes are written, or destroyed,
 * by one script, and `consume` revokes inside its Lua script, so no request can observe a
 * half-revoked grant. There, too, what is asked for in one turn of the event loop goes as one
 * command: the record writes as one script, the reads as another (a token read brings its
 * grant along), each sent before any later command, so order is kept. And what every request
 * sends in one iteration of the loop reaches Redis in one socket write (`coalesceWrites`).
 *
 * `consume` is a Lua script, so exactly one of any number of racing callers marks the
 * record consumed; the others see the mark, revoke the grant and reject with
 * `InvalidGrant`. The replayed artefact itself is kept (consumed, until it expires): were
 * it deleted, the racing callers after the first loser would find nothing, and consuming
 * a missing record is a no-op that oidc-provider follows by issuing tokens. The script
 * reads the record with cjson but writes the mark by appending `"consumed":<epoch>` (and the
 * consumer's `"consumedBy"`, given as JSON text) to the stored JSON instead of re-encoding
 * it: cjson turns empty arrays into `{}` and rounds numbers to 14 digits, which would alter
 * the payload.
 * Requires Redis ≥ 6.0 (`SET ... KEEPTTL`). No KEYS or SCAN is ever issued.
 *
 * Connections: with `url`, the adapter owns its client and closes it in `close()`. That
 * client fails fast rather than queueing: while Redis is unreachable every call rejects at
 * once (within `connectTimeout` during a connection attempt), and ioredis keeps reconnecting
 * in the background, so calls succeed again once Redis is back. With `client`, the caller's
 * configuration is used as is and `close()` leaves it open: give it `enableOfflineQueue:
 * false`, `maxRetriesPerRequest: 0`, `autoResendUnfulfilledCommands: false` and a
 * `commandTimeout`, or calls wait in ioredis' queue while Redis is away and a command whose
 * reply was lost with its connection is run again (for a Cluster, `enableOfflineQueue: false`,
 * `retryDelayOnFailover: 0` and `slotsRefreshInterval: 1000`, and the rest in `redisOptions`:
 * README "Redis Cluster"; its hash tags are handled here).
 *
 * Bounded waits: every call of this adapter settles within 3 s (`CALL_TIMEOUT_MS`), whatever
 * the client: a Redis or Cluster node that accepts connections but does not answer (paused,
 * overloaded, a network that drops packets) makes it reject with `StorageUnavailableError`
 * ('redis: timeout') after 3 s at most, so a request that needs storage is answered 503
 * within about 3 s: on a single Redis, once a call timed out, the calls after it fail at once
 * until Redis answers again (a PING is sent every 100 ms meanwhile), so a request that makes
 * several calls in a row waits 3 s once, not once per call. On a Cluster each call keeps its own
 * 3 s (one node may be stuck while the others answer), until the Cluster fails that node
 * over. ioredis' own `commandTimeout` cannot promise this with auto-pipelining:
 * commands issued while a pipeline is stuck wait for it unsent, and their timeout only
 * starts once they are written. ioredis still holds commands that timed out here: Redis may
 * run them once it answers again (a write that timed out may have been applied, as with any
 * lost reply), and later calls are bounded all the same.
 *
 * Errors: a call that cannot reach Redis (connection refused, reset or closed, timed out,
 * retries exhausted, no Cluster node reachable or slots cache not refreshed, or a reply such
 * as LOADING, READONLY, CLUSTERDOWN, TRYAGAIN, MOVED, ASK, OOM that says "not now" or "ask
 * elsewhere", which ioredis hands over instead of following during a Cluster failover or
 * resharding when auto-pipelining) rejects with `StorageUnavailableError`, which the library
 * answers with 503 `temporarily_unavailable`. Other errors (a corrupt record, a script bug,
 * CROSSSLOT) are left as they are.
 *
 * @module
 */
import { Redis } from 'ioredis';
import type { Cluster } from 'ioredis';
import { errors } from 'oidc-provider';

import { grantIndexKeyOf, isCredentialModel, keyIdOf, recordKeyOf, storedJson, withId } from './redis-keys.ts';
import { checkUrlOrClient, connectionFailure, redisAddress } from './redis-url.ts';
import { GRANT_CONTEXT_MODEL, GRANTABLE_MODELS, spendsFor, StorageUnavailableError } from './types.ts';
import type {
  Adapter, AdapterPayload, BudgetSpent, CappedList, ClosableAdapterFactory, CompareAndSet, ConsumeAndKeep, FindSpending, FoundSpending, GrantSpend,
  LatestByMember, LatestEntry, PutRecords, RecordWrite, SpendBudget,
} from './types.ts';

/** What the options of {@link RedisAdapterOptions} are when left out (written once). */
export const REDIS_ADAPTER_DEFAULTS = Object.freeze({ keyPrefix: 'platform-auth:', coalesceWrites: true });

/**
 * An ioredis client of another copy or major than the adapter's own ioredis 5: what
 * `npm install ioredis` gives a host today is ioredis 6, whose `Redis` TypeScript does not
 * take as the adapter's (a class from another package, RESP3 by default). The adapter uses
 * only what both majors offer, and its contract suite passes on an ioredis 6 `Redis` speaking
 * RESP3 and on an ioredis 6 `Cluster` (test/adapters/redis-ioredis6.test.ts); its failover
 * behaviour is tested with ioredis 5 (ioredis 6 follows MOVED/ASK inside auto-pipelines itself).
 */
export interface IoRedisClient {
  readonly isCluster: boolean;
  readonly status: string;
  readonly options: { readonly keyPrefix?: string | undefined };
  defineCommand(name: string, definition: { lua: string; numberOfKeys?: number; readOnly?: boolean }): void;
  disconnect(): void;
}

export interface RedisAdapterOptions {
  /**
   * An existing ioredis client or Cluster (ioredis 5 or 6), left open by `close()`. It must
   * not use ioredis' own `keyPrefix` option (keys are also stored inside the grant index and
   * built inside Lua, where ioredis would not prefix them): use `keyPrefix` below.
   */
  client?: Redis | Cluster | IoRedisClient | undefined;
  /** A `redis://` or `rediss://` URL: the adapter creates, owns and closes the client. */
  url?: string | undefined;
  /**
   * Prefix of every key written.
   * @default {@link REDIS_ADAPTER_DEFAULTS}.keyPrefix
   */
  keyPrefix?: string;
  /**
   * On a single Redis, the commands sent in one iteration of the event loop (by every
   * request it serves) go to Redis in one socket write, at its check phase: under
   * concurrent load, far fewer system calls for a delay of at most the rest of the
   * iteration. `false` writes each command at once, as ioredis does. No effect on a Cluster.
   * @default {@link REDIS_ADAPTER_DEFAULTS}.coalesceWrites
   */
  coalesceWrites?: boolean;
  /**
   * Where the client created from `url` reports its connection: one warning when Redis
   * becomes unreachable, one line when it is back. Host, port and an error code only. Also
   * where a single Redis that evicts keys is reported, once, for either kind of client.
   * @default console
   */
  logger?: ConnectionLogger | undefined;
}

export interface ConnectionLogger {
  info(message: string): void;
  warn(message: string): void;
}

/** How long a connection attempt, and so a call made during one, may take. */
const CONNECT_TIMEOUT_MS = 2_000;
/**
 * How long ioredis waits for the reply to a command it has sent (the owned client only), so
 * that its queue of commands awaiting replies does not grow without bound while Redis is stuck.
 */
const COMMAND_TIMEOUT_MS = 3_000;
/**
 * How long any call may take, connection wait and queueing included: the bound the module
 * comment documents. Calls that do not settle in time reject with StorageUnavailableError.
 */
const CALL_TIMEOUT_MS = 3_000;
/**
 * How often the calls under way are checked against their deadline. One shared check rather
 * than a timer and a race per call (~4 promises and a timer-list insertion each, on every
 * command): a call is given CALL_TIMEOUT_MS minus one interval, so it settles within
 * CALL_TIMEOUT_MS all the same.
 */
const DEADLINE_CHECK_MS = 100;
/**
 * Once a call timed out on a single Redis, the store is stalled: calls fail at once, and one
 * PING at a time (this often while none is answered) asks whether Redis answers again. A
 * request makes several storage calls in a row (a resume: the interaction, then the session
 * saved twice), and without this each waited its own 3 s: 9 s, not the documented 3 s.
 */
const STALL_PROBE_INTERVAL_MS = 100;
/** The least time between two asks for a Cluster's slots after calls timed out (see #refreshSlots). */
const SLOTS_REFRESH_MIN_MS = 1_000;
/** ioredis' message when a sent command got no reply within `commandTimeout` (built/Command.js). */
const COMMAND_TIMED_OUT = 'Command timed out';

const epoch = () => Math.floor(Date.now() / 1000);

// Deletes a grant's records (but keepKey), its index and its Grant record. Shared below.
// Member keys are not declared in KEYS: fine on a single Redis, and these scripts are only
// used there (see the module comment).
const REVOKE_FUNCTION = `
local function revoke(indexKey, grantKey, keepKey)
  local members = redis.call('SMEMBERS', indexKey)
  local doomed = {}
  for i = 1, #members do
    if members[i] ~= keepKey then doomed[#doomed + 1] = members[i] end
  end
  for i = 1, #doomed, 500 do
    redis.call('DEL', unpack(doomed, i, math.min(i + 499, #doomed)))
  end
  redis.call('DEL', indexKey, grantKey)
end
`;

// Adds a member key to a grant index. The index must live as long as its longest-lived
// member: never shorten its TTL. ttl is seconds, or '' for a member that does not expire.
const INDEX_GRANT_FUNCTION = `
local function indexGrant(indexKey, memberKey, ttl)
  local existed = redis.call('EXISTS', indexKey)
  redis.call('SADD', indexKey, memberKey)
  if ttl == '' then
    redis.call('PERSIST', indexKey)
    return
  end
  local seconds = tonumber(ttl)
  if existed == 0 then
    redis.call('EXPIRE', indexKey, seconds)
  else
    local current = redis.call('TTL', indexKey)
    if current >= 0 and current < seconds then redis.call('EXPIRE', indexKey, seconds) end
  end
end
`;

// KEYS[1] record; ARGV[1] epoch seconds, ARGV[2] key prefix, ARGV[3] '1' to revoke (and index)
// here, ARGV[4] seconds to keep a record consumed now, or '' to keep its TTL, ARGV[5] '1' when
// the model's records are in their grant's index, ARGV[6] the consumer's mark as JSON text
// (a string), written as `consumedBy` with the consume mark, or '' for none.
// Returns {0} missing, {1} consumed now ({1, grantId} when its index is left to the caller),
// {2, grantId} already consumed (replay).
const CONSUME_LUA = `${REVOKE_FUNCTION}${INDEX_GRANT_FUNCTION}
local raw = redis.call('GET', KEYS[1])
if not raw then return {0} end
if string.sub(raw, 1, 1) ~= '{' then return redis.error_reply('stored record is not a JSON object') end
local ok, payload = pcall(cjson.decode, raw)
if not ok then
  -- lua-cjson refuses an unpaired surrogate escape (\\ud800), which JSON.stringify writes for a
  -- lone surrogate in a host's value. Only consumed and grantId are read here: a copy with such
  -- escapes replaced is decoded for them, and the record is marked as stored
  ok, payload = pcall(cjson.decode, (string.gsub(raw, '\\\\[uU][dD][89a-fA-F]%x%x', '\\\\ufffd')))
  if not ok or type(payload) ~= 'table' then return redis.error_reply('stored record is not valid JSON') end
end
local consumed = payload.consumed
if consumed ~= nil and consumed ~= cjson.null and consumed ~= false and consumed ~= 0 and consumed ~= '' then
  local grantId = payload.grantId
  if type(grantId) ~= 'string' or grantId == '' then return {2} end
  if ARGV[3] == '1' then
    revoke(ARGV[2] .. 'index:grant:{' .. grantId .. '}', ARGV[2] .. 'Grant:{' .. grantId .. '}', KEYS[1])
  end
  return {2, grantId}
end
local mark = '"consumed":' .. ARGV[1]
if ARGV[6] ~= '' then mark = mark .. ',"consumedBy":' .. ARGV[6] end
local marked
if raw == '{}' then
  marked = '{' .. mark .. '}'
else
  -- JSON.parse keeps the last of duplicate keys, so this also overrides a stored null/false
  marked = string.sub(raw, 1, -2) .. ',' .. mark .. '}'
end
if ARGV[4] == '' then
  redis.call('SET', KEYS[1], marked, 'KEEPTTL')
  return {1}
end
redis.call('SET', KEYS[1], marked, 'EX', ARGV[4])
-- the index must outlive the record it now keeps longer (as an upsert would extend it)
local grantId = payload.grantId
if ARGV[5] == '1' and type(grantId) == 'string' and grantId ~= '' then
  if ARGV[3] ~= '1' then return {1, grantId} end
  indexGrant(ARGV[2] .. 'index:grant:{' .. grantId .. '}', KEYS[1], ARGV[4])
end
return {1}
`;

// KEYS[1] grant index, KEYS[2] Grant record; ARGV[1] a member key to keep, or ''.
const REVOKE_LUA = `${REVOKE_FUNCTION}
revoke(KEYS[1], KEYS[2], ARGV[1])
return 1
`;

// KEYS[1] grant index; ARGV[1] member key, ARGV[2] member TTL in seconds or '' for none.
const INDEX_GRANT_LUA = `${INDEX_GRANT_FUNCTION}
indexGrant(KEYS[1], ARGV[1], ARGV[2])
return 1
`;

// Records and their indexes in one script (single Redis only: the keys are in different
// Cluster slots). One command instead of MULTI, SET, index writes and EXEC per record, and
// one for all the records written in one turn (a refresh writes its access and refresh
// token together): on a shared machine each command's client-side cost counts.
// From ARGV[first]: the number of records; then, per record, five ARGV: how many KEYS are its
// own, its JSON, its TTL in seconds or '', its id, and '1' if its last key is a grant index.
// Its KEYS, in turn from KEYS[1]: the record, its uid/userCode index keys, then the grant
// index if any. Returns the index of the first KEYS and of the first ARGV after them.
const UPSERT_FUNCTION = `
local function upsertRecords(first)
  local k, a = 1, first + 1
  for _ = 1, tonumber(ARGV[first]) do
    local count, ttl, grant = tonumber(ARGV[a]), ARGV[a + 2], ARGV[a + 4] == '1'
    local last = k + count - 1
    if grant then last = last - 1 end
    for i = k, last do
      local value = ARGV[a + 3]
      if i == k then value = ARGV[a + 1] end
      if ttl == '' then redis.call('SET', KEYS[i], value) else redis.call('SET', KEYS[i], value, 'EX', ttl) end
    end
    if grant then indexGrant(KEYS[k + count - 1], KEYS[k], ttl) end
    k = k + count
    a = a + 5
  end
  return k, a
end
`;

const UPSERT_LUA = `${INDEX_GRANT_FUNCTION}${UPSERT_FUNCTION}
upsertRecords(1)
return 1
`;

// The records asked for before a grant's revocation, then the revocation, in one command
// (single Redis): a revocation answered at the revocation endpoint writes what is left of the
// revoked token (lib/events/revoked-tokens.ts) in the same step. KEYS and ARGV as UPSERT_LUA,
// then KEYS: the grant index and the Grant record; ARGV: a member key to keep, or ''.
const UPSERT_THEN_REVOKE_LUA = `${INDEX_GRANT_FUNCTION}${UPSERT_FUNCTION}${REVOKE_FUNCTION}
local k, a = upsertRecords(1)
revoke(KEYS[k], KEYS[k + 1], ARGV[a])
return 1
`;

// A budget's spend (SpendBudget.spendBudget): its state `tat` is `now` when absent or past;
// when at most `tolerance` ahead of `now` it moves `step` later, kept until then (whole
// seconds, at least one). Returns {1, the new tat} when spent, {0, tat} with nothing
// written, or {-1, the error} when Redis refused the write. Integers to the millisecond stay exact in Lua's doubles; '%.0f' writes them
// without an exponent. Shared below.
const SPEND_FUNCTION = `
local function spendBudget(key, nowArg, toleranceArg, stepArg)
  local now = tonumber(nowArg)
  local tat = now
  local raw = redis.call('GET', key)
  if raw then
    local ok, payload = pcall(cjson.decode, raw)
    if ok and type(payload) == 'table' and type(payload.tat) == 'number' and payload.tat > now then tat = payload.tat end
  end
  if tat - now > tonumber(toleranceArg) then return {0, tat} end
  local nxt = tat + tonumber(stepArg)
  -- a refused write (OOM, READONLY, NOREPLICAS, MISCONF) is this spend's failure alone: in a
  -- batch of reads (FIND_MANY_LUA) an error raised here would fail every read of the batch
  local written = redis.pcall('SET', key, string.format('{"tat":%.0f}', nxt), 'EX', math.max(1, math.ceil((nxt - now) / 1000)))
  if type(written) == 'table' and written.err then return {-1, written.err} end
  return {1, nxt}
end
`;

// A token, the grant it names and that grant's context (the site an operator or MCP client
// acts for, read by the token's claims) in one round trip (single Redis only; their keys are
// derived from the record, so they cannot be declared up front — allowed outside a Cluster).
// Returns {} (absent), {record} or {record, grant or false, context or false}. Read in one
// script, they are one consistent snapshot. With `spend` (FindSpending.findSpending: the
// budget's model, the client, now, tolerance, step), a token of that client also spends one
// step of its grant's budget (the model's record of the grant's id, in the grant's slot),
// appended as {…, 1 or 0, tat}, or {…, -1, the error} when Redis refused the write (which
// fails this read alone). Shared below.
const FIND_WITH_GRANT_FUNCTION = `${SPEND_FUNCTION}
local function findWithGrant(key, prefix, spend)
  local raw = redis.call('GET', key)
  if not raw then return {} end
  local ok, payload = pcall(cjson.decode, raw)
  if not ok or type(payload) ~= 'table' or type(payload.grantId) ~= 'string' or payload.grantId == '' then return {raw} end
  local tag = ':{' .. payload.grantId .. '}'
  local found = {raw, redis.call('GET', prefix .. 'Grant' .. tag), redis.call('GET', prefix .. '${GRANT_CONTEXT_MODEL}' .. tag)}
  if spend and payload.clientId == spend[2] then
    local spent = spendBudget(prefix .. spend[1] .. tag, spend[3], spend[4], spend[5])
    found[4] = spent[1]
    found[5] = spent[2]
  end
  return found
end
`;

// KEYS[1] the record; ARGV[1] the key prefix, then, to spend, ARGV[2..6] as findWithGrant's `spend`.
const FIND_WITH_GRANT_LUA = `${FIND_WITH_GRANT_FUNCTION}
local spend = nil
if ARGV[2] then spend = {ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]} end
return findWithGrant(KEYS[1], ARGV[1], spend)
`;

// The reads asked for in one turn, in one round trip (RedisStore.#sendReads): KEYS the records;
// ARGV[1] the key prefix, ARGV[1 + i] '1' when record i is a token read with its grant, '2'
// when it also spends (its five `spend` arguments follow the kinds, in the order of the reads).
// Returns one entry per key: {} (absent), {record}, or findWithGrant's answer.
const FIND_MANY_LUA = `${FIND_WITH_GRANT_FUNCTION}
local found = {}
local n = #KEYS
local cursor = n + 2
for i, key in ipairs(KEYS) do
  local kind = ARGV[i + 1]
  if kind == '2' then
    found[i] = findWithGrant(key, ARGV[1], {ARGV[cursor], ARGV[cursor + 1], ARGV[cursor + 2], ARGV[cursor + 3], ARGV[cursor + 4]})
    cursor = cursor + 5
  elseif kind == '1' then
    found[i] = findWithGrant(key, ARGV[1], nil)
  else
    local raw = redis.call('GET', key)
    found[i] = raw and {raw} or {}
  end
end
return found
`;

// A record and its index entries in one step (single Redis only; the index keys are derived
// from the record, as FIND_WITH_GRANT_LUA's are): before, a GET for the indexes the record
// names, then a MULTI with the deletions, two round trips of every revocation, logout and
// finished interaction. KEYS[1] the record; ARGV[1] the key prefix, ARGV[2] the model,
// ARGV[3] the id, ARGV[4] '1' when the model's records are in their grant's index. A uid or
// user-code index is deleted only if it still names this record (DELETE_IF_EQUALS_LUA).
const DESTROY_LUA = `
local raw = redis.call('GET', KEYS[1])
if not raw then return 0 end
redis.call('DEL', KEYS[1])
local ok, payload = pcall(cjson.decode, raw)
if not ok or type(payload) ~= 'table' then return 1 end
local function named(value) return type(value) == 'string' and value ~= '' end
for _, kind in ipairs({'uid', 'userCode'}) do
  local value = payload[kind]
  if named(value) then
    local key = ARGV[1] .. 'index:' .. kind .. ':' .. ARGV[2] .. ':{' .. value .. '}'
    if redis.call('GET', key) == ARGV[3] then redis.call('DEL', key) end
  end
end
if ARGV[4] == '1' and named(payload.grantId) then
  redis.call('SREM', ARGV[1] .. 'index:grant:{' .. payload.grantId .. '}', KEYS[1])
end
return 1
`;

// A lookup by uid or user code: the index entry and the record it names in one round trip
// (single Redis only; the record's key is derived from the entry, as FIND_WITH_GRANT_LUA's
// keys are). oidc-provider finds an interaction's session by its uid in interactionDetails
// and again in interactionResult, once the member has signed in: three lookups per login
// flow (the consent page, then its submission). KEYS[1] the index; ARGV[1] the key prefix,
// ARGV[2] the model. Returns the record's JSON, or nil. The caller checks that the record
// still has this uid: an entry may outlive its record's change.
const FIND_BY_INDEX_LUA = `
local id = redis.call('GET', KEYS[1])
if not id then return false end
return redis.call('GET', ARGV[1] .. ARGV[2] .. ':{' .. id .. '}')
`;

// KEYS[1] index key; ARGV[1] id. Deletes the index entry only if it still names this
// record: a newer record may have taken over the uid (Session.resetIdentifier).
const DELETE_IF_EQUALS_LUA = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

// KEYS[1] record; ARGV[1] the expected JSON ('' absent), ARGV[2] the new JSON ('' delete),
// ARGV[3] TTL in seconds or '' for none. One key: atomic on a Cluster too.
const COMPARE_AND_SET_LUA = `
local current = redis.call('GET', KEYS[1])
if (current or '') ~= ARGV[1] then return 0 end
if ARGV[2] == '' then
  redis.call('DEL', KEYS[1])
elseif ARGV[3] == '' then
  redis.call('SET', KEYS[1], ARGV[2])
else
  redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
end
return 1
`;

// KEYS[1] a budget's record {tat}; ARGV[1] now, ARGV[2] the tolerance, ARGV[3] the step, in
// epoch milliseconds (SpendBudget.spendBudget). One key: atomic on a Cluster too.
const SPEND_BUDGET_LUA = `${SPEND_FUNCTION}
local spent = spendBudget(KEYS[1], ARGV[1], ARGV[2], ARGV[3])
if spent[1] == -1 then return redis.error_reply(spent[2]) end
return spent
`;

// KEYS[1] a capped list; ARGV[1] how many items to keep, ARGV[2] TTL in seconds, ARGV[3..]
// the items, oldest first. Pushed newest first, trimmed and given its lifetime in one step:
// one key, atomic on a Cluster too, and nothing read back. The lifetime is never shortened:
// EXPIRE only when the key's TTL is lower (a new list's is -1), as `EXPIRE ... GT` would do on
// Redis 7, which Redis 6 has not.
const PUSH_CAPPED_LUA = `
for i = 3, #ARGV do redis.call('LPUSH', KEYS[1], ARGV[i]) end
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[1]) - 1)
if redis.call('TTL', KEYS[1]) < tonumber(ARGV[2]) then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return 1
`;

// KEYS[1] a sorted set (member → time), KEYS[2] a hash (member → payload), one index in one
// slot; ARGV[1] how many members to keep, ARGV[2] TTL in seconds, then member, time (ms),
// payload for each entry. A member's payload is replaced only by a newer one; the oldest
// members beyond the cap are dropped from both; both get the lifetime.
const PUT_LATEST_LUA = `
for i = 3, #ARGV, 3 do
  local kept = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if not kept or tonumber(kept) < tonumber(ARGV[i + 1]) then
    redis.call('ZADD', KEYS[1], ARGV[i + 1], ARGV[i])
    redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 2])
  end
end
local extra = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[1])
if extra > 0 then
  local dropped = redis.call('ZRANGE', KEYS[1], 0, extra - 1)
  redis.call('ZREMRANGEBYRANK', KEYS[1], 0, extra - 1)
  for _, member in ipairs(dropped) do redis.call('HDEL', KEYS[2], member) end
end
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call('EXPIRE', KEYS[2], ARGV[2])
return 1
`;

// KEYS as PUT_LATEST_LUA: the payloads, the most recent member first, in one snapshot.
const READ_LATEST_LUA = `
local payloads = {}
for i, member in ipairs(redis.call('ZREVRANGE', KEYS[1], 0, -1)) do
  payloads[i] = redis.call('HGET', KEYS[2], member)
end
return payloads
`;

// the status is a string from a client with ioredis' `stringNumbers`
type Consumed = [status: 0 | '0'] | [status: 1 | 2 | '1' | '2', grantId?: string];

// Replies meaning "not now" rather than "wrong": loading a dataset after a restart, a
// replica that cannot take writes after a failover, a cluster resharding or failing over
// (including the MOVED/ASK redirections ioredis hands over from an auto-pipeline instead of
// following them), memory full, persistence failing, a script running too long.
const TRANSIENT_REPLY = /^(?:LOADING|BUSY|READONLY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|MOVED|ASK|OOM|MISCONF|NOREPLICAS)\b/;

// Before Redis 7 an error raised by a command inside a script came back wrapped, e.g.
// "ERR Error running script (call to f_<sha>): @user_script:4: @user_script: 4: -OOM command
// not allowed …" or "… -READONLY You can't write against a read only replica." (a Redis 6
// replica promoted from under the script's connection). Redis 7 passes the reply on as it is.
const SCRIPT_WRAPPED_REPLY = /^ERR Error running script \(call to f_[0-9a-f]+\): (?:@\w+: ?\d+: )*-(.*)$/s;

/** A reply's own text: a pre-7 script's wrapped reply unwrapped, anything else as it is. */
function replyText(message: string): string {
  return SCRIPT_WRAPPED_REPLY.exec(message)?.[1] ?? message;
}

// ioredis' own refusal of a command whose keys are in different slots: CROSSSLOT, a bug
const CROSS_SLOT_MESSAGE = /^All the keys in a pipeline command should belong to the same slot/;

/** A frame of ioredis' auto-pipelining module in a stack (see toStorageError). */
const AUTO_PIPELINING_FRAME = /[\\/]ioredis[\\/]built[\\/]autoPipelining\.js/;

/** A spend's reply ({1 or 0, tat}) as {@link BudgetSpent}; strings from a client with ioredis' `stringNumbers`. */
const budgetSpentOf = (spent: number | string, tat: number | string | undefined): BudgetSpent => ({ spent: Number(spent) === 1, tat: Number(tat) });

/** A read's payload as it is (RedisStore.getWithGrant's answer). */
const payloadOf = (payload: AdapterPayload | undefined) => payload;

/** A failure to reach Redis as StorageUnavailableError; any other error as it is. */
function toStorageError(error: unknown): unknown {
  if (!(error instanceof Error) || error instanceof errors.OIDCProviderError) return error;
  if (error.name === 'ReplyError') {
    // MULTI refused because a queued command was (EXECABORT): judge by those replies
    const previous = (error as { previousErrors?: unknown[] }).previousErrors;
    const replies = previous?.length ? previous : [error];
    const transient = replies.every((e) => e instanceof Error && TRANSIENT_REPLY.test(replyText(e.message)));
    if (!transient) return error;
    const reply = replies[0] as Error;
    return new StorageUnavailableError(`redis: ${/^\S+/.exec(replyText(reply.message))![0]}`, { cause: error });
  }
  // ioredis' auto-pipelining on a Cluster reads the nodes of the command's slot without a
  // check (`client.slots[slot].join(',')`): a slot no node serves (unassigned while a lost
  // master is replaced, with cluster-require-full-coverage no) is a TypeError there, where
  // the same command without auto-pipelining is answered CLUSTERDOWN
  if (error instanceof TypeError && /^Cannot read propert(?:y|ies) of undefined/.test(error.message) && AUTO_PIPELINING_FRAME.test(error.stack ?? '')) {
    return new StorageUnavailableError('redis: slot not served', { cause: error });
  }
  // programming errors are not outages
  if (error instanceof TypeError || error instanceof RangeError || error instanceof SyntaxError || error instanceof ReferenceError) {
    return error;
  }
  if (CROSS_SLOT_MESSAGE.test(error.message)) return error;
  // connection refused/reset/closed, stream not writeable, command timed out, retries
  // exhausted (MaxRetriesPerRequestError), no cluster node reachable ("None of startup nodes
  // is available", ClusterAllFailedError "Failed to refresh slots cache.", "Cluster isn't
  // ready", "Too many Cluster redirections", slots moved under a pipeline): ioredis'
  // messages for these carry no data
  const code = (error as NodeJS.ErrnoException).code;
  const reason = code ?? (error.name !== 'Error' ? error.name : error.message.slice(0, 100));
  return new StorageUnavailableError(`redis: ${reason}`, { cause: error });
}

interface Scripts {
  platformAuthConsume(key: string, now: number, prefix: string, revokeHere: '0' | '1', keepSeconds: number | '', indexed: '0' | '1', mark: string): Promise<Consumed>;
  platformAuthRevoke(indexKey: string, grantKey: string, keepKey: string): Promise<number>;
  platformAuthCompareAndSet(key: string, expected: string, next: string, ttl: number | ''): Promise<number | string>;
  platformAuthSpendBudget(key: string, now: number, tolerance: number, step: number): Promise<[number | string, number | string]>;
  platformAuthPushCapped(key: string, max: number, ttl: number, ...items: string[]): Promise<number>;
  platformAuthPutLatest(ranks: string, payloads: string, max: number, ttl: number, ...entries: (string | number)[]): Promise<number>;
  platformAuthReadLatest(ranks: string, payloads: string): Promise<(string | null)[]>;
  platformAuthUpsert(numberOfKeys: number, ...keysThenArgs: (string | number)[]): Promise<number>;
  platformAuthUpsertThenRevoke(numberOfKeys: number, ...keysThenArgs: (string | number)[]): Promise<number>;
  platformAuthFindWithGrant(key: string, prefix: string, ...spend: (string | number)[]): Promise<Found>;
  platformAuthFindMany(numberOfKeys: number, ...keysThenArgs: (string | number)[]): Promise<Found[]>;
  platformAuthDestroy(key: string, prefix: string, model: string, id: string, indexed: '0' | '1'): Promise<number>;
  platformAuthFindByIndex(indexKey: string, prefix: string, model: string): Promise<string | null>;
}

/**
 * A record as read (FIND_WITH_GRANT_LUA): absent, alone, or with its grant and that grant's
 * context (null: absent), and, when a spend was asked for and made, whether it was spent and
 * the budget's state (strings from a client with ioredis' `stringNumbers`).
 */
type Found = [record?: string, grant?: string | null, context?: string | null, spent?: number | string, tat?: number | string];

type Client = (Redis | Cluster) & Scripts;
type Command = [name: string, ...args: (string | number)[]];

/** A record write waiting to be sent with the others of its turn (RedisStore.upsertRecord). */
interface QueuedUpsert {
  readonly keys: readonly string[];
  readonly args: readonly (string | number)[];
  resolve(): void;
  reject(error: unknown): void;
}

/** A record read waiting to be sent with the others of its turn (RedisStore.#read). */
interface QueuedRead {
  readonly key: string;
  /** a token, read with its grant and the grant's context (FIND_WITH_GRANT_LUA) */
  readonly withGrant: boolean;
  /** with its grant, a spend of the grant's budget: findWithGrant's five `spend` arguments */
  readonly spend?: readonly (string | number)[] | undefined;
  resolve(found: Found): void;
  reject(error: unknown): void;
}

/** Queued record writes taken together, as KEYS and ARGV of UPSERT_LUA. */
interface UpsertBatch {
  readonly queued: readonly QueuedUpsert[];
  readonly keys: readonly string[];
  readonly args: readonly (string | number)[];
}

/** A call of the store under way, and when it times out (performance.now() time). */
interface PendingCall {
  readonly reject: (error: Error) => void;
  readonly expiresAt: number;
}

/** What a connection's socket offers for holding writes back (net.Socket, tls.TLSSocket). */
interface Corkable {
  cork(): void;
  uncork(): void;
}

/** One client and key space shared by the adapters of every model of one provider. */
class RedisStore {
  readonly client: Client;
  readonly prefix: string;
  readonly isCluster: boolean;
  readonly #owned: boolean;
  /** set by close(), so that closing is not reported as an outage */
  closing = false;

  /** {@link RedisAdapterOptions.coalesceWrites}, on a single Redis */
  readonly #coalescing: boolean;

  /**
   * Whether a call timed out and Redis has not answered since (single Redis only; see
   * STALL_PROBE_INTERVAL_MS). A Cluster's calls go to many nodes, one of which may be stuck
   * while the others answer: each call there keeps its own bound.
   */
  #stalled = false;

  constructor(client: Redis | Cluster, owned: boolean, prefix: string, coalesceWrites: boolean) {
    client.defineCommand('platformAuthConsume', { numberOfKeys: 1, lua: CONSUME_LUA });
    client.defineCommand('platformAuthRevoke', { numberOfKeys: 2, lua: REVOKE_LUA });
    client.defineCommand('platformAuthIndexGrant', { numberOfKeys: 1, lua: INDEX_GRANT_LUA });
    client.defineCommand('platformAuthDeleteIfEquals', { numberOfKeys: 1, lua: DELETE_IF_EQUALS_LUA });
    client.defineCommand('platformAuthCompareAndSet', { numberOfKeys: 1, lua: COMPARE_AND_SET_LUA });
    client.defineCommand('platformAuthSpendBudget', { numberOfKeys: 1, lua: SPEND_BUDGET_LUA });
    client.defineCommand('platformAuthPushCapped', { numberOfKeys: 1, lua: PUSH_CAPPED_LUA });
    client.defineCommand('platformAuthPutLatest', { numberOfKeys: 2, lua: PUT_LATEST_LUA });
    client.defineCommand('platformAuthReadLatest', { numberOfKeys: 2, lua: READ_LATEST_LUA });
    // the number of keys is the first argument: a record has zero to three indexes
    client.defineCommand('platformAuthUpsert', { lua: UPSERT_LUA });
    client.defineCommand('platformAuthUpsertThenRevoke', { lua: UPSERT_THEN_REVOKE_LUA });
    client.defineCommand('platformAuthFindWithGrant', { numberOfKeys: 1, lua: FIND_WITH_GRANT_LUA });
    client.defineCommand('platformAuthFindMany', { lua: FIND_MANY_LUA });
    client.defineCommand('platformAuthDestroy', { numberOfKeys: 1, lua: DESTROY_LUA });
    client.defineCommand('platformAuthFindByIndex', { numberOfKeys: 1, lua: FIND_BY_INDEX_LUA });
    this.client = client as Client;
    this.#owned = owned;
    this.prefix = prefix;
    this.isCluster = client.isCluster;
    this.#coalescing = coalesceWrites && !client.isCluster;
    // a connection made again answers: nothing of the stuck one is left to wait for
    if (!client.isCluster) client.on('ready', this.#connected);
  }

  /** The client's `ready` listener (removed by close(): a client passed in outlives this store). */
  readonly #connected = () => { this.#stalled = false; };

  /**
   * A call timed out: on a single Redis, calls fail at once until it answers a PING (or a
   * call) again; on a Cluster, ioredis is asked where the slots are now (see #refreshSlots).
   */
  #stall(): void {
    if (this.isCluster) {
      this.#refreshSlots();
      return;
    }
    if (this.#stalled) return;
    this.#stalled = true;
    const probe = () => {
      // a client ended (by its owner, for one passed in) answers nothing again
      if (!this.#stalled || this.closing || this.client.status === 'end') return;
      // the client's commandTimeout (ours: 3 s) bounds an unanswered PING
      this.client.ping().then(
        () => { this.#stalled = false; },
        () => { setTimeout(probe, STALL_PROBE_INTERVAL_MS).unref(); },
      );
    };
    probe();
  }

  /** when the Cluster's slots were last asked for (performance.now()) */
  #slotsAskedAt = -Infinity;

  /**
   * A Cluster call timed out: its node may hang (connections open, nothing answered) while the
   * Cluster fails it over. ioredis learns a slot moved only from a MOVED, a closed connection
   * or `slotsRefreshInterval` (off by default), none of which a hung node gives, so every call
   * for its slots would time out until something else refreshed them. Asked at most once a
   * second (SLOTS_REFRESH_MIN_MS); ioredis skips nodes that do not answer within its
   * `slotsRefreshTimeout`.
   */
  #refreshSlots(): void {
    const now = performance.now();
    if (now - this.#slotsAskedAt < SLOTS_REFRESH_MIN_MS || this.closing) return;
    this.#slotsAskedAt = now;
    const cluster = this.client as unknown as { refreshSlotsCache?: (callback?: (error?: Error) => void) => void };
    // a refresh that fails (no node answers) is the outage the calls already report
    cluster.refreshSlotsCache?.(() => {});
  }

  /** A record's key: a credential's under the hash of its id (./redis-keys.ts). */
  recordKey(model: string, id: string): string {
    return this.keyFor(model, keyIdOf(model, id));
  }

  /** The key of the record whose key holds `keyId` as it is: the id an index entry names. */
  keyFor(model: string, keyId: string): string {
    return recordKeyOf(this.prefix, model, keyId);
  }

  indexKey(kind: 'uid' | 'userCode', model: string, value: string): string {
    return `${this.prefix}index:${kind}:${model}:{${value}}`;
  }

  /** A model's capped list (CappedList), apart from its record of the same id. */
  listKey(model: string, id: string): string {
    return `${this.prefix}list:${model}:{${id}}`;
  }

  /** A model's latest-by-member index (LatestByMember): its ranks and its payloads, in one slot. */
  latestKeys(model: string, id: string): [ranks: string, payloads: string] {
    return [`${this.prefix}latest:${model}:{${id}}`, `${this.prefix}latest:${model}:payloads:{${id}}`];
  }

  grantIndexKey(grantId: string): string {
    return grantIndexKeyOf(this.prefix, grantId);
  }

  /**
   * Our client has no offline queue, nor one passed in with the README's settings, so a call
   * made while its connection is still being established would fail although Redis is fine
   * (the first calls after start-up, a client built inline in `createRedisAdapter({ client })`):
   * wait for that attempt, which CONNECT_TIMEOUT_MS bounds. Between attempts (`reconnecting`)
   * calls go through and fail at once.
   */
  ready(): Promise<void> | undefined {
    const { client } = this;
    // a client made with lazyConnect connects at its first command, which without an offline
    // queue it then refuses: connected here, and waited for as any other (its failure is the
    // calls' to report)
    if (client.status === 'wait') client.connect().catch(() => {});
    if (client.status !== 'connecting' && client.status !== 'connect') return undefined;
    // one wait shared by every call made meanwhile: a listener pair per call passed
    // EventEmitter's limit of 10 (a MaxListenersExceededWarning at a busy start)
    this.#connecting ??= new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        client.off('ready', done);
        client.off('close', done);
        this.#connecting = undefined;
        resolve();
      };
      // unref: a wait for a connection keeps no process alive
      const timer = setTimeout(done, CONNECT_TIMEOUT_MS).unref();
      client.once('ready', done);
      client.once('close', done);
    });
    return this.#connecting;
  }

  /** the wait for the connection being established, while there is one (see ready) */
  #connecting: Promise<void> | undefined;

  /**
   * Every use of the client goes through here, so that no outage escapes as anything else,
   * and no call takes longer than CALL_TIMEOUT_MS: with auto-pipelining, a command issued
   * behind a stuck pipeline waits unsent, its commandTimeout not started yet.
   */
  call<T>(operation: (client: Client) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => this.#start(operation, resolve, reject));
  }

  /**
   * call()'s work, answering `resolve` or `reject`: the queued reads are answered this way
   * from their batch's command, with no promise of its own between them and their callers.
   */
  #start<T>(operation: (client: Client) => Promise<T>, resolve: (value: T) => void, reject: (error: unknown) => void): void {
    // commands go out in the order they were asked for: reads or record writes waiting to be
    // sent together go first (a read of a record written in the same turn sees the write).
    // At most one of the two queues holds anything (each sends the other's first).
    if (this.#reads.length > 0) this.#sendReads();
    if (this.#upserts.length > 0) this.#writeUpserts();
    this.#revoking.clear();
    if (this.#stalled) {
      reject(new StorageUnavailableError('redis: timeout'));
      return;
    }
    const call: PendingCall = { reject, expiresAt: performance.now() + CALL_TIMEOUT_MS - DEADLINE_CHECK_MS };
    this.#calls.add(call);
    this.#deadlineCheck ??= setInterval(() => this.#expireCalls(), DEADLINE_CHECK_MS).unref();
    // once timed out, what the command still does is ignored (#expireCalls removed the call)
    const settle = (value: T) => {
      // an answer, even to a call that timed out: Redis answers again
      this.#stalled = false;
      if (this.#calls.delete(call)) resolve(value);
    };
    const fail = (error: unknown) => {
      // the client's own commandTimeout may come first: a timeout all the same
      if (error instanceof Error && error.message === COMMAND_TIMED_OUT) this.#stall();
      if (this.#calls.delete(call)) reject(toStorageError(error));
    };
    // no await (a promise and a turn) on every call once connected
    const connecting = this.ready();
    const run = () => {
      try {
        operation(this.client).then(settle, fail);
      } catch (error) {
        fail(error);
      }
    };
    if (connecting) {
      connecting.then(run, fail);
    } else {
      if (this.#coalescing) this.#coalesceWrites();
      run();
    }
  }

  /**
   * Reads a record (single Redis): with the other reads asked for in this turn, as one
   * command, sent at the end of the turn or before any other command of this store, whichever
   * comes first. oidc-provider's introspection looks a token up as an access and as a refresh
   * token at once, and the grant index reads a grant's link and its account's head together:
   * one round trip each instead of two. Alone, a read is the command it always was.
   */
  #read(key: string, withGrant: boolean, spend?: readonly (string | number)[]): Promise<Found> {
    // record writes asked for before it go first: the read sees them
    if (this.#upserts.length > 0) this.#writeUpserts();
    this.#revoking.clear();
    return new Promise<Found>((resolve, reject) => {
      if (this.#reads.push({ key, withGrant, spend, resolve, reject }) === 1) process.nextTick(() => this.#sendReads());
    });
  }

  /** the connection's socket while it holds this loop iteration's commands (see #coalesceWrites) */
  #corked: Corkable | undefined;

  /**
   * Holds the commands sent in this iteration of the event loop in the socket until its
   * check phase, so that they reach Redis in one write: the commands of concurrent requests
   * answered by the same poll phase (a reply that resumes several requests, several requests
   * arriving together) share one system call instead of one each. On this VM a write to a
   * loopback socket costs 30-50 µs of CPU, more than a refresh's Lua scripts; with 10
   * concurrent logins the demo host's write calls fell from 37.8 to 16.7 per flow, and a
   * refresh on Redis ran 1.00-1.16 times as fast, depending on how quiet the machine was
   * (bench/README, "Write coalescing"). The cost is latency of at most the rest of the
   * iteration, which under no load is nothing.
   *
   * Not on a Cluster (a connection per node, which ioredis' auto-pipelining batches there).
   */
  #coalesceWrites(): void {
    if (this.#corked) return;
    const stream = (this.client as { stream?: Partial<Corkable> }).stream;
    if (typeof stream?.cork !== 'function' || typeof stream.uncork !== 'function') return;
    const corked = stream as Corkable;
    corked.cork();
    this.#corked = corked;
    setImmediate(() => {
      this.#corked = undefined;
      // the socket may have closed meanwhile: uncorking a destroyed socket writes nothing
      corked.uncork();
    });
  }

  /** record reads of this turn not sent yet */
  #reads: QueuedRead[] = [];

  #sendReads(): void {
    const reads = this.#reads;
    if (reads.length === 0) return;
    this.#reads = [];
    if (reads.length === 1) {
      const read = reads[0]!;
      if (read.withGrant) this.#start((client) => client.platformAuthFindWithGrant(read.key, this.prefix, ...(read.spend ?? [])), read.resolve, read.reject);
      else this.#start((client) => client.get(read.key), (raw) => read.resolve(raw === null ? [] : [raw]), read.reject);
      return;
    }
    const keys = reads.map((read) => read.key);
    const kinds = reads.map((read) => (read.spend ? '2' : read.withGrant ? '1' : '0'));
    // the spends' arguments after the kinds, in the order of their reads
    const spends: (string | number)[] = [];
    for (const read of reads) if (read.spend) spends.push(...read.spend);
    this.#start(
      (client) => client.platformAuthFindMany(reads.length, ...keys, this.prefix, ...kinds, ...spends),
      (found) => {
        for (let i = 0; i < reads.length; i += 1) reads[i]!.resolve(found[i] ?? []);
      },
      (error) => {
        for (const read of reads) read.reject(error);
      },
    );
  }

  /**
   * Writes a record and its indexes (single Redis): with the other records written in this
   * turn, as one script, sent at the end of the turn or before any other command of this
   * store, whichever comes first. `keys` and `args` as one record of UPSERT_LUA.
   */
  upsertRecord(keys: readonly string[], args: readonly (string | number)[]): Promise<void> {
    // reads asked for before it go first: they do not see it
    if (this.#reads.length > 0) this.#sendReads();
    this.#revoking.clear();
    return new Promise<void>((resolve, reject) => {
      if (this.#upserts.push({ keys, args, resolve, reject }) === 1) process.nextTick(() => this.#writeUpserts());
    });
  }

  /** record writes of this turn not sent yet */
  #upserts: QueuedUpsert[] = [];

  #writeUpserts(): void {
    const batch = this.#takeUpserts();
    if (!batch) return;
    this.#settle(batch, this.call((client) => client.platformAuthUpsert(batch.keys.length, ...batch.keys, ...batch.args)));
  }

  /** The record writes not sent yet, as UPSERT_LUA's KEYS and ARGV; the queue is emptied. */
  #takeUpserts(): UpsertBatch | undefined {
    const queued = this.#upserts;
    if (queued.length === 0) return undefined;
    this.#upserts = [];
    const keys: string[] = [];
    const args: (string | number)[] = [queued.length];
    for (const upsert of queued) {
      keys.push(...upsert.keys);
      args.push(upsert.keys.length, ...upsert.args);
    }
    return { queued, keys, args };
  }

  /** Settles the writes of `batch` with the command that carried them. */
  #settle(batch: UpsertBatch, sent: Promise<unknown>): void {
    sent.then(
      () => { for (const upsert of batch.queued) upsert.resolve(); },
      (error: unknown) => { for (const upsert of batch.queued) upsert.reject(error); },
    );
  }

  /** calls under way, oldest first (a Set keeps insertion order) */
  readonly #calls = new Set<PendingCall>();
  #deadlineCheck: NodeJS.Timeout | undefined;

  #expireCalls(): void {
    const now = performance.now();
    for (const call of this.#calls) {
      // the rest were made later
      if (call.expiresAt > now) return;
      this.#calls.delete(call);
      call.reject(new StorageUnavailableError('redis: timeout'));
      this.#stall();
    }
    clearInterval(this.#deadlineCheck);
    this.#deadlineCheck = undefined;
  }

  /** Runs commands as one MULTI, or on a Cluster (keys in different slots) one by one. */
  async run(commands: Command[]): Promise<void> {
    await this.call(async (client) => {
      if (this.isCluster || commands.length === 1) {
        // ioredis exposes every command, scripts included, as a method of that name
        const methods = client as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
        await Promise.all(commands.map(([name, ...args]) => methods[name]!.apply(client, args)));
        return;
      }
      const results = await client.multi(commands).exec();
      for (const [error] of results ?? []) if (error) throw error;
    });
  }

  // `get`, `getWithGrant` and RedisAdapter's `find` and `upsert` are no async functions: every
  // token read and write passes here, and an async frame with an await costs each of them
  // two promises and their hooks under oidc-provider's AsyncLocalStorage, where `then` costs one
  get(key: string): Promise<AdapterPayload | undefined> {
    const prefetched = this.#prefetched.get(key);
    if (prefetched !== undefined) return rejecting(() => Promise.resolve(parseRecord(prefetched)));
    if (this.isCluster) return this.call((client) => client.get(key)).then(parseRecord);
    return this.#read(key, false).then(([raw]) => parseRecord(raw ?? null));
  }

  /**
   * A token and its grant in one round trip (single Redis): oidc-provider reads a token and
   * then, with no I/O in between, the grant it names (refresh, UserInfo, introspection, code
   * redemption, and this library's bearer check). The grant read here answers that
   * `Grant.find` instead of a second GET. It is kept only until the event loop's next check
   * phase (setImmediate), so it serves the reads of the same turn that a GET sent now would
   * also have answered with this snapshot, and never a later request.
   */
  getWithGrant(key: string): Promise<AdapterPayload | undefined> {
    if (this.isCluster) return this.get(key);
    return this.#getWithGrant(key, undefined, payloadOf);
  }

  /**
   * {@link getWithGrant}, spending one step of the grant's budget in the same script when the
   * token is `spend`'s client's ({@link FindSpending.findSpending}); on a Cluster, a read then
   * a spend. `id`: a credential's id, given back as its `jti` (./redis-keys.ts).
   */
  getWithGrantSpending(key: string, spend: GrantSpend, id?: string): Promise<FoundSpending> {
    if (this.isCluster) {
      return this.get(key).then((read) => {
        const payload = id === undefined ? read : withId(id, read);
        if (!spendsFor(payload, spend)) return { payload, spent: undefined };
        const budget = this.recordKey(spend.model, payload!.grantId as string);
        return this.call((client) => client.platformAuthSpendBudget(budget, spend.now, spend.tolerance, spend.step))
          .then(([spent, tat]) => ({ payload, spent: budgetSpentOf(spent, tat) }));
      });
    }
    // one `then` from the reply to the answer, as getWithGrant: every refresh reads here
    return this.#getWithGrant(key, [spend.model, spend.clientId, spend.now, spend.tolerance, spend.step], (read, spent, tat) => ({
      payload: id === undefined ? read : withId(id, read),
      spent: spent === undefined ? undefined : budgetSpentOf(spent, tat),
    }));
  }

  #getWithGrant<T>(key: string, spend: readonly (string | number)[] | undefined, answer: (payload: AdapterPayload | undefined, spent: Found[3], tat: Found[4]) => T): Promise<T> {
    const asked = ++this.#sequence;
    this.#outstanding.add(asked);
    return this.#read(key, true, spend).then(([raw, grant, context, spent, tat]) => {
      try {
        if (raw === undefined) return answer(undefined, undefined, undefined);
        const payload = JSON.parse(raw) as AdapterPayload;
        if (grant !== undefined && typeof payload.grantId === 'string') {
          this.#prefetch(this.recordKey('Grant', payload.grantId), grant ?? null, asked);
          this.#prefetch(this.recordKey(GRANT_CONTEXT_MODEL, payload.grantId), context ?? null, asked);
        }
        // the spend's write refused (OOM, READONLY): this read fails, the batch's others do not
        if (spent !== undefined && Number(spent) === -1) throw toStorageError(Object.assign(new Error(String(tat)), { name: 'ReplyError' }));
        return answer(payload, spent ?? undefined, tat ?? undefined);
      } finally {
        // after the snapshot is judged: the forgets it is judged by go with it
        this.#answered(asked);
      }
    }, (error: unknown) => {
      this.#answered(asked);
      throw error;
    });
  }

  /** Grants read with their token in this turn of the event loop, by record key (raw JSON, or null: absent). */
  readonly #prefetched = new Map<string, string | null>();
  #clearing = false;

  /**
   * Why a grant read with its token may be stale although it came back in this turn: the
   * token read went out, then this instance wrote or deleted the grant (a revocation), and
   * both replies arrived in one socket read, the token's first. Its snapshot is from before
   * the write, and installed after `forget` it answered the `Grant.find` that follows the
   * revocation in the same turn with the revoked grant. So each token read is numbered when
   * asked for, and so is each `forget` made while such reads are under way: a snapshot is
   * not kept when its record was forgotten after its read was asked for. (Commands go out in
   * the order they are asked for, one connection answers in order: a read asked for after a
   * write sees it.)
   */
  #sequence = 0;
  /** token reads under way, by number */
  readonly #outstanding = new Set<number>();
  /** the number of the latest `forget` of each record key, while reads asked before it are under way */
  readonly #forgotten = new Map<string, number>();
  /** the same forgets in order, to drop them once no read asked before them is under way */
  #forgets: (readonly [string, number])[] = [];

  #prefetch(key: string, raw: string | null, asked: number): void {
    if (this.#forgets.length > 0 && (this.#forgotten.get(key) ?? 0) > asked) return;
    this.#prefetched.set(key, raw);
    if (this.#clearing) return;
    this.#clearing = true;
    setImmediate(() => {
      this.#prefetched.clear();
      this.#clearing = false;
    });
  }

  #answered(asked: number): void {
    this.#outstanding.delete(asked);
    if (this.#forgets.length === 0) return;
    // the oldest read still under way (a Set iterates in insertion order)
    const oldest = this.#outstanding.size === 0 ? Infinity : this.#outstanding.values().next().value!;
    let done = 0;
    while (done < this.#forgets.length && this.#forgets[done]![1] < oldest) {
      const [key, number] = this.#forgets[done]!;
      if (this.#forgotten.get(key) === number) this.#forgotten.delete(key);
      done += 1;
    }
    if (done > 0) this.#forgets = done === this.#forgets.length ? [] : this.#forgets.slice(done);
  }

  /** Forgets a prefetched record this instance has just written or deleted, and any snapshot of it still on its way. */
  forget(key: string): void {
    this.#prefetched.delete(key);
    if (this.#outstanding.size === 0) return;
    const number = ++this.#sequence;
    this.#forgotten.set(key, number);
    this.#forgets.push([key, number]);
  }

  /**
   * {@link PutRecords.putRecords}: on a single Redis, with the other records written in this
   * turn in one script (upsertRecord), so a refresh's rotation and its successor are one
   * command; on a Cluster one SET per record.
   */
  putRecords(writes: readonly RecordWrite[]): Promise<void> {
    // not an async function: a revocation asks for one record (lib/events/revoked-tokens.ts),
    // and its write's own promise is answered without an async frame or a Promise.all
    return rejecting(() => this.#putRecords(writes));
  }

  #putRecords(writes: readonly RecordWrite[]): Promise<void> {
    const writing: Promise<void>[] = [];
    const sets: Command[] = [];
    for (const write of writes) {
      const ttl = ttlOf(write.expiresIn);
      const key = this.recordKey(write.model, write.id);
      this.forget(key);
      // already expired: written as a deletion, as upsert does
      if (ttl !== undefined && ttl < 1) writing.push(this.run([['del', key]]));
      else if (this.isCluster) sets.push(withTtl(['set', key, storedJson(write.model, write.id, write.payload)], ttl));
      else writing.push(this.upsertRecord([key], [storedJson(write.model, write.id, write.payload), ttl ?? '', keyIdOf(write.model, write.id), '0']));
    }
    if (sets.length > 0) writing.push(this.run(sets));
    return writing.length === 1 ? writing[0]! : Promise.all(writing).then(() => undefined);
  }

  /**
   * {@link revokeGrant} for `revokeByGrantId`. oidc-provider revokes a grant by calling it for
   * each model (access tokens, codes, refresh tokens, …) one after the other, and the first
   * call already deletes every record of the grant: calls for the same grant asked for in a row,
   * with no other command of this store in between, share the first one's command (on a
   * Cluster, its SMEMBERS and deletions).
   */
  revokeGrantOnce(grantId: string): Promise<void> {
    const joined = this.#revoking.get(grantId);
    if (joined) return joined;
    // revokeGrant's own call clears the list first
    const revoking = this.revokeGrant(grantId);
    this.#revoking.set(grantId, revoking);
    if (this.#revoking.size === 1) process.nextTick(() => this.#revoking.clear());
    return revoking;
  }

  /** grant revocations asked for since this store's last other command (see revokeGrantOnce) */
  readonly #revoking = new Map<string, Promise<void>>();

  /** Deletes the grant's records (but `keepKey`), its index and its Grant record. */
  async revokeGrant(grantId: string, keepKey?: string): Promise<void> {
    const indexKey = this.grantIndexKey(grantId);
    const grantKey = this.recordKey('Grant', grantId);
    this.forget(grantKey);
    this.forget(this.recordKey(GRANT_CONTEXT_MODEL, grantId));
    // the record writes asked for before it go first, in the same command (UPSERT_THEN_REVOKE_LUA)
    const before = this.isCluster ? undefined : this.#takeUpserts();
    const revoking = this.call(async (client) => {
      if (before) {
        const keys = [...before.keys, indexKey, grantKey];
        await client.platformAuthUpsertThenRevoke(keys.length, ...keys, ...before.args, keepKey ?? '');
        return;
      }
      if (!this.isCluster) {
        await client.platformAuthRevoke(indexKey, grantKey, keepKey ?? '');
        return;
      }
      // The Grant first, beside the read of its index (the same slot): every token needs its
      // grant, so a revocation cut off below (a node of another slot lost) has still ended
      // it, even once the token that was reused is gone and its retry finds nothing to revoke
      const [members] = await Promise.all([client.smembers(indexKey), client.del(grantKey)]);
      await Promise.all(members.filter((key) => key !== keepKey).map((key) => client.del(key)));
      // deleted last, so a failure above can be retried
      await client.del(indexKey);
    });
    if (before) this.#settle(before, revoking);
    await revoking;
  }

  async close(): Promise<void> {
    // no more probes, and no listener left on a client that outlives this store
    this.#stalled = false;
    this.client.off('ready', this.#connected);
    if (!this.#owned) return;
    // commands asked for before close() go out before the connection's QUIT: queued record
    // reads and writes are sent, and calls under way get a turn to be written (QUIT would not wait)
    this.#sendReads();
    this.#writeUpserts();
    if (this.#calls.size > 0) await new Promise((resolve) => setImmediate(resolve));
    this.closing = true;
    const { client } = this;
    const { status } = client;
    if (status === 'end') return;
    if (status === 'reconnecting' || status === 'close') {
      // no socket is open: cancelling the pending reconnection is all there is to do,
      // and ioredis emits no 'end' for it
      client.disconnect();
      return;
    }
    const ended = new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(done, CONNECT_TIMEOUT_MS);
      client.once('end', done);
    });
    if (status === 'ready') await client.quit().catch(() => client.disconnect());
    else client.disconnect();
    await ended;
  }
}

/** TTL in whole seconds, or undefined for a record that does not expire. */
/** The models whose records oidc-provider reads right before the grant they name. */
const READ_WITH_GRANT: ReadonlySet<string> = new Set(['AccessToken', 'RefreshToken', 'AuthorizationCode']);

/** `start()`'s promise, or its synchronous throw as a rejection: what an async function would give. */
function rejecting<T>(start: () => Promise<T>): Promise<T> {
  try {
    return start();
  } catch (error) {
    return Promise.reject(error);
  }
}

/** A record as stored (JSON), or undefined for an absent one (null). */
function parseRecord(raw: string | null): AdapterPayload | undefined {
  return raw === null ? undefined : (JSON.parse(raw) as AdapterPayload);
}

function ttlOf(expiresIn: number | undefined): number | undefined {
  return typeof expiresIn === 'number' && Number.isFinite(expiresIn) ? Math.ceil(expiresIn) : undefined;
}

/**
 * The TTL of a capped structure (a list, a latest-by-member index) after checking its cap: at
 * least a second, since EXPIRE 0 would delete what was just written.
 */
function cappedTtl(method: string, max: number, expiresIn: number): number {
  if (!Number.isInteger(max) || max < 1) throw new RangeError(`${method}: max must be a positive integer, got ${max}`);
  return Math.max(1, ttlOf(expiresIn) ?? 1);
}

function withTtl(command: Command, ttl: number | undefined): Command {
  return ttl === undefined ? command : [...command, 'EX', ttl];
}

class RedisAdapter implements Adapter, CompareAndSet, ConsumeAndKeep, CappedList, LatestByMember, SpendBudget, FindSpending {
  readonly #model: string;
  readonly #store: RedisStore;

  constructor(model: string, store: RedisStore) {
    this.#model = model;
    this.#store = store;
  }

  upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    // a payload JSON cannot hold (a BigInt, a cycle) is a rejection, as from an async function
    return rejecting(() => this.#upsert(id, payload, expiresIn));
  }

  #upsert(id: string, payload: AdapterPayload, expiresIn: number | undefined): Promise<void> {
    const store = this.#store;
    const ttl = ttlOf(expiresIn);
    // already expired: SET would reject EX 0, and the record must not be findable
    if (ttl !== undefined && ttl < 1) return this.destroy(id);
    // the id as the record's key and its index entries hold it (./redis-keys.ts)
    const storedId = keyIdOf(this.#model, id);
    const key = store.keyFor(this.#model, storedId);
    store.forget(key);
    const indexesGrant = payload.grantId !== undefined && payload.grantId !== '' && GRANTABLE_MODELS.has(this.#model);
    if (!store.isCluster) {
      const keys = [key];
      if (payload.uid) keys.push(store.indexKey('uid', this.#model, payload.uid));
      if (payload.userCode) keys.push(store.indexKey('userCode', this.#model, payload.userCode));
      if (indexesGrant) keys.push(store.grantIndexKey(payload.grantId!));
      return store.upsertRecord(keys, [storedJson(this.#model, id, payload), ttl ?? '', storedId, indexesGrant ? '1' : '0']);
    }
    // a Cluster: the record and its indexes are in different slots, one command each
    const commands: Command[] = [withTtl(['set', key, storedJson(this.#model, id, payload)], ttl)];
    if (payload.uid) commands.push(withTtl(['set', store.indexKey('uid', this.#model, payload.uid), storedId], ttl));
    if (payload.userCode) {
      commands.push(withTtl(['set', store.indexKey('userCode', this.#model, payload.userCode), storedId], ttl));
    }
    if (indexesGrant) commands.push(['platformAuthIndexGrant', store.grantIndexKey(payload.grantId!), key, ttl ?? '']);
    return store.run(commands);
  }

  find(id: string): Promise<AdapterPayload | undefined> {
    const found = this.#read(this.#store.recordKey(this.#model, id));
    // a credential's jti is stored as `true` (./redis-keys.ts)
    return isCredentialModel(this.#model) ? found.then((payload) => withId(id, payload)) : found;
  }

  /** The record at `key`, a token with its grant (READ_WITH_GRANT). */
  #read(key: string): Promise<AdapterPayload | undefined> {
    return READ_WITH_GRANT.has(this.#model) ? this.#store.getWithGrant(key) : this.#store.get(key);
  }

  /** {@link FindSpending.findSpending}: on a single Redis, the token's read script spends too. */
  findSpending(id: string, spend: GrantSpend): Promise<FoundSpending> {
    return this.#store.getWithGrantSpending(this.#store.recordKey(this.#model, id), spend, isCredentialModel(this.#model) ? id : undefined);
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return this.#findByIndex('uid', uid);
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    return this.#findByIndex('userCode', userCode);
  }

  async #findByIndex(kind: 'uid' | 'userCode', value: string): Promise<AdapterPayload | undefined> {
    const store = this.#store;
    const indexKey = store.indexKey(kind, this.#model, value);
    let payload: AdapterPayload | undefined;
    if (!store.isCluster && !READ_WITH_GRANT.has(this.#model)) {
      const raw = await store.call((client) => client.platformAuthFindByIndex(indexKey, store.prefix, this.#model));
      payload = raw === null ? undefined : JSON.parse(raw) as AdapterPayload;
    } else {
      // a Cluster (the record is in another slot), or a token read with its grant: two steps
      // the entry holds the id as the record's key does (./redis-keys.ts)
      const id = await store.call((client) => client.get(indexKey));
      if (id === null) return undefined;
      payload = await this.#read(store.keyFor(this.#model, id));
    }
    // a credential's jti is stored as `true`, and only its id gives it back, which an index
    // entry holds hashed (./redis-keys.ts): oidc-provider never looks one up so
    if ((payload as { jti?: unknown } | undefined)?.jti === true) {
      throw new TypeError(`${this.#model}: a credential is found by its id, not by ${kind} (its jti is not stored)`);
    }
    return payload?.[kind] === value ? payload : undefined;
  }

  consume(id: string): Promise<void> {
    return this.#consume(id, undefined, undefined);
  }

  /**
   * {@link ConsumeAndKeep.consumeAndKeep}: one script (the mark written in it); on a Cluster the
   * grant index is extended after it.
   */
  consumeAndKeep(id: string, keepSeconds: number, mark?: string): Promise<void> {
    // rounded as every TTL here is; at least a second (EX 0 is refused)
    return this.#consume(id, Math.max(1, ttlOf(keepSeconds) ?? 1), mark);
  }

  async #consume(id: string, keepSeconds: number | undefined, mark: string | undefined): Promise<void> {
    const store = this.#store;
    const indexed = GRANTABLE_MODELS.has(this.#model);
    const key = store.recordKey(this.#model, id);
    // JSON text the script appends to the stored JSON as it is
    const markJson = typeof mark === 'string' ? JSON.stringify(mark) : '';
    const [reply, grantId] = await store.call((client) => client.platformAuthConsume(
      key, epoch(), store.prefix, store.isCluster ? '0' : '1', keepSeconds ?? '', indexed ? '1' : '0', markJson));
    // a client of one's own with ioredis' `stringNumbers` hands integer replies over as strings
    const status = Number(reply);
    if (status === 1 && grantId) {
      // a Cluster: the index is in another slot, extended by its own command as an upsert does
      await store.run([['platformAuthIndexGrant', store.grantIndexKey(grantId), key, keepSeconds!]]);
      return;
    }
    if (status !== 2) return;
    if (grantId) store.forget(store.recordKey('Grant', grantId));
    if (store.isCluster && grantId) await store.revokeGrant(grantId, key);
    throw new errors.InvalidGrant('grant artefact already consumed');
  }

  async destroy(id: string): Promise<void> {
    const store = this.#store;
    // the id as the record's key and its index entries hold it (./redis-keys.ts)
    const storedId = keyIdOf(this.#model, id);
    const key = store.keyFor(this.#model, storedId);
    store.forget(key);
    if (!store.isCluster) {
      const indexed = GRANTABLE_MODELS.has(this.#model) ? '1' : '0';
      await store.call((client) => client.platformAuthDestroy(key, store.prefix, this.#model, storedId, indexed));
      return;
    }
    // a Cluster: the indexes are in other slots; read the record for them, then delete
    const payload = await store.get(key);
    if (!payload) return;
    const commands: Command[] = [['del', key]];
    if (payload.uid) commands.push(['platformAuthDeleteIfEquals', store.indexKey('uid', this.#model, payload.uid), storedId]);
    if (payload.userCode) {
      commands.push(['platformAuthDeleteIfEquals', store.indexKey('userCode', this.#model, payload.userCode), storedId]);
    }
    if (payload.grantId && GRANTABLE_MODELS.has(this.#model)) {
      commands.push(['srem', store.grantIndexKey(payload.grantId), key]);
    }
    await store.run(commands);
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.#store.revokeGrantOnce(grantId);
  }

  async compareAndSet(id: string, expected: AdapterPayload | undefined, next: AdapterPayload | undefined, expiresIn?: number): Promise<boolean> {
    const store = this.#store;
    const ttl = ttlOf(expiresIn);
    // an already expired record is written as a deletion, as upsert does
    // as upsert stores them: a credential's jti as `true` (./redis-keys.ts)
    const value = next === undefined || (ttl !== undefined && ttl < 1) ? '' : storedJson(this.#model, id, next);
    const was = expected === undefined ? '' : storedJson(this.#model, id, expected);
    const written = await store.call((client) => client.platformAuthCompareAndSet(store.recordKey(this.#model, id), was, value, ttl ?? ''));
    // a string from a client with ioredis' `stringNumbers`
    return Number(written) === 1;
  }

  /** {@link SpendBudget.spendBudget}: one script, one key. */
  async spendBudget(id: string, now: number, tolerance: number, step: number): Promise<BudgetSpent> {
    const store = this.#store;
    const [spent, tat] = await store.call((client) => client.platformAuthSpendBudget(store.recordKey(this.#model, id), now, tolerance, step));
    // strings from a client with ioredis' `stringNumbers`
    return budgetSpentOf(spent, tat);
  }

  /** {@link CappedList.pushCapped}: one script, which sends only the new items and reads nothing back. */
  async pushCapped(id: string, items: readonly AdapterPayload[], max: number, expiresIn: number): Promise<void> {
    if (items.length === 0) return;
    const ttl = cappedTtl('pushCapped', max, expiresIn);
    const store = this.#store;
    const values = items.map((item) => JSON.stringify(item));
    await store.call((client) => client.platformAuthPushCapped(store.listKey(this.#model, id), max, ttl, ...values));
  }

  /** {@link CappedList.readCapped} */
  async readCapped(id: string): Promise<AdapterPayload[]> {
    const store = this.#store;
    const values = await store.call((client) => client.lrange(store.listKey(this.#model, id), 0, -1));
    return values.map((value) => JSON.parse(value) as AdapterPayload);
  }

  /** {@link LatestByMember.putLatest}: one script, which sends only the entries given and reads nothing back. */
  async putLatest(id: string, entries: readonly LatestEntry[], max: number, expiresIn: number): Promise<void> {
    if (entries.length === 0) return;
    const ttl = cappedTtl('putLatest', max, expiresIn);
    const store = this.#store;
    const args = entries.flatMap(({ member, at, payload }) => [member, at, JSON.stringify(payload)]);
    await store.call((client) => client.platformAuthPutLatest(...store.latestKeys(this.#model, id), max, ttl, ...args));
  }

  /** {@link LatestByMember.readLatest} */
  async readLatest(id: string): Promise<AdapterPayload[]> {
    const store = this.#store;
    const values = await store.call((client) => client.platformAuthReadLatest(...store.latestKeys(this.#model, id)));
    return values.filter((value): value is string => typeof value === 'string').map((value) => JSON.parse(value) as AdapterPayload);
  }
}

/** the clients {@link warnIfEvicting} has asked already: several adapters may share one */
const checkedForEviction = new WeakSet<object>();

/**
 * Warns once when the single Redis behind `client` may evict keys (`maxmemory-policy` other
 * than `noeviction`): under memory pressure it would then drop live grants, tokens and
 * sessions without a word, signing members out and voiding tokens at random, where
 * `noeviction` refuses writes (an outage the library answers 503). Read from `INFO memory`
 * once the client is ready (`CONFIG` is often disabled on managed Redis); a Redis that does
 * not answer it is left alone, and so is one without a memory limit (`maxmemory` 0), which
 * evicts nothing. Once per client. Not on a Cluster: each node has its own settings.
 */
export function warnIfEvicting(client: Redis | Cluster, logger: ConnectionLogger): void {
  if (client.isCluster || checkedForEviction.has(client)) return;
  checkedForEviction.add(client);
  const redis = client as Redis;
  const check = () => {
    redis.info('memory').then((info) => {
      const policy = /^maxmemory_policy:(\S+)/m.exec(info)?.[1];
      // without a memory limit (`maxmemory` 0) nothing is evicted, whatever the policy
      const limit = /^maxmemory:(\d+)/m.exec(info)?.[1];
      if (policy === undefined || policy === 'noeviction' || limit === '0') return;
      const where = `${redis.options.host ?? '127.0.0.1'}:${redis.options.port ?? 6379}`;
      logger.warn(`platform-auth: Redis at ${where} evicts keys under memory pressure (maxmemory-policy ${policy}): it may drop live sessions, grants and tokens, signing members out. Set maxmemory-policy noeviction: a full Redis then refuses writes, answered 503.`);
    }, () => {});
  };
  if (redis.status === 'ready') check();
  else redis.once('ready', check);
}

/**
 * Logs when the connection is lost and when it is back, once each, not per attempt.
 *
 * ioredis emits 'error' on every failed (re)connection attempt. Without a listener it logs
 * each one to stderr, and the few errors it emits directly (e.g. a protocol error) would
 * be thrown by the EventEmitter and end the process. Every failed call already rejects to
 * its caller, so the listener only reports.
 */
function reportConnection(client: Redis, logger: ConnectionLogger, closing: () => boolean): void {
  const where = redisAddress(client);
  let lostAt: number | undefined;
  const lost = (what: string, until = 'it is back. Reconnecting.') => {
    if (lostAt !== undefined) return;
    lostAt = Date.now();
    logger.warn(`platform-auth: Redis at ${where} ${what}; requests that need storage are answered 503 until ${until}`);
  };
  client.on('error', (error: NodeJS.ErrnoException) => {
    if (closing()) return;
    // Redis answers but refuses the credentials: say so, since retrying will not fix that
    const failure = connectionFailure(error);
    if (failure.refused) lost(failure.text, 'it accepts them. Retrying.');
    else lost(failure.text);
  });
  // a Redis that shuts down cleanly closes the connection without an error
  client.on('close', () => {
    if (!closing()) lost('is unreachable (connection closed)');
  });
  client.on('ready', () => {
    if (lostAt === undefined) return;
    logger.info(`platform-auth: Redis at ${where} is reachable again after ${Math.round((Date.now() - lostAt) / 1000)} s.`);
    lostAt = undefined;
  });
}

/**
 * Creates Redis storage for one `createPlatformAuth` instance.
 *
 * @example
 * ```ts
 * const adapter = createRedisAdapter({ url: process.env.REDIS_URL });
 * const auth = await createPlatformAuth({ baseUrl, accounts, adapter });
 * // on shutdown
 * await adapter.close();
 * ```
 */
export function createRedisAdapter(options: RedisAdapterOptions): ClosableAdapterFactory & PutRecords {
  const { client, url, keyPrefix = REDIS_ADAPTER_DEFAULTS.keyPrefix, coalesceWrites = REDIS_ADAPTER_DEFAULTS.coalesceWrites } = options;
  checkUrlOrClient('createRedisAdapter', options);
  if (typeof coalesceWrites !== 'boolean') {
    throw new TypeError('createRedisAdapter: `coalesceWrites` must be true or false (leave it out for true)');
  }
  if (client?.options.keyPrefix) {
    throw new TypeError('createRedisAdapter: the client must not set ioredis `keyPrefix`; use the `keyPrefix` option');
  }
  let store: RedisStore;
  const logger = options.logger ?? console;
  if (client) {
    // an ioredis 6 client, or another copy of ioredis 5, offers what the store calls (IoRedisClient)
    store = new RedisStore(client as Redis | Cluster, false, keyPrefix, coalesceWrites);
    warnIfEvicting(client as Redis | Cluster, logger);
  } else {
    const owned = new Redis(url!, {
      // a command whose connection closed before its reply came is rejected (503), never sent
      // again on the next connection: Redis may have run it, and a consume run twice finds its
      // own mark and is taken for a replay (the grant revoked, the member signed out)
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      enableOfflineQueue: false,
      connectTimeout: CONNECT_TIMEOUT_MS,
      commandTimeout: COMMAND_TIMEOUT_MS,
      // off: the store batches what one request asks for itself (a turn's record writes are
      // one script, a token is read with its grant), and ioredis' auto-pipeline costs each
      // batch a Pipeline, a promise and a turn. Measured on the demo host (bench/README,
      // "Auto-pipelining"): a refresh 5% and a revocation 9% fewer instructions without it;
      // a script call 15-25 µs of CPU instead of 25-30 with 10 callers, 52-68 instead of 75-122 alone
      enableAutoPipelining: false,
    });
    store = new RedisStore(owned, true, keyPrefix, coalesceWrites);
    const owner = store;
    reportConnection(owned, logger, () => owner.closing);
    warnIfEvicting(owned, logger);
  }
  const factory = (modelName: string) => new RedisAdapter(modelName, store);
  const putRecords: PutRecords['putRecords'] = (writes) => store.putRecords(writes);
  return Object.assign(factory, {
    putRecords,
    async close() {
      await store.close();
    },
  });
}

export { migrateRedisKeys } from './redis-migrate.ts';
export type { MigrateRedisKeysOptions, MigrateRedisKeysReport } from './redis-migrate.ts';
