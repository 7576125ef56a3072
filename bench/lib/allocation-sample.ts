/**
 * Samples the bytes a process allocates, for `node bench/instructions.ts --measure allocations`:
 * loaded into a server child with `--import`, it leaves on `globalThis` a sampler that the
 * child's `$allocations` call starts and stops (bench/lib/server-child.ts).
 *
 * Why allocations: the garbage collector was the largest single difference between ours and
 * bare oidc-provider in a CPU profile of a revocation (2026-11-29: 20.4 against 15.5 µs of
 * sampled time per request; the pauses `perf_hooks` reports came out alike, bench/README),
 * and what it collects is what the request allocated. V8's
 * sampling heap profiler, told to keep the objects that minor and major collections have
 * since freed (`includeObjectsCollectedByMinorGC`, `…MajorGC`), estimates every byte
 * allocated, not only what survives, and names the function that allocated it. The
 * estimate is unbiased (each sample is scaled by its chance of being taken) and moves by a
 * few percent between runs of the same code, where seconds move by 10-30% on a busy machine.
 *
 * @module
 */
import { Session } from 'node:inspector';

import { ALLOCATION_SAMPLER } from './protocol.ts';
import type { AllocationSample, AllocationSampler } from './protocol.ts';

/** bytes between samples: fine enough for a few hundred samples per cheap request */
const SAMPLING_INTERVAL = 1024;

interface CallFrame { readonly functionName: string; readonly url: string; readonly lineNumber: number }
interface SamplingNode { readonly callFrame: CallFrame; readonly selfSize: number; readonly children: readonly SamplingNode[] }

const REPO = new URL('../../', import.meta.url).href;

function place({ functionName, url, lineNumber }: CallFrame): string {
  const where = url.startsWith(REPO) ? url.slice(REPO.length) : url;
  return `${functionName || '(anonymous)'} ${where || '(native)'}${where ? `:${lineNumber + 1}` : ''}`;
}

/** The bytes sampled under `head`, in all and by the function that allocated them. */
export function summarise(head: SamplingNode): AllocationSample {
  const byFunction = new Map<string, number>();
  let bytes = 0;
  const stack: SamplingNode[] = [head];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.selfSize > 0) {
      bytes += node.selfSize;
      const key = place(node.callFrame);
      byFunction.set(key, (byFunction.get(key) ?? 0) + node.selfSize);
    }
    stack.push(...node.children);
  }
  const top = [...byFunction].sort((a, b) => b[1] - a[1]).map(([fn, size]) => ({ fn, bytes: size }));
  return { bytes, top };
}

const session = new Session();
session.connect();
let running = false;

function post<T>(method: string, params?: object): T {
  let result: T | undefined;
  let failure: Error | null = null;
  // the same-thread session answers synchronously
  session.post(method, params, (error, value) => {
    failure = error;
    result = value as T;
  });
  if (failure) throw failure;
  return result as T;
}

const sampler: AllocationSampler = {
  start() {
    if (running) throw new Error('allocation sampling is already on');
    post('HeapProfiler.enable');
    post('HeapProfiler.startSampling', {
      samplingInterval: SAMPLING_INTERVAL, includeObjectsCollectedByMinorGC: true, includeObjectsCollectedByMajorGC: true,
    });
    running = true;
  },
  stop() {
    if (!running) throw new Error('allocation sampling is not on');
    running = false;
    const { profile } = post<{ profile: { head: SamplingNode } }>('HeapProfiler.stopSampling');
    return summarise(profile.head);
  },
};

// the sampler the child's `$allocations` call drives
(globalThis as Record<symbol, unknown>)[ALLOCATION_SAMPLER] = sampler;
