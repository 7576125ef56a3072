/**
 * `node bench/instructions.ts --measure allocations`: a server child started with
 * bench/lib/allocation-sample.ts estimates the bytes it allocates between `start` and
 * `stop`, names where they were allocated, and the estimate grows with the work done; a
 * child started without it refuses rather than answer 0.
 */
import { randomBytes } from 'node:crypto';

import { spawnServer } from '../../bench/lib/server-process.ts';
import type { ServerProcess } from '../../bench/lib/server-process.ts';
import { signingKeys } from '../../bench/lib/signing-keys.ts';
import { koaHello } from '../../bench/servers/koa-hello.ts';

const ALLOCATION_SAMPLE_MODULE = new URL('../../bench/lib/allocation-sample.ts', import.meta.url).href;

function start(nodeFlags: readonly string[] = []): Promise<ServerProcess> {
  return spawnServer({
    target: koaHello, storage: 'none', redisUrl: undefined, keyPrefix: 'allocation-sample:',
    jwks: signingKeys(), cookieKeys: [randomBytes(32).toString('base64url')], nodeFlags,
  });
}

async function sampled(server: ServerProcess, requests: number) {
  await server.sampleAllocations('start');
  for (let i = 0; i < requests; i += 1) expect((await fetch(server.origin)).status).toBe(200);
  return server.sampleAllocations('stop');
}

it('estimates the bytes a child allocates while it serves, and where', async () => {
  const server = await start(['--import', ALLOCATION_SAMPLE_MODULE]);
  try {
    // unsampled first: a fresh server's first requests also allocate its lazily compiled code
    // and first connection, which put the 200 at only 4.3-4.5 times the 20 (8.3-10 warmed)
    for (let i = 0; i < 100; i += 1) expect((await fetch(server.origin)).status).toBe(200);
    const few = await sampled(server, 20);
    const many = await sampled(server, 200);
    // an HTTP request and its answer allocate kilobytes (headers, the socket's buffers, Koa's context)
    expect(few.bytes / 20).toBeGreaterThan(1_000);
    // ten times the work, several times the bytes (a sampled estimate: not exactly ten)
    expect(many.bytes).toBeGreaterThan(4 * few.bytes);
    expect(many.top.length).toBeGreaterThan(0);
    expect(many.top[0]!.bytes).toBeGreaterThan(0);
    // most first, each named by function and place
    expect(many.top.map((t) => t.bytes)).toEqual([...many.top.map((t) => t.bytes)].sort((a, b) => b - a));
    expect(many.top[0]!.fn).toMatch(/\S+ \S+/);
    // the sampler stops once per start
    await expect(server.sampleAllocations('stop')).rejects.toThrow('not on');
  } finally {
    await server.stop();
  }
});

it('refuses to sample in a child started without the sampler', async () => {
  const server = await start();
  try {
    await expect(server.sampleAllocations('start')).rejects.toThrow('--import bench/lib/allocation-sample.ts');
  } finally {
    await server.stop();
  }
});
