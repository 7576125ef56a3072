/**
 * bench/lib/redis-commands.ts: the commands a client sends to a real Redis are counted from
 * MONITOR, those a script runs inside Redis apart, each grouped by name and model.
 */
import { Redis } from 'ioredis';

import { COUNTING_CONNECTION, countRedisCommands, groupOf, modelOfKey } from '../../bench/lib/redis-commands.ts';
import { eventually } from '../support/eventually.ts';
import { startRedis } from '../support/redis-server.ts';
import type { RedisHandle } from '../support/redis-server.ts';

let server: RedisHandle;
let client: Redis;

beforeAll(async () => {
  server = await startRedis({ forceSpawn: true });
  client = new Redis(server.url);
  // the client's own start-up commands (INFO, CLIENT SETINFO) before any count begins
  await client.ping();
});

afterAll(async () => {
  client?.disconnect();
  await server?.stop();
});

it('reads the model of a key between the prefix (and an adapter number) and the id', () => {
  expect(modelOfKey('run:0:Session:{abc}', 'run:')).toBe('Session');
  expect(modelOfKey('run:3:index:uid:Session:{x}', 'run:')).toBe('index:uid:Session');
  expect(modelOfKey('run:list:ClientTrace:{c}', 'run:')).toBe('list:ClientTrace');
  expect(modelOfKey('run:0:plain:key', 'run:')).toBe('plain');
  expect(modelOfKey('other:0:Session:{abc}', 'run:')).toBe('(other)');
});

it('groups a command by its name and the model of its first key', () => {
  expect(groupOf(['EVALSHA', 'f00d', '2', 'run:0:Grant:{g}', 'run:0:Session:{s}', 'arg'], 'run:')).toBe('evalsha Grant');
  expect(groupOf(['evalsha', 'f00d', '0', 'arg'], 'run:')).toBe('evalsha');
  expect(groupOf(['GET', 'run:1:Interaction:{i}'], 'run:')).toBe('get Interaction');
  expect(groupOf(['PING'], 'run:')).toBe('ping');
  expect(groupOf(['echo', 'run:0:Session:{s}'], 'run:')).toBe('echo');
});

it('counts what clients sent, and what scripts ran inside Redis apart', async () => {
  const counting = await countRedisCommands(server.url, 'run:');
  await client.set('run:0:Session:{a}', '1');
  await client.get('run:0:Session:{a}');
  // one round trip, two commands inside Redis
  await client.eval("redis.call('SET', KEYS[1], ARGV[1]); return redis.call('GET', KEYS[2])", 2, 'run:0:Grant:{g}', 'run:0:Session:{a}', 'x');
  // three commands in one write: three sent
  await client.pipeline().get('run:0:Grant:{g}').get('run:0:Grant:{g}').del('run:0:Grant:{g}').exec();
  const counted = await counting.stop();

  expect(counted.sent).toBe(6);
  expect(counted.inScripts).toBe(2);
  expect(counted.groups).toEqual([
    { name: 'get Grant', count: 2 },
    { name: '(lua) get Session', count: 1 },
    { name: '(lua) set Grant', count: 1 },
    { name: 'del Grant', count: 1 },
    { name: 'eval Grant', count: 1 },
    { name: 'get Session', count: 1 },
    { name: 'set Session', count: 1 },
  ]);
});

it('refuses to return a count when the feed was cut, rather than miss commands', async () => {
  const counting = await countRedisCommands(server.url, 'run:');
  await client.set('run:0:Session:{a}', '1');
  // the MONITOR connection dropped: commands from now until a reconnect would be lost
  const monitors = String(await client.client('LIST')).split('\n').filter((line) => / flags=O /.test(line));
  expect(monitors).toHaveLength(1);
  await client.client('KILL', 'ID', /^id=(\d+)/.exec(monitors[0]!)![1]!);
  await client.set('run:0:Session:{a}', '2');
  await expect(counting.stop()).rejects.toThrow('the MONITOR feed was cut');
});

it('a count whose feed was cut leaves no timer behind (it kept a jest worker alive for 2 s)', async () => {
  const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
  const before = timers();
  const counting = await countRedisCommands(server.url, 'run:');
  const monitors = String(await client.client('LIST')).split('\n').filter((line) => / flags=O /.test(line));
  await client.client('KILL', 'ID', /^id=(\d+)/.exec(monitors[0]!)![1]!);
  await expect(counting.stop()).rejects.toThrow('the MONITOR feed was cut');
  await new Promise((resolve) => setImmediate(resolve));
  expect(timers()).toBe(before);
});

it('cancel() closes both connections of a count that will not be read', async () => {
  const counters = async () => String(await client.client('LIST')).split('\n').filter((line) => line.includes(` name=${COUNTING_CONNECTION} `)).length;
  // a disconnect is not instant
  const settled = (n: number) => eventually(counters, (count) => count === n, { timeoutMs: 2000, intervalMs: 20 });
  // those of the tests before are closed
  expect(await settled(0)).toBe(0);
  const counting = await countRedisCommands(server.url, 'run:');
  expect(await counters()).toBe(2);
  counting.cancel();
  expect(await settled(0)).toBe(0);
});
