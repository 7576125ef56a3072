/**
 * Moves the records 0.1.0 kept under a credential's raw id (`<prefix>RefreshToken:{<token>}`)
 * to where this version keeps them, under its SHA-256 with `"jti":true` (./redis-keys.ts).
 * This version never looks under a raw key (a lookup there would send the token it looks
 * for in a command), so without the move a refresh token issued before the upgrade is not
 * found: its member signs in again.
 *
 * Run it after the last 0.1.0 instance stopped and before this version serves: in between,
 * neither version finds the other's tokens (0.1.0 reads raw keys only, this version hashed
 * ones), and a client told `invalid_grant` drops its refresh token. Records keep their TTL
 * (read with it in one step) and their place in their grant's index, so revoking the grant
 * still deletes them; a record whose grant was revoked meanwhile is not moved. A run cut off
 * half-way can be run again: a hashed record it did not write itself is newer (this version
 * consumed or rotated it since) and is kept, only the raw copy goes; a record changed while it
 * is moved (by a 0.1.0 instance still serving) is moved again, so no consume mark is lost. It
 * walks the keyspace with SCAN (every master of a Cluster), which the adapter itself never
 * does: minutes on a large Redis, without blocking it; walks again until a walk finds nothing
 * left (a resharding moves keys to masters walked already), then drops from the grant indexes
 * the raw keys of 0.1.0 records that were gone before they could be moved.
 *
 * It waits for a client that is still connecting (a `new Cluster(…)` knows its masters only
 * once ready: walked before, it walks none), refuses a `url` that points at a Cluster node
 * (its commands would be answered MOVED half-way), logs how many keys it scanned and matched
 * (an empty report is then told apart from a wrong `keyPrefix`), and fails with where and why
 * only: an ioredis error carries the command, whose arguments are the password for AUTH and
 * raw tokens in keys for the others.
 *
 * @module
 */
import { Redis } from 'ioredis';
import type { Cluster } from 'ioredis';

import { CREDENTIAL_MODELS, grantIndexKeyOf, keyIdOf, recordKeyOf } from './redis-keys.ts';
import { checkUrlOrClient, connectionFailure, redisAddress } from './redis-url.ts';
import { GRANTABLE_MODELS } from './types.ts';

export interface MigrateRedisKeysOptions {
  /** A Redis URL: a connection is opened for the move and closed after it. */
  readonly url?: string | undefined;
  /** Or a connected ioredis client (a `Redis` or a `Cluster`), left open. */
  readonly client?: { readonly isCluster: boolean } | undefined;
  /** The adapter's `keyPrefix`; default `platform-auth:`, as the adapter's. */
  readonly keyPrefix?: string | undefined;
  /**
   * Where the keys scanned and matched are reported, one line at the end (default `console`):
   * `{}` alone does not tell "nothing left to move" from "nothing matched this keyPrefix".
   */
  readonly logger?: { info(message: string): void } | undefined;
  /** How long a client that is still connecting (a Cluster learning its masters) is waited for; default 10 000 ms. */
  readonly readyTimeoutMs?: number | undefined;
}

/** How many records were moved, by model. */
export type MigrateRedisKeysReport = Record<string, number>;

/** How many times a record that keeps changing under the move is tried. */
const MAX_TRIES = 5;

// KEYS[1] the record; ARGV[1] its JSON as read. Deletes it only if it is still that.
const DELETE_IF_UNCHANGED = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/** How many walks of the keyspace, when each finds records left. */
const MAX_PASSES = 5;

// KEYS[1] the raw record: its JSON and its TTL in ms, in one step
const READ = `return {redis.call('GET', KEYS[1]), redis.call('PTTL', KEYS[1])}`;

// KEYS[1] the hashed record; ARGV[1] its JSON, ARGV[2] TTL in ms or '', ARGV[3] what this move
// wrote there before ('': nothing). Written only over nothing or over that. 1 written, 0 kept.
const WRITE_TARGET = `
local current = redis.call('GET', KEYS[1])
if current and current ~= ARGV[3] then return 0 end
if ARGV[2] == '' then redis.call('SET', KEYS[1], ARGV[1]) else redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end
return 1
`;

