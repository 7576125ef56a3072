/**
 * Values computed once per key on a hot path (a page's language, a brand's stylesheet, a
 * formatted date), kept for at most `limit` keys. When full it forgets everything and starts
 * over: no recency bookkeeping per hit, and keys a client can vary at will cannot grow it.
 *
 * @module
 */
export class BoundedMemo<K, V> {
  readonly #kept = new Map<K, V>();
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** The value kept for `key`, else `make()`'s, kept from now on (a throw keeps nothing). */
  get(key: K, make: () => V): V {
    let value = this.#kept.get(key);
    if (value === undefined) {
      value = make();
      if (this.#kept.size >= this.#limit) this.#kept.clear();
      this.#kept.set(key, value);
    }
    return value;
  }
}
