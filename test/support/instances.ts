/**
 * Several instances of one deployment for tests: what they must share (signing keys, cookie
 * keys, the operator client's secret, the store's key prefix), made once with the library's
 * own secret generator, and a way to start an instance of it on a given adapter.
 */
import { randomUUID } from 'node:crypto';

import type { AdapterFactory } from '../../adapters/types.ts';
import type { PlatformAuthOptions } from '../../lib/index.ts';
import { createSecrets } from '../../lib/keys/secrets.ts';
import { startApp } from './start-app.ts';
import type { RunningApp } from './start-app.ts';

export interface SharedDeployment {
  /** a fresh prefix, so test runs on one Redis never see each other's keys */
  readonly keyPrefix: string;
  /** starts an instance on `adapter`; `baseUrl` makes it serve another instance's issuer */
  start(adapter: AdapterFactory, baseUrl?: string): Promise<RunningApp>;
}

/** `auth`: further options every instance of the deployment is started with. */
export async function sharedDeployment(auth: Partial<PlatformAuthOptions> = {}): Promise<SharedDeployment> {
  const { jwks, cookieKeys } = await createSecrets();
  return {
    keyPrefix: `platform-auth-test:${randomUUID()}:`,
    start: (adapter, baseUrl) => startApp({
      ...(baseUrl && { baseUrl }),
      operatorSecret: 'operator-secret-shared-by-both-0123456789',
      auth: { ...auth, adapter, jwks: jwks as never, cookieKeys },
    }),
  };
}
