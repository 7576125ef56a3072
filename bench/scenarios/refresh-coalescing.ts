/**
 * What the Redis adapter's write coalescing gains a refresh (adapters/redis.ts,
 * `coalesceWrites`): ours as a host runs it against ours on an adapter that writes each
 * command at once, in the same run and on the same Redis. Under concurrent load the commands
 * of the requests one loop iteration serves share a socket write; a refresh is two commands,
 * each otherwise a system call of its own. Reported, not held to a target: it is the measure
 * behind the option's default.
 */
import type { Scenario } from '../lib/types.ts';
import { ours, oursNoCoalescing } from '../servers/ours.ts';
import { REFRESH_METHOD, refreshWorkload } from './refresh.ts';

const scenario: Scenario = {
  id: 'refresh-coalescing',
  title: 'Refresh grant on Redis, coalesced writes vs coalesceWrites: false',
  unit: 'req/s',
  order: 33,
  ours,
  baselines: [oursNoCoalescing],
  usesStorage: true,
  storages: ['redis'],
  processesPerSide: 2,
  simultaneous: true,
  method: `${REFRESH_METHOD} Both sides are ours (the demo host) on the run's Redis; the baseline's adapter is `
    + 'created with coalesceWrites: false, so the ratio is what holding one loop iteration\'s commands for one socket '
    + 'write gains a refresh.',
  prepare: async (server) => refreshWorkload(server),
};

export default scenario;
