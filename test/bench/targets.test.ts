/**
 * The causes a bench report names next to a missed ratio: by server CPU per request, a
 * cause is named only for sides measured one after the other. Loaded at once, identical
 * servers have read as far apart by CPU cost as by throughput (bench/README.md, "Both sides
 * at once"), so there the figure is given and no cause.
 */
import type { ScenarioResult, SubjectResult } from '../../bench/lib/results.ts';
import { evaluateTargets } from '../../bench/lib/targets.ts';
import type { Scenario } from '../../bench/lib/types.ts';

const subject = (id: string): SubjectResult => ({
  id, label: id, runs: [], medianThroughput: 1000, medianCpuUsPerUnit: 300, medianP50Ms: 1, medianP99Ms: 2, errors: 0,
  rss: { start: 0, before: 0, after: 0 }, requests: 1000,
});

function missedBy(simultaneous: boolean, cpuMedian: number) {
  const scenario = {
    id: 'feature-cost', title: 'A feature', unit: 'req/s', order: 1, usesStorage: true, simultaneous,
    ours: { id: 'ours' }, baselines: [{ id: 'ours-off' }], targets: [{ kind: 'ratio', min: 0.97 }],
  } as unknown as Scenario;
  const perPair = [0.9, 0.92, 0.95, 0.93, 0.96, 0.91];
  const result: ScenarioResult = {
    id: 'feature-cost', title: 'A feature', unit: 'req/s', order: 1, storage: 'memory', method: '',
    subjects: [subject('ours'), subject('ours-off')],
    ratios: [{ against: 'ours-off', perPair, median: 0.925, cpuPerPair: perPair.map(() => cpuMedian), cpuMedian }],
  };
  const [target] = evaluateTargets([scenario], [result]);
  expect(target!.status).toBe('missed');
  return target!.why ?? '';
}

it('one side after the other: a CPU-cost ratio short of the target too puts the gap in the work', () => {
  expect(missedBy(false, 0.9)).toContain('Server CPU per request gives 0.900 too, short of 0.97: the gap is in the work each request costs');
  expect(missedBy(false, 1.01)).toContain('the throughput gap is more likely contention on the machine');
});

it('both sides at once: the CPU-cost ratio is given and no cause is named', () => {
  for (const cpu of [0.9, 1.01]) {
    const why = missedBy(true, cpu);
    expect(why).toContain(`By server CPU per request: ${cpu.toFixed(3)}. Both sides ran at once`);
    expect(why).toContain('Both sides at once');
    expect(why).not.toMatch(/the gap is in the work|contention on the machine/);
  }
});
