/**
 * What the refresh rate per grant costs a refresh (lib/policies/refresh-rate.ts): ours as the
 * bench runs it (every refresh counted against its grant before the token is rotated, the
 * budget raised out of the load generator's reach) against ours with
 * `refreshTokenRateLimit: false`, in the same run and on the same storage. The workload is the
 * `refresh` scenario's: one rotation chain per connection, so one grant per connection.
 *
 * Counting is a read and a write of one small record per refresh, made by the script that
 * reads the token on a single Redis (no command more), in the same synchronous step as the
 * read on the memory adapter.
 */
import { featureCostScenario } from '../lib/feature-cost.ts';
import { ours, oursNoRefreshRate } from '../servers/ours.ts';
import refresh from './refresh.ts';

export default featureCostScenario({
  id: 'refresh-rate',
  title: 'Refresh grant, refresh rate per grant on vs refreshTokenRateLimit: false',
  order: 34,
  ours,
  baseline: oursNoRefreshRate,
  off: 'refreshTokenRateLimit: false',
  priced: 'counting each refresh against its grant costs a refresh',
  workload: refresh,
});
