/**
 * Storage rules that apply to one model (refresh grace, code replay) wrap that model's
 * adapter: a {@link DelegatingAdapter} hands every call to the inner adapter until a rule
 * overrides it, and {@link decorateModel} puts the wrapper into the factory for that model
 * only (built once; every other model, and `close()`, stay the inner factory's).
 *
 * @module
 */
import type { Adapter, AdapterFactory, AdapterPayload } from '../../adapters/types.ts';

export class DelegatingAdapter implements Adapter {
  protected readonly inner: Adapter;

  constructor(inner: Adapter) {
    this.inner = inner;
  }

  find(id: string): ReturnType<Adapter['find']> {
    // the inner promise itself: no async frame on every token and grant read
    return this.inner.find(id);
  }

  consume(id: string): Promise<void> {
    return this.inner.consume(id);
  }

  upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    return this.inner.upsert(id, payload, expiresIn as number);
  }

  destroy(id: string): Promise<void> {
    return this.inner.destroy(id);
  }

  revokeByGrantId(grantId: string): Promise<void> {
    return this.inner.revokeByGrantId(grantId);
  }

  findByUid(uid: string): ReturnType<Adapter['findByUid']> {
    return this.inner.findByUid(uid);
  }

  findByUserCode(userCode: string): ReturnType<Adapter['findByUserCode']> {
    return this.inner.findByUserCode(userCode);
  }
}

/** `factory` with the adapter of `model` replaced by `decorate(innerAdapter)`, built on first use. */
export function decorateModel<F extends AdapterFactory>(factory: F, model: string, decorate: (inner: Adapter) => Adapter): F {
  let decorated: Adapter | undefined;
  const wrapped = (name: string) => {
    if (name !== model) return factory(name);
    decorated ??= decorate(factory(name));
    return decorated;
  };
  return Object.assign(wrapped, factory) as unknown as F;
}
