/**
 * Moves the records 0.1.0 kept under a credential's raw id (`<prefix>RefreshToken:{<token>}`)
 * to where this version keeps them, under its SHA-256 with `"jti":true` (./redis-keys.ts).
 * This version never looks under a raw key (a lookup there would send the token it looks
 * for in a command), so without the move a refresh token issued before the upgrade is not
 * found: its member signs in again.
 *
 * Run once, after the last 0.1.0 instance stopped (run it again if one served meanwhile: it
 * moves only what is left under a raw id, and a record moved before is left alone). Records
 * keep their TTL and their place in their grant's index, so revoking the grant still deletes
 * them. A record changed while it is moved (a 0.1.0 instance consuming it) is moved again, so
 * no consume mark is lost. It walks the keyspace with SCAN (every master of a Cluster), which
 * the adapter itself never does: minutes on a large Redis, without blocking it.
 *
 * @module
 */
import { Redis } from 'ioredis';
import type { Cluster } from 'ioredis';

import { CREDENTIAL_MODELS, grantIndexKeyOf, keyIdOf, recordKeyOf } from './redis-keys.ts';
import { GRANTABLE_MODELS } from './types.ts';

export interface MigrateRedisKeysOptions {
  /** A Redis URL: a connection is opened for the move and closed after it. */
  readonly url?: string | undefined;
  /** Or a connected ioredis client (a `Redis` or a `Cluster`), left open. */
  readonly client?: { readonly isCluster: boolean } | undefined;
  /** The adapter's `keyPrefix`; default `platform-auth:`, as the adapter's. */
  readonly keyPrefix?: string | undefined;
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

/** A glob that matches `text` literally (SCAN MATCH). */
const literal = (text: string) => text.replace(/[*?[\]\\]/g, '\\$&');

/** Moves every record of 0.1.0's raw-id layout; resolves with the count moved, by model. */
export async function migrateRedisKeys(options: MigrateRedisKeysOptions): Promise<MigrateRedisKeysReport> {
  if ((options.url === undefined) === (options.client === undefined)) {
    throw new TypeError('migrateRedisKeys: pass either url or client');
  }
  const prefix = options.keyPrefix ?? 'platform-auth:';
  const client = (options.client ?? new Redis(options.url!, { lazyConnect: false, maxRetriesPerRequest: 3 })) as Redis | Cluster;
  const report: MigrateRedisKeysReport = {};
  try {
    const nodes = client.isCluster ? (client as Cluster).nodes('master') : [client as Redis];
    for (const model of CREDENTIAL_MODELS) {
      const start = `${prefix}${model}:{`;
      for (const node of nodes) {
        for await (const keys of node.scanStream({ match: `${literal(start)}*`, count: 500 }) as AsyncIterable<string[]>) {
          for (const key of keys) {
            const id = key.slice(start.length, -1);
            // moved already (a key id never starts so: oidc-provider's ids are base64url)
            if (!key.endsWith('}') || id.startsWith('sha256:')) continue;
            if (await move(client, prefix, model, key, id)) report[model] = (report[model] ?? 0) + 1;
          }
        }
      }
    }
  } finally {
    if (!options.client) await client.quit().catch(() => client.disconnect());
  }
  return report;
}

/** Moves one record; false when it was gone before it could be. */
async function move(client: Redis | Cluster, prefix: string, model: string, key: string, id: string): Promise<boolean> {
  const target = recordKeyOf(prefix, model, keyIdOf(model, id));
  for (let tries = 0; tries < MAX_TRIES; tries += 1) {
    const [raw, ttl] = await Promise.all([client.get(key), client.pttl(key)]);
    if (raw === null) return false;
    // the id as this version stores it (storedJson): the first "jti" member, byte for byte
    const json = raw.replace(`"jti":${JSON.stringify(id)}`, '"jti":true');
    await (ttl > 0 ? client.set(target, json, 'PX', ttl) : client.set(target, json));
    const grantId = grantIdOf(raw);
    const index = grantId !== undefined && GRANTABLE_MODELS.has(model) ? grantIndexKeyOf(prefix, grantId) : undefined;
    if (index) await client.sadd(index, target);
    if (await client.eval(DELETE_IF_UNCHANGED, 1, key, raw) === 1) {
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
