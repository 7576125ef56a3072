/**
 * lib/storage/key-queue.ts: one operation at a time per key, in order, a failure staying its
 * own caller's, and nothing kept once a key's operations have settled.
 */
import { KeyedQueue } from '../../lib/storage/key-queue.ts';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('KeyedQueue', () => {
  it('runs the operations of one key one at a time, in the order queued', async () => {
    const queue = new KeyedQueue();
    const log: string[] = [];
    let running = 0;
    const op = (name: string) => async () => {
      running += 1;
      expect(running).toBe(1);
      log.push(`${name} start`);
      await tick();
      log.push(`${name} end`);
      running -= 1;
      return name;
    };
    const results = await Promise.all([queue.run('k', op('a')), queue.run('k', op('b')), queue.run('k', op('c'))]);
    expect(results).toEqual(['a', 'b', 'c']);
    expect(log).toEqual(['a start', 'a end', 'b start', 'b end', 'c start', 'c end']);
  });

  it('lets operations of different keys run at the same time', async () => {
    const queue = new KeyedQueue();
    let running = 0;
    let most = 0;
    const op = async () => {
      running += 1;
      most = Math.max(most, running);
      await tick();
      running -= 1;
    };
    await Promise.all([queue.run('a', op), queue.run('b', op), queue.run('c', op)]);
    expect(most).toBe(3);
  });

  it('a failure is its own caller\'s: the next operation of the key still runs', async () => {
    const queue = new KeyedQueue();
    const failing = queue.run('k', async () => { throw new Error('boom'); });
    const throwing = queue.run('k', () => { throw new Error('sync boom'); });
    const next = queue.run('k', async () => 'ran');
    await expect(failing).rejects.toThrow('boom');
    await expect(throwing).rejects.toThrow('sync boom');
    await expect(next).resolves.toBe('ran');
    // a first operation that throws synchronously rejects too
    await expect(new KeyedQueue().run('k', () => { throw new Error('first'); })).rejects.toThrow('first');
  });

  it('keeps nothing for a key once its operations have settled', async () => {
    const queue = new KeyedQueue();
    await Promise.all(Array.from({ length: 100 }, (_, i) => queue.run(`key-${i % 10}`, async () => { await tick(); })));
    await tick();
    // a key with nothing queued starts its next operation at once, not behind a stale tail
    let started = false;
    void queue.run('key-0', async () => { started = true; });
    expect(started).toBe(true);
  });
});
