/**
 * What the refresh-token grace rule costs a refresh at the storage layer, without HTTP:
 *
 *   node bench/grace-cost.ts [--rounds 30] [--per-round 5000] [--help]
 *
 * The `refresh-grace` scenario measures the same through the whole server, where a difference
 * of a few per cent is within the run's noise (two server processes of the same code differ by
 * more). Here one process runs both sides, alternately, on the memory adapter: the storage
 * calls oidc-provider makes for a rotating refresh (read the token, consume it, store its
 * successor, store the access token), each refresh in a request context of its own as
 * `Provider.ctx` gives one, with `refreshTokenGrace` 30 s (`withRefreshGrace`) and without
 * (the adapter alone, whose `consume` marks the token). It prints the CPU time per refresh of
 * each side (median over the rounds) and their difference. What the rest of a refresh costs
 * the server (about 230 µs on the 2-vCPU VM, 2026-11-24) is in the bench results.
 *
 * @module
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';

import { createMemoryAdapter } from '../adapters/memory.ts';
import type { Adapter } from '../adapters/types.ts';
import { withRefreshGrace } from '../lib/policies/refresh-grace.ts';
import { roundsOf } from './lib/command-line.ts';
import { median } from './lib/stats.ts';

const WARM_UP_ROUNDS = 4;
const USAGE = `usage: node bench/grace-cost.ts [--rounds N (above ${WARM_UP_ROUNDS}, default 30)] [--per-round N (default 5000)] [--help]`;

const CHAINS = 8;

const requests = new AsyncLocalStorage<object>();

// ids are made before measuring (see measure): their randomness is no part of either side's cost
let ids: string[] = [];
let nextId = 0;
const newId = () => ids[nextId++]!;

/** A refresh token's or access token's payload as oidc-provider stores it for the demo's member client. */
function payload(kind: 'RefreshToken' | 'AccessToken', jti: string, grantId: string, rotations: number) {
  const now = Math.floor(Date.now() / 1000);
  return {
    iat: now, exp: now + (kind === 'RefreshToken' ? 1_209_600 : 3600), accountId: 'acc-student', clientId: 'demo-member-app',
    gty: 'authorization_code refresh_token', grantId, kind, jti, scope: 'openid profile email account:read',
    ...(kind === 'RefreshToken' ? { rotations, iiat: now, resource: 'http://127.0.0.1:3000' } : { aud: 'http://127.0.0.1:3000' }),
    sessionUid: 'session-uid', expiresWithSession: false, extra: { org_id: 'site-1' },
  };
}

interface Side {
  readonly refreshTokens: Adapter;
  readonly accessTokens: Adapter;
  readonly chains: { grantId: string; token: string; rotations: number }[];
  readonly cpuUs: number[];
}

async function side(grace: boolean): Promise<Side> {
  const memory = createMemoryAdapter();
  const factory = grace ? withRefreshGrace(memory, { graceSeconds: 30, request: () => requests.getStore() }) : memory;
  const refreshTokens = factory('RefreshToken');
  const chains = [];
  for (let i = 0; i < CHAINS; i += 1) {
    const grantId = newId();
    const token = newId();
    await refreshTokens.upsert(token, payload('RefreshToken', token, grantId, 0), 1_209_600);
    chains.push({ grantId, token, rotations: 0 });
  }
  return { refreshTokens, accessTokens: factory('AccessToken'), chains, cpuUs: [] };
}

/** `count` refreshes, as oidc-provider's refresh grant calls the adapters; CPU µs per refresh. */
async function refreshes(s: Side, count: number): Promise<number> {
  const started = process.cpuUsage();
  for (let i = 0; i < count; i += 1) {
    const chain = s.chains[i % CHAINS]!;
    await requests.run({}, async () => {
      if (!await s.refreshTokens.find(chain.token)) throw new Error('a refresh token of the chain is gone');
      await s.refreshTokens.consume(chain.token);
      const successor = newId();
      await s.refreshTokens.upsert(successor, payload('RefreshToken', successor, chain.grantId, chain.rotations + 1), 1_209_600);
      const accessToken = newId();
      await s.accessTokens.upsert(accessToken, payload('AccessToken', accessToken, chain.grantId, 0), 3600);
      chain.token = successor;
      chain.rotations += 1;
    });
  }
  const { user, system } = process.cpuUsage(started);
  return (user + system) / count;
}

/** Both sides, `rounds` rounds of `perRound` refreshes each, alternately; prints the medians. */
async function measure({ rounds, perRound }: { rounds: number; perRound: number }): Promise<void> {
  ids = Array.from({ length: 2 * (rounds * perRound + CHAINS) * 2 }, () => randomBytes(32).toString('base64url'));
  const sides = { grace: await side(true), strict: await side(false) };
  for (let round = 0; round < rounds; round += 1) {
    // alternate which side goes first, so neither always follows the other's garbage
    for (const s of round % 2 === 0 ? [sides.grace, sides.strict] : [sides.strict, sides.grace]) {
      const us = await refreshes(s, perRound);
      if (round >= WARM_UP_ROUNDS) s.cpuUs.push(us);
    }
  }
  const grace = median(sides.grace.cpuUs);
  const strict = median(sides.strict.cpuUs);
  const measured = rounds - WARM_UP_ROUNDS;
  console.log(`refreshTokenGrace 30 s: ${grace.toFixed(2)} µs per refresh at the storage layer; refreshTokenGrace 0: ${strict.toFixed(2)} µs; `
    + `the grace adds ${(grace - strict).toFixed(2)} µs (${measured} round${measured === 1 ? '' : 's'} of ${perRound}, medians)`);
}

const asked = roundsOf(USAGE, { rounds: 30, perRound: 5000 }, WARM_UP_ROUNDS);
if (typeof asked === 'number') process.exitCode = asked;
else await measure(asked);
