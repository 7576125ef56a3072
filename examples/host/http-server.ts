/**
 * The demo's HTTP server, with timeouts so that a slow or idle client cannot hold a connection
 * (slow-headers / slowloris): README "The demo host" recommends the values.
 *
 * @module
 */
import { createServer } from 'node:http';
import type { RequestListener, Server } from 'node:http';

export interface DemoServerTimeouts {
  /** ms to receive the complete request headers (Node's `headersTimeout`) */
  readonly headersTimeout: number;
  /** ms to receive the complete request, body included (`requestTimeout`) */
  readonly requestTimeout: number;
  /** ms an idle keep-alive connection stays open (`keepAliveTimeout`) */
  readonly keepAliveTimeout: number;
  /** ms between Node's checks of the two above (`connectionsCheckingInterval`) */
  readonly connectionsCheckingInterval: number;
}

export const DEMO_SERVER_TIMEOUTS: DemoServerTimeouts = {
  headersTimeout: 10_000,
  requestTimeout: 30_000,
  keepAliveTimeout: 5_000,
  connectionsCheckingInterval: 1_000,
};

export function createDemoServer(listener: RequestListener, timeouts: DemoServerTimeouts = DEMO_SERVER_TIMEOUTS): Server {
  const server = createServer({
    headersTimeout: timeouts.headersTimeout,
    requestTimeout: timeouts.requestTimeout,
    keepAliveTimeout: timeouts.keepAliveTimeout,
    connectionsCheckingInterval: timeouts.connectionsCheckingInterval,
  }, listener);
  return server;
}
