/**
 * HTTP workloads on autocannon, run in this (the load generator's) process.
 *
 * Each connection gets its own request list from `connection()`, so a scenario can keep
 * per-connection state in closures: autocannon resets its own `context` every time a
 * connection loops over its list, which rules it out for a refresh-token chain.
 *
 * @module
 */
import autocannon from 'autocannon';

import { percentile } from '../lib/stats.ts';
import type { LoadResult, RunOptions, Workload } from '../lib/types.ts';

export interface BenchRequest {
  readonly method?: 'GET' | 'POST';
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /** per request: fills in what changes (a token from a pool, the connection's refresh token) */
  readonly setup?: (request: autocannon.RawRequest) => autocannon.RawRequest;
  /**
   * Checks a response that has an expected status: `false` counts it as an error (say, an
   * introspection answering `active: false`). Also where chains pick up their next token.
   */
  readonly verify?: (body: string) => boolean;
}

export interface HttpWorkloadOptions {
  readonly origin: string;
  /** the requests one connection sends in a loop; called per connection and per run */
  connection(index: number): readonly BenchRequest[];
  /** statuses that count as success @default [200] */
  readonly expect?: readonly number[];
  /** `Workload.beforeRun`: before each run, outside the measurement */
  beforeRun?(options: RunOptions): Promise<void>;
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** Form-encoded POST body and its content type. */
export function form(fields: Record<string, string>): Pick<BenchRequest, 'method' | 'headers' | 'body'> {
  return { method: 'POST', headers: FORM, body: new URLSearchParams(fields).toString() };
}

export function httpWorkload(options: HttpWorkloadOptions): Workload {
  const expect = new Set(options.expect ?? [200]);
  return {
    beforeRun: options.beforeRun,
    async run(run: RunOptions): Promise<LoadResult> {
      let invalid = 0;
      let connections = 0;
      // keys left out rather than undefined: autocannon's Object.assign would let undefined win over its defaults
      const toAutocannon = (request: BenchRequest): autocannon.Request => ({
        method: request.method ?? 'GET',
        path: request.path,
        ...(request.headers && { headers: request.headers }),
        ...(request.body !== undefined && { body: request.body }),
        ...(request.setup && { setupRequest: request.setup }),
        ...(request.verify && {
          onResponse(status: number, body: string) {
            if (expect.has(status) && !request.verify!(body)) invalid += 1;
          },
        }),
      });
      const latencies: number[] = [];
      const instance = autocannon({
        url: options.origin,
        connections: run.connections,
        duration: run.durationS,
        // a run ends at the first sample after its duration: at the default 1 s a 1 s run can last 2 s
        sampleInt: 100,
        timeout: 10,
        setupClient(client) {
          client.setRequests(options.connection(connections++).map(toAutocannon));
        },
      });
      // autocannon's own histogram has 1 ms resolution; sub-millisecond endpoints need better
      instance.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => {
        latencies.push(ms);
      });
      const result = await instance;
      const statuses: Record<string, number> = {};
      let unexpected = 0;
      let responses = 0;
      for (const [status, { count }] of Object.entries(result.statusCodeStats)) {
        statuses[status] = count;
        responses += count;
        if (!expect.has(Number(status))) unexpected += count;
      }
      if (invalid) statuses.invalid = invalid;
      if (result.errors) statuses.connectionErrors = result.errors;
      const completed = responses - unexpected - invalid;
      return {
        completed,
        errors: result.errors + unexpected + invalid,
        durationS: result.duration,
        throughput: completed / result.duration,
        latencyP50Ms: percentile(latencies, 50),
        latencyP99Ms: percentile(latencies, 99),
        statuses,
      };
    },
  };
}
