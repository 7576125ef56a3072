/**
 * The shape of bench/results/*.json: everything the markdown, the chart and the target
 * checks are derived from.
 *
 * @module
 */
import type { LoadResult, StorageKind } from './types.ts';

export interface MemorySample {
  readonly rss: number;
  /** V8 heap in use after the same GC: a leak grows it, memory merely kept resident does not */
  readonly heapUsed: number;
  /** requests answered when the sample was taken */
  readonly requests: number;
}

/** One measured run, with what it cost the server. */
export interface RunResult extends LoadResult {
  /**
   * Server CPU time (user + system, GC and storage client included) per completed unit, in
   * microseconds. Other processes on the machine slow a server down but barely change what
   * a request costs it, so this is the steadier figure on a busy machine.
   */
  readonly serverCpuUsPerUnit: number;
  /**
   * The load generator's (this process's) CPU time per completed unit, in microseconds. It
   * shares the machine's cores with the server, so a side that costs it more (say, a request
   * rebuilt per send) is slowed by work no server does; absent in results of older runs.
   */
  readonly loadCpuUsPerUnit?: number;
}

export interface SubjectResult {
  readonly id: string;
  readonly label: string;
  /** one per measured run, in order */
  readonly runs: readonly RunResult[];
  readonly medianThroughput: number;
  readonly medianCpuUsPerUnit: number;
  readonly medianP50Ms: number;
  readonly medianP99Ms: number;
  readonly errors: number;
  readonly rss: {
    /** idle, right after start-up */
    readonly start: number;
    /** after preparation and warm-up, before the first measured run */
    readonly before: number;
    readonly after: number;
    /**
     * The first sample at rest (between runs, after a full GC) once the server had answered
     * 10k / 100k requests, warm-up and preparation included.
     */
    readonly at10k?: MemorySample;
    readonly at100k?: MemorySample;
  };
  readonly requests: number;
  readonly cpuProfile?: string;
}

export interface RatioResult {
  readonly against: string;
  /** ours' throughput / the baseline's, per pair */
  readonly perPair: readonly number[];
  readonly median: number;
  /** the baseline's server CPU per unit / ours', per pair: above 1, ours costs less */
  readonly cpuPerPair: readonly number[];
  readonly cpuMedian: number;
}

export interface ScenarioResult {
  readonly id: string;
  readonly title: string;
  readonly unit: string;
  readonly order: number;
  readonly storage: StorageKind;
  readonly method: string;
  /** ours first, then the baselines */
  readonly subjects: readonly SubjectResult[];
  readonly ratios: readonly RatioResult[];
  /** set when the scenario could not be run to the end */
  readonly failure?: string;
}

export type TargetStatus = 'met' | 'missed' | 'not measured';

export interface TargetResult {
  readonly target: string;
  readonly scenario: string;
  readonly storage: StorageKind;
  readonly status: TargetStatus;
  readonly measured: string;
  /** for a miss or a gap: what the numbers show, and what profiling found (bench/findings.ts) */
  readonly why?: string;
}

export interface BenchResults {
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly mode: 'full' | 'quick' | 'partial';
  readonly settings: {
    readonly pairs: number;
    readonly durationS: number;
    readonly warmupS: number;
    readonly connections: number;
    readonly adapters: readonly string[];
    readonly only: readonly string[];
    /** the servers ran with --experimental-async-context-frame (absent in older results: no) */
    readonly asyncContextFrame?: boolean;
  };
  readonly machine: {
    readonly node: string;
    readonly cpus: number;
    readonly cpuModel: string;
    readonly loadavgStart: readonly number[];
    readonly loadavgEnd: readonly number[];
    readonly commit: string | undefined;
  };
  readonly scenarios: readonly ScenarioResult[];
  readonly targets: readonly TargetResult[];
}
