/**
 * The benchmark's extension points. A scenario is one file under `bench/scenarios/` that
 * default-exports a `Scenario`; `bench/run.ts` finds it by listing that folder, so adding
 * `/account/graphql` or `/mcp` needs no edit anywhere else.
 *
 * A scenario names the servers it compares (`ours`, then one or more `baselines`), each a
 * `ServerTarget`: a module and export that builds the server inside its own child process.
 * A scenario may define its baselines in its own file (`module: import.meta.url`).
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import type { JWKS } from 'oidc-provider';

import type { RedisAdapterOptions } from '../../adapters/redis.ts';
import type { AdapterFactory } from '../../adapters/types.ts';

/** Which storage the servers of a scenario run on; `none` for scenarios that touch none. */
export type AdapterKind = 'memory' | 'redis';
export type StorageKind = AdapterKind | 'none';

/** A server a scenario measures: built in a child process by `module`'s `export`. */
export interface ServerTarget {
  /** stable id, used in results and in `TargetRule.against` (`ours`, `oidc-provider`, `koa`) */
  readonly id: string;
  /** shown in tables and the chart */
  readonly label: string;
  /** `import.meta.url` of the module that exports the builder */
  readonly module: string;
  /** name of the exported `BuildServer` function */
  readonly export: string;
}

/** What a server builder receives inside its child process. */
export interface ServerEnv {
  /** `http://127.0.0.1:<port>`: the server is already listening there, so this is the issuer */
  readonly origin: string;
  readonly storage: StorageKind;
  /**
   * A fresh adapter on the scenario's storage (Redis under a key prefix of its own; memory for
   * `memory` and `none`); `redis` changes options of the Redis adapter, for ours-against-ours
   * scenarios (`coalesceWrites: false`).
   */
  createAdapter(redis?: Pick<RedisAdapterOptions, 'coalesceWrites'>): AdapterFactory & { close(): Promise<void> };
  /** one ES256 private key shared by every server of a run, so signing costs are equal */
  readonly jwks: JWKS;
  readonly cookieKeys: string[];
}

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

export interface BuiltServer {
  readonly listener: RequestListener;
  /**
   * Bench-only hooks the parent may call over IPC (e.g. `mintAccessTokens`), for
   * preparation that would take too long over HTTP. Never called while measuring.
   */
  readonly commands?: Readonly<Record<string, (arg: unknown) => Promise<unknown>>>;
  close(): Promise<void>;
}

export type BuildServer = (env: ServerEnv) => Promise<BuiltServer>;

/** A server running in its child process, seen from the load generator. */
export interface RunningServer {
  readonly target: ServerTarget;
  readonly origin: string;
  readonly storage: StorageKind;
  /** calls one of `BuiltServer.commands` in the child */
  command<T = unknown>(name: string, arg?: unknown): Promise<T>;
}

/** One measured run of a workload against one server. */
export interface LoadResult {
  /** units completed as expected (requests or flows) */
  readonly completed: number;
  /** units that failed: connection errors, timeouts, unexpected statuses or bodies */
  readonly errors: number;
  readonly durationS: number;
  /** completed / durationS */
  readonly throughput: number;
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
  /** status code → count, for the error column's explanation */
  readonly statuses: Readonly<Record<string, number>>;
}

export interface RunOptions {
  readonly durationS: number;
  /** concurrent connections (autocannon) or concurrent virtual users (flows) */
  readonly connections: number;
}

/** What a scenario prepared against one server; run once per warm-up and per measured run. */
export interface Workload {
  /**
   * Before each run, outside the measurement and outside the server CPU it is charged
   * (mint the tokens the run will consume, seed refresh chains).
   */
  beforeRun?(options: RunOptions): Promise<void>;
  run(options: RunOptions): Promise<LoadResult>;
}

/**
 * A target the issue holds a scenario to, evaluated after the run (bench/lib/targets.ts).
 * - `ratio`: median ours/baseline ratio ≥ `min` (against the first baseline unless named);
 * - `throughput`: ours' median throughput ≥ `min` units per second.
 *
 * What Redis costs ours against memory is a `ratio` too, ours on Redis against ours on memory
 * in the same run (bench/scenarios/refresh-redis.ts), never two runs compared.
 */
export type TargetRule =
  | { readonly kind: 'ratio'; readonly min: number; readonly against?: string }
  | { readonly kind: 'throughput'; readonly min: number };

export interface Scenario {
  /** `--only` selects by this id (`refresh`, `account-graphql`, `mcp-tools-list`) */
  readonly id: string;
  readonly title: string;
  /** `req/s` for autocannon workloads, `flows/s` for the login flow */
  readonly unit: 'req/s' | 'flows/s';
  /** orders the report; lower first */
  readonly order: number;
  readonly ours: ServerTarget;
  /** at least one; with several, each run visits ours, then every baseline, in turn */
  readonly baselines: readonly ServerTarget[];
  /** false when no request of the scenario reaches storage: then it runs once, not per adapter */
  readonly usesStorage: boolean;
  /**
   * The adapters it runs on, of those `--adapter` selects (default: all of them); only with
   * `usesStorage`. A scenario that compares ours on Redis with ours on memory runs on `redis`.
   */
  readonly storages?: readonly AdapterKind[];
  readonly targets?: readonly TargetRule[];
  /** one line for the report: what a unit of work is and how tokens were prepared */
  readonly method: string;
  /**
   * Server processes per side (default 1); pair p measures process p mod n of every side.
   * One process as a whole can be biased by ±25% (bench/README.md, "A B A B"): scenarios
   * whose ratio is ours against ours (a feature's cost, a few per cent) spread it over two.
   * Memory samples come from the first process only.
   */
  readonly processesPerSide?: number;
  /**
   * Load every side of a pair at the same time, each with its own connections, instead of one
   * after the other; such a scenario measures twice the pairs (`--pairs`) in the same time
   * (bench/lib/orchestrate.ts). For ratios of ours against ours (a feature's cost): both sides
   * then meet the same moment of the machine, where one after the other a same-code A/A on
   * the 2-vCPU VM spread twice as far per pair (bench/README.md, "Both sides at once").
   */
  readonly simultaneous?: boolean;
  /** Called once per server after it started: obtain tokens, build request lists. */
  prepare(server: RunningServer): Promise<Workload>;
}