// KEYS[1] a grant index; ARGV[1] a member. Added only to an index that exists: 0.1.0 indexed
// every record of a grant, so a missing index is a grant revoked meanwhile. 1 added, 0 none.
const INDEX_IF_LIVE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('SADD', KEYS[1], ARGV[1])
return 1
`;

/** A glob that matches `text` literally (SCAN MATCH). */
const literal = (text: string) => text.replace(/[*?[\]\\]/g, '\\$&');

/** How long a client that is still connecting is waited for, by default. */
const READY_TIMEOUT_MS = 10_000;

/** Where the client connects, for an error: `host:port`, or a Cluster's startup nodes. */
function whereOf(client: Redis | Cluster): string {
  if (!client.isCluster) return `Redis at ${redisAddress(client as Redis)}`;
  const nodes = ((client as unknown as { startupNodes?: unknown[] }).startupNodes ?? []).map((node) => {
    if (typeof node === 'number') return `127.0.0.1:${node}`;
    if (typeof node === 'string') return /^(?:rediss?:\/\/)?(?:[^@/]*@)?([^/?#]*)/.exec(node)?.[1] ?? '?';
    const { host, port } = node as { host?: string; port?: number };
    return `${host ?? '127.0.0.1'}:${port ?? 6379}`;
  });
  return `the Redis Cluster at ${nodes.join(', ') || '(no startup nodes)'}`;
}

/** An error to throw: where and why, never the command or its arguments (nor a `cause` holding them). */
function cleanError(client: Redis | Cluster, error: unknown): Error {
  if (error instanceof Error && error.message.startsWith('migrateRedisKeys: ') && !('command' in error)) return error;
  const { message, code, name } = (error ?? {}) as { message?: unknown; code?: unknown; name?: unknown };
  const text = typeof message === 'string' ? message.split('\n', 1)[0]!.slice(0, 200) : '';
  if (typeof message === 'string' && /^(WRONGPASS|NOAUTH|ERR invalid password)\b/.test(message)) {
    return new Error(`migrateRedisKeys: ${whereOf(client)} ${connectionFailure(error).text}`);
  }
  const kind = typeof code === 'string' ? code : typeof name === 'string' && name !== 'Error' ? name : '';
  return new Error(`migrateRedisKeys: failed on ${whereOf(client)}: ${kind && kind !== text ? `${kind}: ` : ''}${text}; it can be run again`);
}

/**
 * Waits until the client is ready: a Cluster lists its masters only then. Bounded; a client
 * created from `url` (no reconnection) fails at its first connection error.
 */
async function ready(client: Redis | Cluster, timeoutMs: number): Promise<void> {
  if (client.status === 'ready') return;
  if (client.status === 'end' || client.status === 'close') throw new Error(`migrateRedisKeys: the client for ${whereOf(client)} is closed; pass a connected one`);
  await new Promise<void>((resolve, reject) => {
    let last: unknown;
    const done = (error?: unknown) => {
      clearTimeout(timer);
      client.off('ready', onReady);
      client.off('error', onError);
      client.off('end', onEnd);
      if (error === undefined) resolve();
      else reject(error);
    };
    const onReady = () => done();
    const onError = (error: unknown) => {
      last = error;
      // retrying does not fix refused credentials
      if (connectionFailure(error).refused) done(new Error(`migrateRedisKeys: ${whereOf(client)} ${connectionFailure(error).text}`));
    };
    const onEnd = () => done(new Error(`migrateRedisKeys: ${whereOf(client)} ${connectionFailure(last ?? { name: 'connection closed' }).text}`));
    const timer = setTimeout(() => {
      const why = last === undefined ? '' : `: it ${connectionFailure(last).text}`;
      done(new Error(`migrateRedisKeys: ${whereOf(client)} was not ready within ${timeoutMs} ms${why}; nothing was moved`));
    }, timeoutMs);
    client.once('ready', onReady);
    client.on('error', onError);
    client.once('end', onEnd);
    // lazyConnect: connect now (its errors come as 'error' events)
    if (client.status === 'wait') client.connect().catch(() => {});
  });
}

/** A single Redis that is a Cluster node: its commands on other slots would be answered MOVED. */
async function refuseClusterNode(client: Redis): Promise<void> {
  let info: string;
  try {
    info = await client.info('cluster');
  } catch (error) {
    // INFO renamed away (some managed Redis): such services are not Cluster nodes reached by url
    if (error instanceof Error && error.name === 'ReplyError' && /^ERR unknown command/i.test(error.message)) return;
    throw error;
  }
  if (/^cluster_enabled:1\s*$/m.test(info)) {
    throw new Error(`migrateRedisKeys: ${whereOf(client)} is a Redis Cluster node: one connection (a \`url\`, or a \`Redis\` client) reaches one node only; pass \`client: new Cluster([{ host, port }, …])\` (import { Cluster } from 'ioredis') instead. Nothing was moved`);
  }
}

