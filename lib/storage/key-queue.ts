/**
 * One operation at a time per key within this process: the read-modify-writes of the
 * library's own records (sign-in throttle counters, fetch budgets, rate limits, grant chain
 * heads, per-site client lists) queue behind the earlier ones of the same key. Concurrent
 * requests of one instance then never race each other for a key; only other instances can,
 * and each caller handles that with compare-and-set or by reading back.
 *
 * An operation runs whether the one before it succeeded or failed, and its own outcome is
 * its caller's alone. A key's entry is dropped once its last operation has settled.
 *
 * @module
 */
export class KeyedQueue {
  /** key → the settled tail of the operations queued on it */
  readonly #tails = new Map<string, Promise<void>>();

  /** Runs `operation` after every operation queued earlier on `key`. */
  run<T>(key: string, operation: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key);
    // the first operation of a key starts at once (a throw becomes a rejection), later ones in turn
    const result = previous === undefined ? new Promise<T>((resolve) => { resolve(operation()); }) : previous.then(operation);
    const tail = result.then(() => {}, () => {});
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }
}
