/**
 * What the refresh-token grace costs (lib/policies/refresh-grace.ts): ours as a host runs it
 * (`refreshTokenGrace` at its default, 30 s) against ours with `refreshTokenGrace: 0`, which
 * leaves the RefreshToken storage unwrapped, in the same run and on the same storage. The
 * workload is the `refresh` scenario's: one rotation chain per connection, every request
 * presenting the refresh token the previous answer returned.
 *
 * With the grace on, a rotation marks the presented token `rotatedAt` (a rewrite of its
 * record) and writes a `RefreshTokenUse` record for its generation, where strict single use
 * only consumes it; the rare paths (a rotated token presented again) are not exercised here.
 */
import type { Scenario } from '../lib/types.ts';
import { ours, oursNoGrace } from '../servers/ours.ts';
import { REFRESH_METHOD, refreshWorkload } from './refresh.ts';

const scenario: Scenario = {
  id: 'refresh-grace',
  title: 'Refresh grant, grace on (30 s) vs refreshTokenGrace: 0',
  unit: 'req/s',
  order: 31,
  ours,
  baselines: [oursNoGrace],
  usesStorage: true,
  processesPerSide: 2,
  targets: [{ kind: 'ratio', min: 0.97, against: oursNoGrace.id }],
  method: `${REFRESH_METHOD} Both sides are ours (the demo host); the baseline is started with refreshTokenGrace: 0, `
    + 'so the ratio is what the grace wrapper costs a refresh (target: ≤ 3%).',
  prepare: async (server) => refreshWorkload(server),
};

export default scenario;
