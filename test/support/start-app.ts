/**
 * Starts the demo host (examples/host/app.ts) on an ephemeral loopback port, with its
 * baseUrl set to that port, for tests that drive it over real HTTP.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import { buildApp } from '../../examples/host/app.ts';
import type { DemoApp, DemoOptions } from '../../examples/host/app.ts';
import type { Logger, PlatformAuthOptions } from '../../lib/index.ts';

export interface RunningApp extends DemoApp {
  readonly port: number;
  /** warnings the library logged */
  readonly warnings: string[];
  stop(): Promise<void>;
}

export async function startApp(options: DemoOptions = {}): Promise<RunningApp> {
  // idle connections are closed by the client first (undici after 4 s): a server closing one
  // as a loaded client reuses it is a read ECONNRESET in an unrelated test
  const server = createServer();
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const warnings: string[] = [];
  const logger: Logger = { info() {}, warn: (m) => warnings.push(m), error: (m) => warnings.push(m) };
  const demo = await buildApp({
    baseUrl: `http://127.0.0.1:${port}`,
    operatorSecret: 'operator-secret-for-tests-0123456789',
    ...options,
    auth: { logger, ...options.auth },
  });
  server.on('request', demo.app.callback());
  return {
    ...demo,
    port,
    warnings,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await demo.close();
    },
  };
}

/** Runs `run` against the demo host started with `auth`, and stops it whatever happens. */
export async function withApp<T>(auth: Partial<PlatformAuthOptions>, run: (app: RunningApp) => Promise<T>): Promise<T> {
  const app = await startApp({ auth });
  try {
    return await run(app);
  } finally {
    await app.stop();
  }
}
