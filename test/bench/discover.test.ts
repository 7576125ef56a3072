/**
 * Which storages a bench scenario runs on: every adapter `--adapter` selects, `none` once for a
 * scenario that never reaches storage, and only Redis for the one that prices Redis against
 * memory in the same run (on memory both of its sides would be the same server).
 */
import { discoverScenarios, storagesOf } from '../../bench/lib/discover.ts';
import type { Scenario } from '../../bench/lib/types.ts';

let scenarios: Scenario[];
const byId = (id: string): Scenario => scenarios.find((s) => s.id === id)!;

beforeAll(async () => {
  scenarios = await discoverScenarios();
});

describe('storagesOf', () => {
  it('runs a storage scenario on every selected adapter, a storage-free one once', () => {
    expect(storagesOf(byId('refresh'), ['memory', 'redis'])).toEqual(['memory', 'redis']);
    expect(storagesOf(byId('refresh'), ['redis'])).toEqual(['redis']);
    expect(storagesOf(byId('discovery'), ['memory', 'redis'])).toEqual(['none']);
  });

  it('runs refresh-redis on Redis only, against ours on memory in the same run', () => {
    const scenario = byId('refresh-redis');
    expect(storagesOf(scenario, ['memory', 'redis'])).toEqual(['redis']);
    expect(storagesOf(scenario, ['memory'])).toEqual([]);
    expect(scenario.targets).toEqual([{ kind: 'ratio', min: 0.8, against: 'ours-memory' }]);
    expect(scenario.baselines.map((b) => b.id)).toEqual(['ours-memory']);
  });

  it('runs refresh-coalescing on Redis only, against ours with coalesceWrites: false, as a report', () => {
    const scenario = byId('refresh-coalescing');
    expect(storagesOf(scenario, ['memory', 'redis'])).toEqual(['redis']);
    expect(scenario.baselines.map((b) => b.id)).toEqual(['ours-no-coalescing']);
    expect(scenario.targets ?? []).toEqual([]);
  });

  it('holds no target that compares two runs of a scenario', () => {
    for (const scenario of scenarios) {
      for (const rule of scenario.targets ?? []) expect([scenario.id, ['ratio', 'throughput'].includes(rule.kind)]).toEqual([scenario.id, true]);
    }
  });
});
