import { createMemoryAdapter } from '../../adapters/memory.ts';
import { describeAdapterContract } from './contract.ts';

describeAdapterContract('memory', async () => {
  const factory = createMemoryAdapter();
  return { factory, teardown: () => factory.close() };
});
