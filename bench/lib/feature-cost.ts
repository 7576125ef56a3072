/**
 * A scenario that prices one feature of ours: ours as a host runs it against ours started with
 * the feature off, in the same run and on the same storage, with another scenario's workload.
 * Two server processes per side, because one process as a whole can be biased by more than
 * the few per cent measured (bench/README.md, "A B A B"), and both sides of a pair loaded at
 * the same time, so that what the machine does meanwhile slows both alike (bench/README.md,
 * "Both sides at once"); the target is the features' ≤ 3%.
 *
 * @module
 */
import type { Scenario, ServerTarget } from './types.ts';

export interface FeatureCost {
  readonly id: string;
  readonly title: string;
  readonly order: number;
  readonly ours: ServerTarget;
  /** ours with the feature off */
  readonly baseline: ServerTarget;
  /** how the baseline is started, for the report: `events: false` */
  readonly off: string;
  /** what the ratio prices, for the report: `the grace wrapper costs a refresh` */
  readonly priced: string;
  /** the scenario whose requests are sent */
  readonly workload: Pick<Scenario, 'method' | 'prepare'>;
}

export function featureCostScenario(spec: FeatureCost): Scenario {
  return {
    id: spec.id,
    title: spec.title,
    unit: 'req/s',
    order: spec.order,
    ours: spec.ours,
    baselines: [spec.baseline],
    usesStorage: true,
    processesPerSide: 2,
    simultaneous: true,
    targets: [{ kind: 'ratio', min: 0.97, against: spec.baseline.id }],
    method: `${spec.workload.method} Both sides are ours (the demo host); the baseline is started with ${spec.off}, `
      + `so the ratio is what ${spec.priced} (target: ≤ 3%).`,
    prepare: spec.workload.prepare,
  };
}
