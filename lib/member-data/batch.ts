/**
 * A per-request batch loader: every key asked for in the same turn of the event loop goes to
 * the data source in one call, and each key is fetched once. This is what keeps a page of 100
 * enrolments at one progress lookup instead of 100.
 *
 * @module
 */

export type BatchLoad<K, V> = (keys: readonly K[]) => Promise<ReadonlyMap<K, V>>;

export type Loader<K, V> = (key: K) => Promise<V | undefined>;

export function createBatchLoader<K, V>(batch: BatchLoad<K, V>): Loader<K, V> {
  const cache = new Map<K, Promise<V | undefined>>();
  let queue: { key: K; resolve: (v: V | undefined) => void; reject: (e: unknown) => void }[] = [];

  function dispatch() {
    const jobs = queue;
    queue = [];
    batch(jobs.map((j) => j.key)).then(
      (found) => { for (const j of jobs) j.resolve(found.get(j.key)); },
      (error: unknown) => { for (const j of jobs) j.reject(error); },
    );
  }

  return function load(key: K) {
    const cached = cache.get(key);
    if (cached) return cached;
    const promise = new Promise<V | undefined>((resolve, reject) => {
      // after the promise jobs already queued, as DataLoader does: resolvers of sibling list
      // items run in those jobs and join the same batch
      if (queue.length === 0) void Promise.resolve().then(() => process.nextTick(dispatch));
      queue.push({ key, resolve, reject });
    });
    cache.set(key, promise);
    return promise;
  };
}
