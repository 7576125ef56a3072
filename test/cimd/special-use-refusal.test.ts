/**
 * SSRF refused before any byte leaves: a loopback TCP listener receives no connection while
 * every special-use textual form of its address, with its port, is tried as the host of a
 * metadata-document client_id in a real authorization request over HTTP (the production
 * request, no test-only fetch). Each is answered with an error page that says why, at once:
 * an open port costs what a closed one costs.
 */
import { createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';

import { ENDPOINTS } from '../../lib/endpoints.ts';
import { buildAuthorizeUrl } from '../support/flows.ts';
import { pkcePair } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

interface Listener {
  readonly port: number;
  readonly connections: number;
  close(): Promise<void>;
}

/** Counts connections on `host`:`port` (port 0: any free one) and never answers, like a port that is open. */
async function listen(host: string, port = 0): Promise<Listener | undefined> {
  let connections = 0;
  const server: Server = createServer((socket) => {
    connections += 1;
    socket.on('error', () => {});
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, resolve);
    });
  } catch {
    return undefined;
  }
  return {
    port: (server.address() as AddressInfo).port,
    get connections() { return connections; },
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
    }),
  };
}

/** Every way a client_id can write the listener's address: IPv4 forms, IPv6 forms, names. */
const FORMS = [
  '127.0.0.1', '127.1', '127.0.1', '2130706433', '0x7f000001', '0X7F000001', '0x7f.0.0.1', '0x7f.1', '0177.0.0.1', '0177.1',
  '0177.0000.0000.0001', '127.000.000.001', '127.0.0.1.', '%31%32%37.0.0.1', '\uff11\uff12\uff17.\uff10.\uff10.\uff11',
  '127.127.127.127', '0', '0.0.0.0', '0x0', '0.0.0.0.',
  '[::1]', '[0:0:0:0:0:0:0:1]', '[0000:0000:0000:0000:0000:0000:0000:0001]', '[::]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]',
  '[0:0:0:0:0:ffff:7f00:1]', '[::ffff:0:127.0.0.1]', '[::127.0.0.1]', '[64:ff9b::127.0.0.1]', '[64:ff9b::7f00:1]',
  '[64:ff9b:1::7f00:1]', '[2002:7f00:1::1]', '[fe80::1]',
  'localhost', 'localhost.', 'LOCALHOST', 'LocalHost.', 'app.localhost', 'a.b.localhost.',
];

const CALLBACK = 'http://127.0.0.1/callback';
let app: RunningApp;
let open: Listener;
let openV6: Listener | undefined;

beforeAll(async () => {
  open = (await listen('127.0.0.1'))!;
  // the same port on ::1, where the host has IPv6 loopback, so [::1] forms are counted too
  openV6 = await listen('::1', open.port);
  // open registration: documents from any host, so only the special-use rule stands in the way
  app = await startApp({ auth: { registration: { variant: 'open' } } });
});

afterAll(async () => {
  await app.stop();
  await open.close();
  await openV6?.close();
});

async function authorize(clientId: string): Promise<{ res: Response; page: string; ms: number }> {
  const started = performance.now();
  const res = await fetch(buildAuthorizeUrl(app.baseUrl, { clientId, redirectUri: CALLBACK }, { scope: 'openid', challenge: pkcePair().challenge }), { redirect: 'manual' });
  const page = await res.text();
  return { res, page, ms: performance.now() - started };
}

/** The error line of the notice page. */
const errorLine = (page: string) => /invalid_client: [^<]*/.exec(page)?.[0];

describe('every special-use form of a listening loopback address', () => {
  it.each(FORMS)('%s is refused with an error page that says why', async (form) => {
    const { res, page } = await authorize(`https://${form}:${open.port}/client.json`);
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(page).toContain('This sign-in link does not work');
    expect(errorLine(page)).toMatch(/^invalid_client: client_id metadata document host is special-use: \S.*; documents are fetched from public hosts only$/);
  });

  it('and the listener saw no connection at all', () => {
    expect(open.connections).toBe(0);
    expect(openV6?.connections ?? 0).toBe(0);
  });
});

describe('a refusal does not depend on whether the port is open', () => {
  it('answers an open port as a closed one: the same page, at once', async () => {
    const closed = (await listen('127.0.0.1'))!;
    await closed.close();
    for (const form of ['127.0.0.1', '2130706433', '[::ffff:127.0.0.1]', 'localhost']) {
      const atOpen = await authorize(`https://${form}:${open.port}/client.json`);
      const atClosed = await authorize(`https://${form}:${closed.port}/client.json`);
      expect(atOpen.res.status).toBe(atClosed.res.status);
      expect(errorLine(atOpen.page)).toBe(errorLine(atClosed.page));
      // an open port that never answers TLS once held the request until the 2.5 s fetch timeout
      expect(atOpen.ms).toBeLessThan(1500);
    }
    expect(open.connections).toBe(0);
  });
});

describe('the token endpoint refuses the same way', () => {
  it('answers invalid_client JSON, without a connection', async () => {
    const res = await fetch(`${app.baseUrl}${ENDPOINTS.token.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code', code: 'x', code_verifier: pkcePair().verifier, redirect_uri: CALLBACK,
        client_id: `https://0x7f000001:${open.port}/client.json`,
      }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: 'invalid_client',
      error_description: 'client_id metadata document host is special-use: loopback (127.0.0.0/8); documents are fetched from public hosts only',
    });
    expect(open.connections).toBe(0);
  });
});
