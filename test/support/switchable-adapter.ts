/**
 * A memory store whose calls fail while a switch says so: `unavailable` throws the adapters'
 * `StorageUnavailableError` (an outage), `broken` a plain Error (a bug). For tests of what an
 * outage looks like over HTTP.
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import { StorageUnavailableError } from '../../adapters/types.ts';
import type { Adapter, ClosableAdapterFactory } from '../../adapters/types.ts';

export interface StorageSwitch {
  failure: 'none' | 'unavailable' | 'broken';
  /** fail only these models / methods (all by default) */
  models?: Set<string>;
  methods?: Set<keyof Adapter>;
}

export function switchableAdapter(control: StorageSwitch): ClosableAdapterFactory {
  const memory = createMemoryAdapter();
  const factory = (model: string): Adapter => {
    const inner = memory(model);
    const wrap = <K extends keyof Adapter>(method: K) => (async (...args: unknown[]) => {
      const targeted = (!control.models || control.models.has(model)) && (!control.methods || control.methods.has(method));
      if (targeted && control.failure === 'unavailable') throw new StorageUnavailableError('test: down');
      if (targeted && control.failure === 'broken') throw new Error('a bug, not an outage');
      return (inner[method] as (...a: unknown[]) => unknown)(...args);
    }) as Adapter[K];
    return {
      upsert: wrap('upsert'), find: wrap('find'), findByUid: wrap('findByUid'), findByUserCode: wrap('findByUserCode'),
      consume: wrap('consume'), destroy: wrap('destroy'), revokeByGrantId: wrap('revokeByGrantId'),
    };
  };
  return Object.assign(factory, { close: () => memory.close() });
}