/** Moves every record of 0.1.0's raw-id layout; resolves with the count moved, by model. */
export async function migrateRedisKeys(options: MigrateRedisKeysOptions): Promise<MigrateRedisKeysReport> {
  checkUrlOrClient('migrateRedisKeys', options);
  const prefix = options.keyPrefix ?? 'platform-auth:';
  const logger = options.logger ?? console;
  const owned = !options.client;
  const client = (options.client ?? new Redis(options.url!, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    connectTimeout: 5_000,
    // fail fast: a run cut off can be run again
    retryStrategy: () => null,
  })) as Redis | Cluster;
  // ioredis logs an error event without a listener ("Unhandled error event"), with details
  const quiet = () => {};
  client.on('error', quiet);
  const report: MigrateRedisKeysReport = {};
  // counted once, on the first walk: keys under raw ids, keys already hashed (by an earlier run
  // or by this version serving), and the masters walked
  const scanned = { matched: 0, raw: 0, hashed: 0, nodes: 0 };
  const written = new Set<string>();
  try {
    await ready(client, options.readyTimeoutMs ?? READY_TIMEOUT_MS);
    if (!client.isCluster) await refuseClusterNode(client as Redis);
    // passes until one finds nothing left: a Cluster resharding under a pass moves keys to a
    // master walked already (the list of masters is taken again each pass)
    for (let pass = 0; ; pass += 1) {
      let seen = 0;
      const nodes = client.isCluster ? (client as Cluster).nodes('master') : [client as Redis];
      if (nodes.length === 0) throw new Error(`migrateRedisKeys: ${whereOf(client)} lists no master to walk; nothing was moved`);
      if (pass === 0) scanned.nodes = nodes.length;
      for (const model of CREDENTIAL_MODELS) {
        const start = `${prefix}${model}:{`;
        for (const node of nodes) {
          for await (const keys of node.scanStream({ match: `${literal(start)}*`, count: 500 }) as AsyncIterable<string[]>) {
            for (const key of keys) {
              const id = key.slice(start.length, -1);
              // a key this run wrote, met again by the walk (SCAN may return keys added under it)
              if (written.has(key)) continue;
              if (pass === 0) scanned.matched += 1;
              if (!key.endsWith('}')) continue;
              if (id.startsWith('sha256:')) {
                if (pass === 0) scanned.hashed += 1;
                continue;
              }
              if (pass === 0) scanned.raw += 1;
              seen += 1;
              if (await move(client, prefix, model, key, id)) {
                report[model] = (report[model] ?? 0) + 1;
                written.add(recordKeyOf(prefix, model, keyIdOf(model, id)));
              }
            }
          }
        }
      }
      if (seen === 0) break;
      if (pass >= MAX_PASSES) throw new Error('migrateRedisKeys: records are still being written under raw ids; stop every 0.1.0 instance and run again');
    }
    // grant indexes still naming 0.1.0 records that were gone before they could be moved
    // (expired, deleted): their members are raw tokens
    const raws = [...CREDENTIAL_MODELS].map((model) => `${prefix}${model}:{`);
    const nodes = client.isCluster ? (client as Cluster).nodes('master') : [client as Redis];
    for (const node of nodes) {
      for await (const indexes of node.scanStream({ match: `${literal(`${prefix}index:grant:{`)}*`, count: 500 }) as AsyncIterable<string[]>) {
        for (const index of indexes) {
          const stale = (await client.smembers(index)).filter((member) => raws.some((start) => member.startsWith(start) && !member.startsWith(`${start}sha256:`)));
          for (const member of stale) if (Number(await client.exists(member)) === 0) await client.srem(index, member);
        }
      }
    }
  } catch (error) {
    throw cleanError(client, error);
  } finally {
    // a connection already ended is left alone: QUIT or disconnect() on it would keep the
    // process up 2 s more (ioredis waits for a close that came already)
    if (owned && client.status === 'ready') await client.quit().catch(() => client.disconnect());
    else if (owned && client.status !== 'end') client.disconnect();
    client.off('error', quiet);
  }
  const moved = Object.values(report).reduce((sum, count) => sum + count, 0);
  const where = `${scanned.nodes} ${client.isCluster ? 'master' : 'node'}${scanned.nodes === 1 ? '' : 's'}`;
  logger.info(scanned.matched === 0
    ? `migrateRedisKeys: 0 scanned keys matched ${JSON.stringify(`${prefix}<Model>:{…}`)} on ${where}: nothing to move under this keyPrefix (is it the adapter's?)`
    : `migrateRedisKeys: ${scanned.matched} scanned keys matched ${JSON.stringify(`${prefix}<Model>:{…}`)} on ${where}: ${scanned.raw} under 0.1.0's raw ids, ${scanned.hashed} already hashed; moved ${moved}`);
  return report;
}

