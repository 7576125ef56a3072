/**
 * `node bench/instructions.ts --measure promises`: a server child started with
 * bench/lib/promise-count.ts answers how many promises it has created, and the count grows
 * with the requests it serves; a child started without it refuses rather than answer 0.
 */
import { randomBytes } from 'node:crypto';

import { spawnServer } from '../../bench/lib/server-process.ts';
import type { ServerProcess } from '../../bench/lib/server-process.ts';
import { signingKeys } from '../../bench/lib/signing-keys.ts';
import { koaHello } from '../../bench/servers/koa-hello.ts';

const PROMISE_COUNT_MODULE = new URL('../../bench/lib/promise-count.ts', import.meta.url).href;

function start(nodeFlags: readonly string[] = []): Promise<ServerProcess> {
  return spawnServer({
    target: koaHello, storage: 'none', redisUrl: undefined, keyPrefix: 'promise-count:',
    jwks: signingKeys(), cookieKeys: [randomBytes(32).toString('base64url')], nodeFlags,
  });
}

it('counts the promises a child creates while it serves', async () => {
  const server = await start(['--import', PROMISE_COUNT_MODULE]);
  try {
    const before = await server.promisesCreated();
    for (let i = 0; i < 20; i += 1) expect((await fetch(server.origin)).status).toBe(200);
    const after = await server.promisesCreated();
    // Koa's handleRequest alone chains a promise per request
    expect(after - before).toBeGreaterThanOrEqual(20);
  } finally {
    await server.stop();
  }
});

it('refuses to count in a child started without the counter', async () => {
  const server = await start();
  try {
    await expect(server.promisesCreated()).rejects.toThrow('--import bench/lib/promise-count.ts');
  } finally {
    await server.stop();
  }
});
