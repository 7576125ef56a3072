/**
 * What is left of a revoked access token: its owner under the token's hash, never the token,
 * until the token would have expired.
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import type { Adapter, AdapterPayload } from '../../adapters/types.ts';
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
  await revoked.remember(token, { clientId: 'app', accountId: 'acc', site: 'school' }, epoch() + 600);
  expect(await revoked.find(token)).toEqual({ clientId: 'app', accountId: 'acc', site: 'school' });
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
  await revoked.remember('t-expired-0123456789', { clientId: 'app' }, epoch() - 1);
  expect(await revoked.find('t-expired-0123456789')).toBeUndefined();
});