/** Moves one record; false when it was gone (or its grant revoked) before it could be. */
async function move(client: Redis | Cluster, prefix: string, model: string, key: string, id: string): Promise<boolean> {
  const target = recordKeyOf(prefix, model, keyIdOf(model, id));
  // what this call wrote at target: only that may be written over
  let written = '';
  for (let tries = 0; tries < MAX_TRIES; tries += 1) {
    // one step: a key that expires or is deleted between a GET and a PTTL is no record without a TTL
    const [raw, pttl] = await client.eval(READ, 1, key) as [string | null, number | string];
    const ttl = Number(pttl);
    if (raw === null || ttl === -2) return false;
    const json = raw.replace(`"jti":${JSON.stringify(id)}`, '"jti":true');
    // a record at target that this call did not write is newer (a run cut before, then served
    // by this version: consumed, rotated): kept, only the raw copy goes
    if (Number(await client.eval(WRITE_TARGET, 1, target, json, ttl > 0 ? ttl : '', written)) === 1) written = json;
    const grantId = grantIdOf(raw);
    const index = grantId !== undefined && GRANTABLE_MODELS.has(model) ? grantIndexKeyOf(prefix, grantId) : undefined;
    if (index && Number(await client.eval(INDEX_IF_LIVE, 1, index, target)) === 0) {
      // no index: the grant was revoked meanwhile, so its record goes too
      if (written !== '') await client.eval(DELETE_IF_UNCHANGED, 1, target, written);
      await client.eval(DELETE_IF_UNCHANGED, 1, key, raw);
      return false;
    }
    // a string from a client with ioredis' `stringNumbers`
    if (Number(await client.eval(DELETE_IF_UNCHANGED, 1, key, raw)) === 1) {
      if (index) await client.srem(index, key);
      return true;
    }
  }
  throw new Error(`migrateRedisKeys: a ${model} record kept changing while it was moved; run the migration again once no 0.1.0 instance is running`);
}

function grantIdOf(raw: string): string | undefined {
  try {
    const { grantId } = JSON.parse(raw) as { grantId?: unknown };
    return typeof grantId === 'string' && grantId !== '' ? grantId : undefined;
  } catch {
    return undefined;
  }
}
