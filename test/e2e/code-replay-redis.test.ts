/**
 * test/e2e/code-replay.test.ts's races of code exchanges on a real Redis: a code exchange
 * answered 503 gives back only a consume of its own (test/support/code-exchange-races.ts).
 */
import { randomUUID } from 'node:crypto';

import { createRedisAdapter } from '../../adapters/redis.ts';
import { describeCodeExchangeRaces } from '../support/code-exchange-races.ts';
import { startRedis } from '../support/redis-server.ts';

describeCodeExchangeRaces('Redis', async () => {
  const redis = await startRedis();
  const factory = createRedisAdapter({ url: redis.url, keyPrefix: `code-races:${randomUUID()}:`, logger: { info() {}, warn() {} } });
  return {
    factory,
    async teardown() {
      await factory.close();
      await redis.stop();
    },
  };
});
