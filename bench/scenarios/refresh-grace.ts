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
import { featureCostScenario } from '../lib/feature-cost.ts';
import { ours, oursNoGrace } from '../servers/ours.ts';
import refresh from './refresh.ts';

export default featureCostScenario({
  id: 'refresh-grace',
  title: 'Refresh grant, grace on (30 s) vs refreshTokenGrace: 0',
  order: 31,
  ours,
  baseline: oursNoGrace,
  off: 'refreshTokenGrace: 0',
  priced: 'the grace wrapper costs a refresh',
  workload: refresh,
});
