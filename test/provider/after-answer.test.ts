/**
 * The policies' steps on oidc-provider's answers run as one provider middleware: in order,
 * after the answer, the asynchronous ones awaited, a failure passed up (to the storage
 * outage guard installed outside it).
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
import { afterProviderAnswer } from '../../lib/provider/after-answer.ts';

function context(): Context {
  const req = new IncomingMessage(new Socket());
  return new Koa().createContext(req, new ServerResponse(req));
}

it('runs the steps in order once the provider has answered, awaiting only those that return a promise', async () => {
  const seen: string[] = [];
  const middleware = afterProviderAnswer([
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
  const middleware = afterProviderAnswer([
    async () => { throw new Error('storage is away'); },
    () => { seen.push('not reached'); },
  ]);
  await expect(middleware(context(), async () => {})).rejects.toThrow('storage is away');
  expect(seen).toEqual([]);
});

it('adds two middlewares to the provider, not one per policy', async () => {
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
    // the storage outage guard and the steps on the answer (Variant B adds the registration limits)
    expect(auth.provider.middleware.length - own).toBe(2);
  } finally {
    await auth.close();
  }
});
