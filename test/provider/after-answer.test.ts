/**
 * The policies' steps on oidc-provider's answers run inside the provider's storage outage
 * guard, its one middleware: in order, after the answer, the asynchronous ones awaited, a
 * storage failure answered 503 and any other passed up.
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';

import { jest } from '@jest/globals';
import Koa from 'koa';
import type { Context } from 'koa';
import Provider from 'oidc-provider';

import { createMemoryAdapter } from '../../adapters/memory.ts';
import { createAccountStore, createSiteStore, demoClients } from '../../examples/host/seed.ts';
import { createPlatformAuth } from '../../lib/index.ts';
import { StorageUnavailableError } from '../../adapters/types.ts';
import { afterProviderAnswer } from '../../lib/provider/after-answer.ts';
import type { AfterAnswer } from '../../lib/policies/provider-answer.ts';
import { providerStorageOutageGuard } from '../../lib/storage/outage.ts';

const quietLogger = { info() {}, warn() {}, error() {} };
/** the steps as the library installs them: run by the provider's outage guard */
const guarded = (steps: AfterAnswer[]) => providerStorageOutageGuard(quietLogger, afterProviderAnswer(steps));

function context(): Context {
  const req = new IncomingMessage(new Socket());
  return new Koa().createContext(req, new ServerResponse(req));
}

it('runs the steps in order once the provider has answered, awaiting only those that return a promise', async () => {
  const seen: string[] = [];
  const middleware = guarded([
    (ctx) => { seen.push(`first saw ${String(ctx.status)}`); },
    async (ctx) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      seen.push('second, after a wait');
      ctx.set('X-Second', 'yes');
    },
    (ctx) => { seen.push(`third saw ${ctx.response.get('X-Second')}`); },
  ]);
  const ctx = context();
  await middleware(ctx, async () => {
    seen.push('answer');
    ctx.status = 201;
  });
  expect(seen).toEqual(['answer', 'first saw 201', 'second, after a wait', 'third saw yes']);
});

it('passes a step\'s failure up and runs no step after it', async () => {
  const seen: string[] = [];
  const middleware = guarded([
    async () => { throw new Error('storage is away'); },
    () => { seen.push('not reached'); },
  ]);
  await expect(middleware(context(), async () => {})).rejects.toThrow('storage is away');
  expect(seen).toEqual([]);
});

it('answers a step\'s storage failure 503 with Retry-After, and runs no step after it', async () => {
  const seen: string[] = [];
  const middleware = guarded([
    () => { seen.push('first'); },
    async () => { throw new StorageUnavailableError('redis: connection closed'); },
    () => { seen.push('not reached'); },
  ]);
  const ctx = context();
  ctx.request.headers.accept = 'application/json';
  await middleware(ctx, async () => { ctx.status = 200; ctx.body = { active: true }; });
  expect(seen).toEqual(['first']);
  expect(ctx.status).toBe(503);
  expect(ctx.body).toMatchObject({ error: 'temporarily_unavailable' });
  expect(ctx.response.get('Retry-After')).toBe('5');
});

it('answers a storage failure thrown synchronously by a step 503 too', async () => {
  const middleware = guarded([() => { throw new StorageUnavailableError('redis: connection closed'); }]);
  const ctx = context();
  await middleware(ctx, async () => { ctx.status = 200; ctx.body = { active: true }; });
  expect(ctx.status).toBe(503);
});

it('adds one middleware to the provider, not one per policy', async () => {
  const url = 'http://127.0.0.1:1';
  const auth = await createPlatformAuth({
    baseUrl: url, accounts: createAccountStore(), sites: createSiteStore(), clients: demoClients(url, 'secret-0123456789abcdef'),
    logger: { info() {}, warn() {}, error() {} },
  });
  try {
    // the provider is its own Koa application; a bare one warns about its development defaults
    const quiet = jest.spyOn(console, 'warn').mockImplementation(() => {});
    const own = new Provider(url, { adapter: createMemoryAdapter() }).middleware.length;
    quiet.mockRestore();
    // the storage outage guard, which runs the steps on the answer (Variant B adds the registration limits)
    expect(auth.provider.middleware.length - own).toBe(1);
  } finally {
    await auth.close();
  }
});
