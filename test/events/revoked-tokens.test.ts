/**
 * What is left of a revoked access token: its owner under the token's hash, never the token,
 * until the token would have expired.
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import type { Adapter, AdapterFactory, AdapterPayload, PutRecords, RecordWrite } from '../../adapters/types.ts';
import { REVOKED_TOKEN_MODEL, RevokedTokens } from '../../lib/events/revoked-tokens.ts';

let adapter: ReturnType<typeof createMemoryAdapter>;
beforeEach(() => { adapter = createMemoryAdapter(); });
afterEach(() => adapter.close());

const epoch = () => Math.floor(Date.now() / 1000);

it('remembers who a revoked token belonged to, keyed by its hash, until it would have expired', async () => {
  const writes: [string, AdapterPayload, number][] = [];
  const spy = (name: string): Adapter => {
    const inner = adapter(name);
    return {
      find: (id: string) => inner.find(id),
      upsert: (id: string, payload: AdapterPayload, expiresIn: number) => { writes.push([id, payload, expiresIn]); return inner.upsert(id, payload, expiresIn); },
    } as unknown as Adapter;
  };
  const revoked = new RevokedTokens(spy);
  const token = 'opaque-access-token-value-0123456789';
  revoked.remember(token, { clientId: 'app', accountId: 'acc', site: 'school' }, epoch() + 600);
  await revoked.flush();
  // found by another instance, i.e. in storage
  expect(await new RevokedTokens(adapter).find(token)).toEqual({ clientId: 'app', accountId: 'acc', site: 'school' });
  expect(await revoked.find('another-token')).toBeUndefined();
  expect(writes).toHaveLength(1);
  const [key, payload, seconds] = writes[0]!;
  expect(key).not.toContain(token);
  expect(JSON.stringify(payload)).not.toContain(token);
  expect(seconds).toBeGreaterThan(590);
  expect(seconds).toBeLessThanOrEqual(600);
  expect(REVOKED_TOKEN_MODEL).toBe('RevokedAccessToken');
});

it('keeps nothing for a token already expired', async () => {
  const revoked = new RevokedTokens(adapter);
  revoked.remember('t-expired-0123456789', { clientId: 'app' }, epoch() - 1);
  expect(await revoked.find('t-expired-0123456789')).toBeUndefined();
  await revoked.flush();
  expect(await revoked.find('t-expired-0123456789')).toBeUndefined();
});

it('asks for each write in the step that revoked the token, and finds it on this instance until written', async () => {
  const batches: (readonly RecordWrite[])[] = [];
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => { release = resolve; });
  const factory = Object.assign((name: string) => adapter(name), {
    async putRecords(writes: readonly RecordWrite[]) {
      batches.push(writes);
      await held;
      await Promise.all(writes.map((w) => adapter(w.model).upsert(w.id, w.payload, w.expiresIn)));
    },
  }) as AdapterFactory & PutRecords;
  const revoked = new RevokedTokens(factory);
  const tokens = ['token-a-0123456789', 'token-b-0123456789', 'token-c-0123456789'];
  for (const [i, token] of tokens.entries()) {
    revoked.remember(token, { clientId: `app-${i}` }, epoch() + 600);
    // asked for at once: a storage that batches per turn (Redis) sends it with the grant's revocation
    expect(batches).toHaveLength(i + 1);
  }
  expect(batches.map((b) => b.map((w) => [w.model, w.payload]))).toEqual(tokens.map((_, i) => [[REVOKED_TOKEN_MODEL, { clientId: `app-${i}` }]]));
  // while the writes are under way: found here, not yet in storage
  const [here, elsewhere] = await Promise.all([revoked.find('token-b-0123456789'), new RevokedTokens(adapter).find('token-b-0123456789')]);
  expect(here).toEqual({ clientId: 'app-1', accountId: undefined, site: undefined });
  expect(elsewhere).toBeUndefined();
  let flushed = false;
  const flushing = revoked.flush().then(() => { flushed = true; });
  await new Promise((resolve) => setImmediate(resolve));
  expect(flushed).toBe(false);
  release();
  await flushing;
  expect(await new RevokedTokens(adapter).find('token-c-0123456789')).toEqual({ clientId: 'app-2', accountId: undefined, site: undefined });
  expect(batches).toHaveLength(3);
});

it('never fails the revocation: a write that throws or rejects is dropped', async () => {
  const failing = Object.assign((name: string) => adapter(name), {
    putRecords(writes: readonly RecordWrite[]): Promise<void> {
      if (writes[0]!.payload.clientId === 'throws') throw new Error('adapter bug');
      return Promise.reject(new Error('storage down'));
    },
  }) as AdapterFactory & PutRecords;
  const revoked = new RevokedTokens(failing);
  expect(() => revoked.remember('token-throws-0123456789', { clientId: 'throws' }, epoch() + 600)).not.toThrow();
  revoked.remember('token-rejects-0123456789', { clientId: 'rejects' }, epoch() + 600);
  await expect(revoked.flush()).resolves.toBeUndefined();
  // not written: a later refusal of these tokens is `unknown`
  expect(await revoked.find('token-rejects-0123456789')).toBeUndefined();
});
