/**
 * The Redis adapter's write coalescing (`coalesceWrites`, adapters/redis.ts): the commands
 * sent in one iteration of the event loop, by separate callbacks as concurrent requests
 * send them, reach Redis in one socket write; the order of the commands and what each
 * answers are unchanged; `coalesceWrites: false` writes each at once.
 */
import { randomUUID } from 'node:crypto';

import { Redis } from 'ioredis';

import { createRedisAdapter } from '../../adapters/redis.ts';
import type { ClosableAdapterFactory } from '../../adapters/types.ts';
import { startRedis } from '../support/redis-server.ts';
import type { RedisHandle } from '../support/redis-server.ts';
import { keyIdOf } from '../../adapters/redis-keys.ts';

let server: RedisHandle;

beforeAll(async () => {
  server = await startRedis();
});

afterAll(async () => {
  await server?.stop();
});

interface Socketish {
  _write(...args: unknown[]): unknown;
  _writev?(...args: unknown[]): unknown;
}

/**
 * Runs `work` in two immediate callbacks of one check phase (two requests answered by one
 * iteration of the event loop) and counts the system-call writes the client's socket made
 * meanwhile, with the bytes of each.
 */
async function writesOf(client: Redis, work: [() => Promise<unknown>, () => Promise<unknown>]): Promise<{ writes: string[]; results: unknown[] }> {
  const socket = (client as unknown as { stream: Socketish }).stream;
  const writes: string[] = [];
  const text = (chunk: unknown) => (typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('latin1') : '');
  const { _write: write, _writev: writev } = socket;
  socket._write = function counted(this: unknown, chunk: unknown, ...rest: unknown[]) {
    writes.push(text(chunk));
    return write.call(this, chunk, ...rest);
  };
  socket._writev = function counted(this: unknown, chunks: { chunk: unknown }[], ...rest: unknown[]) {
    writes.push(chunks.map(({ chunk }) => text(chunk)).join(''));
    return writev!.call(this, chunks, ...rest);
  };
  try {
    const results = await new Promise<unknown[]>((resolve, reject) => {
      const answers: Promise<unknown>[] = [];
      // both run in the same check phase: each callback is a macrotask of its own, with the
      // microtasks and nextTicks it starts run before the next one. Not two timers: each
      // setTimeout reads the clock afresh, so on a loaded machine the second can start a
      // millisecond later and expire one iteration after the first (seen in CI).
      setImmediate(() => answers.push(work[0]()));
      setImmediate(() => {
        answers.push(work[1]());
        Promise.all(answers).then(resolve, reject);
      });
    });
    return { writes, results };
  } finally {
    delete (socket as Partial<Socketish>)._write;
    delete (socket as Partial<Socketish>)._writev;
  }
}

describe('redis adapter: write coalescing (single Redis)', () => {
  let client: Redis;
  let factory: ClosableAdapterFactory | undefined;
  let prefix: string;

  beforeEach(async () => {
    client = new Redis(server.url, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
    await new Promise((resolve) => client.once('ready', resolve));
    prefix = `co:${randomUUID()}:`;
  });

  afterEach(async () => {
    await factory?.close();
    factory = undefined;
    client.disconnect();
  });

  async function seeded(options: { coalesceWrites?: boolean } = {}) {
    factory = createRedisAdapter({ client, keyPrefix: prefix, ...options });
    const tokens = factory('AccessToken');
    const sessions = factory('Session');
    await tokens.upsert('t1', { accountId: 'a1', grantId: 'g1' }, 60);
    await sessions.upsert('s1', { accountId: 'a2', uid: 'u1' }, 60);
    return { tokens, sessions };
  }

  test('the commands of two callbacks of one loop iteration reach Redis in one write', async () => {
    const { tokens, sessions } = await seeded();
    const { writes, results } = await writesOf(client, [() => tokens.find('t1'), () => sessions.findByUid('u1')]);
    expect(writes).toHaveLength(1);
    expect(writes[0]).toContain(`${prefix}AccessToken:{${keyIdOf('AccessToken', 't1')}}`);
    expect(writes[0]).toContain(`${prefix}index:uid:Session:{u1}`);
    expect(results).toEqual([
      expect.objectContaining({ accountId: 'a1', grantId: 'g1' }),
      expect.objectContaining({ accountId: 'a2', uid: 'u1' }),
    ]);
  });

  test('coalesceWrites: false writes each command at once', async () => {
    const { tokens, sessions } = await seeded({ coalesceWrites: false });
    const { writes, results } = await writesOf(client, [() => tokens.find('t1'), () => sessions.findByUid('u1')]);
    expect(writes).toHaveLength(2);
    expect(results).toEqual([expect.objectContaining({ accountId: 'a1' }), expect.objectContaining({ uid: 'u1' })]);
  });

  test('commands written together keep their order: a read sees the write of the callback before it', async () => {
    const { tokens } = await seeded();
    const { writes, results } = await writesOf(client, [
      () => tokens.upsert('t2', { accountId: 'a3', grantId: 'g2' }, 60),
      () => tokens.find('t2'),
    ]);
    expect(writes).toHaveLength(1);
    expect(results[1]).toEqual(expect.objectContaining({ accountId: 'a3', grantId: 'g2' }));
  });

  test('a command alone is written in its own loop iteration', async () => {
    const { tokens } = await seeded();
    await tokens.find('t1');
    const socket = (client as unknown as { stream: { writableCorked: number } }).stream;
    const pending = tokens.find('t1');
    // the read goes out at the end of its turn (adapters/redis.ts, #read)
    await new Promise((resolve) => process.nextTick(resolve));
    // held for now, released at this iteration's check phase, before the reply is awaited
    expect(socket.writableCorked).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(socket.writableCorked).toBe(0);
    await expect(pending).resolves.toEqual(expect.objectContaining({ accountId: 'a1' }));
  });

  test('a value other than true or false is refused with what to change', () => {
    expect(() => createRedisAdapter({ client, coalesceWrites: 'yes' as unknown as boolean }))
      .toThrow('createRedisAdapter: `coalesceWrites` must be true or false (leave it out for true)');
  });
});
