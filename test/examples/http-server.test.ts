/**
 * The demo's HTTP server cuts off a client that sends its headers too slowly (issue #16), on
 * loopback, with short timeouts so that the test is bounded; the defaults are finite too.
 */
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';

import { DEMO_SERVER_TIMEOUTS, createDemoServer } from '../../examples/host/http-server.ts';

describe('createDemoServer', () => {
  it('sets finite timeouts by default', () => {
    const server = createDemoServer(() => {});
    expect(server.headersTimeout).toBe(DEMO_SERVER_TIMEOUTS.headersTimeout);
    expect(server.requestTimeout).toBe(DEMO_SERVER_TIMEOUTS.requestTimeout);
    expect(server.keepAliveTimeout).toBe(DEMO_SERVER_TIMEOUTS.keepAliveTimeout);
    expect(DEMO_SERVER_TIMEOUTS.headersTimeout).toBeLessThanOrEqual(DEMO_SERVER_TIMEOUTS.requestTimeout);
  });

  it('cuts off a client whose headers never finish, within the headers timeout', async () => {
    const server = createDemoServer((_req, res) => res.end('ok'), {
      headersTimeout: 300, requestTimeout: 1000, keepAliveTimeout: 300, connectionsCheckingInterval: 50,
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const started = Date.now();
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: '));
        let received = '';
        socket.setEncoding('utf8');
        socket.on('data', (chunk: string) => { received += chunk; });
        socket.on('close', () => resolve(received));
        socket.on('error', reject);
        setTimeout(() => { socket.destroy(); reject(new Error('not cut off within 3 s')); }, 3000).unref();
      });
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
