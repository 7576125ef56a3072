/**
 * What keeping credentials under their SHA-256 (adapters/redis-keys.ts) costs a refresh and a
 * revocation on Redis, without HTTP or Redis:
 *
 *   node bench/key-hash-cost.ts [--rounds 30] [--per-round 20000] [--help]
 *
 * The rule changes no command and no round trip: what it adds is CPU in the adapter, the
 * hash of each credential id it names a key by, the copy of a payload written with
 * `"jti":true`, and the id given back on read. One process runs both sides alternately: the
 * key and JSON work of the adapter's calls for one rotating refresh (read the refresh token,
 * mark it, store its successor and the access token: 4 keys, 3 payloads written, 1 read) and
 * for one revocation (read the access token, delete it: 2 keys, 1 read), with the rule
 * (`keyIdOf`, `storedJson`, `withId`) and with 0.1.0's raw layout (the id in the key, the
 * payload as it is). It prints the CPU time of each side (median over the rounds), their
 * difference, and that difference against the server CPU a refresh and a revocation on Redis
 * cost in the last full bench run (bench/results/latest.json), same-run figures of their own.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';

import { keyIdOf, recordKeyOf, storedJson, withId } from '../adapters/redis-keys.ts';
import type { AdapterPayload } from '../adapters/types.ts';
import { roundsOf } from './lib/command-line.ts';
import { median } from './lib/stats.ts';

const WARM_UP_ROUNDS = 4;
const USAGE = `usage: node bench/key-hash-cost.ts [--rounds N (above ${WARM_UP_ROUNDS}, default 30)] [--per-round N (default 20000)] [--help]`;
const PREFIX = 'platform-auth:';

/** A token's payload as oidc-provider stores it for the demo's member client. */
function payload(kind: 'RefreshToken' | 'AccessToken', jti: string): AdapterPayload {
  const now = Math.floor(Date.now() / 1000);
  return {
    iat: now, exp: now + 3600, accountId: 'acc-student', clientId: 'demo-member-app', gty: 'authorization_code refresh_token',
    grantId: 'grant-1', kind, jti, scope: 'openid profile email account:read', sessionUid: 'session-uid', expiresWithSession: false,
    ...(kind === 'RefreshToken' ? { rotations: 1, iiat: now, resource: 'http://127.0.0.1:3000' } : { aud: 'http://127.0.0.1:3000', extra: { org_id: 'site-1' } }),
  };
}

/** The key and JSON work of the adapter's calls, with the rule or with the raw layout. */
interface Layout {
  key(model: string, id: string): string;
  json(model: string, id: string, payload: AdapterPayload): string;
  read(id: string, payload: AdapterPayload): AdapterPayload | undefined;
}

const hashed: Layout = {
  key: (model, id) => recordKeyOf(PREFIX, model, keyIdOf(model, id)),
  json: storedJson,
  read: withId,
};
const raw: Layout = {
  key: (model, id) => recordKeyOf(PREFIX, model, id),
  json: (_model, _id, p) => JSON.stringify(p),
  read: (_id, p) => p,
};

let sink = 0;

/** CPU µs per unit of `count` refreshes' or revocations' key work. */
function run(layout: Layout, what: 'refresh' | 'revocation', ids: string[], stored: AdapterPayload[], count: number): number {
  const started = process.cpuUsage();
  for (let i = 0; i < count; i += 1) {
    const id = ids[i % ids.length]!;
    const next = ids[(i + 1) % ids.length]!;
    // a parsed record, as the adapter reads one (a copy: withId writes to it)
    const found = { ...stored[i % stored.length]! };
    if (what === 'refresh') {
      sink += layout.key('RefreshToken', id).length;
      sink += layout.read(id, found) === undefined ? 0 : 1;
      sink += layout.key('RefreshToken', id).length + layout.json('RefreshToken', id, found).length;
      sink += layout.key('RefreshToken', next).length + layout.json('RefreshToken', next, payload('RefreshToken', next)).length;
      sink += layout.key('AccessToken', next).length + layout.json('AccessToken', next, payload('AccessToken', next)).length;
    } else {
      sink += layout.key('AccessToken', id).length;
      sink += layout.read(id, found) === undefined ? 0 : 1;
      sink += layout.key('AccessToken', id).length;
    }
  }
  const { user, system } = process.cpuUsage(started);
  return (user + system) / count;
}

/** Server CPU µs per unit of ours on Redis in the last full run (median of its runs), when it has the scenario. */
function lastRun(scenario: string): number | undefined {
  try {
    const results = JSON.parse(readFileSync(new URL('./results/latest.json', import.meta.url), 'utf8')) as {
      scenarios?: { id: string; storage: string; subjects: { id: string; runs: { serverCpuUsPerUnit?: number }[] }[] }[];
    };
    const ours = results.scenarios?.find((s) => s.id === scenario && s.storage === 'redis')?.subjects.find((s) => s.id === 'ours');
    const cpu = ours?.runs.map((r) => r.serverCpuUsPerUnit).filter((us): us is number => typeof us === 'number') ?? [];
    return cpu.length > 0 ? median(cpu) : undefined;
  } catch {
    return undefined;
  }
}

function measure({ rounds, perRound }: { rounds: number; perRound: number }): void {
  const ids = Array.from({ length: 1024 }, () => randomBytes(32).toString('base64url'));
  for (const what of ['refresh', 'revocation'] as const) {
    const model = what === 'refresh' ? 'RefreshToken' : 'AccessToken';
    // what each side reads back: the rule's records hold jti as true
    const storedBy = (layout: Layout) => ids.map((id) => JSON.parse(layout.json(model, id, payload(model, id))) as AdapterPayload);
    const sides = [{ name: 'hashed', layout: hashed, stored: storedBy(hashed), us: [] as number[] }, { name: 'raw', layout: raw, stored: storedBy(raw), us: [] as number[] }];
    for (let round = 0; round < rounds; round += 1) {
      for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
        const us = run(side.layout, what, ids, side.stored, perRound);
        if (round >= WARM_UP_ROUNDS) side.us.push(us);
      }
    }
    const [withRule, without] = sides.map((side) => median(side.us));
    const added = withRule! - without!;
    const server = lastRun(what);
    const share = server === undefined ? '' : `, ${((added / server) * 100).toFixed(2)}% of the ${server.toFixed(0)} µs of server CPU a ${what} on Redis cost in bench/results/latest.json`;
    console.log(`${what}: key and JSON work ${withRule!.toFixed(2)} µs with hashed credential keys, ${without!.toFixed(2)} µs with raw ids; `
      + `the rule adds ${added.toFixed(2)} µs${share} (${rounds - WARM_UP_ROUNDS} round${rounds - WARM_UP_ROUNDS === 1 ? '' : 's'} of ${perRound}, medians)`);
  }
  // read, so that no side's work can be left out as unused
  if (sink === 0) console.log('');
}

const asked = roundsOf(USAGE, { rounds: 30, perRound: 20000 }, WARM_UP_ROUNDS);
if (typeof asked === 'number') process.exitCode = asked;
else measure(asked);
