/**
 * `/mcp` alone (lib/mcp/endpoint.ts) on a Koa app of its own, on an ephemeral loopback port,
 * with the bearer core of a running demo app: for tests of the endpoint's own rules with
 * tools, options and a bound of their own.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import Koa from 'koa';

import type { Logger } from '../../lib/index.ts';
import { createMcpEndpoint, resolveMcpOptions } from '../../lib/mcp/index.ts';
import type { McpOptions } from '../../lib/mcp/index.ts';
import type { BearerVerifier } from '../../lib/resource/bearer.ts';

export interface McpEndpointSpec {
  readonly bearer: BearerVerifier;
  readonly options: McpOptions;
  readonly logger: Logger;
  /** in place of `options.answerTimeout`, in milliseconds */
  readonly answerTimeoutMs?: number;
}

export interface ServedMcpEndpoint {
  readonly baseUrl: string;
  close(): Promise<void>;
}

export async function serveMcpEndpoint({ bearer, options, logger, answerTimeoutMs }: McpEndpointSpec): Promise<ServedMcpEndpoint> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const koa = new Koa();
  koa.use(createMcpEndpoint({
    baseUrl,
    bearer,
    // every caller the fake bearer names exists
    accounts: { findById: async (id: string) => ({ id, email: `${id}@example.com`, roles: {} }) } as never,
    resourceMetadata: `${baseUrl}/.well-known/oauth-protected-resource`,
    dataSource: undefined,
    options: resolveMcpOptions(options),
    logger,
    ...(answerTimeoutMs === undefined ? {} : { answerTimeoutMs }),
  }));
  server.on('request', koa.callback());
  return {
    baseUrl,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
