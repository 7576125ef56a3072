/**
 * Run by test/cimd/public-host.test.ts inside a network namespace (never imported by jest):
 * there the loopback interface also carries a public address, where a metadata-document
 * server listens, and /etc/hosts names it, so the library's own request (system resolver,
 * special-use check, pinned connection, TLS against the system trust store plus
 * NODE_EXTRA_CA_CERTS) fetches a document from a public address exactly as in production.
 *
 *   node test/cimd/namespace-probe.ts <public address> <key.pem> <cert.pem>
 *
 * Prints one JSON object with what each scenario saw.
 */
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer } from 'node:net';
import type { AddressInfo } from 'node:net';

import { buildApp } from '../../examples/host/app.ts';
import { createPinnedRequest } from '../../lib/cimd/pinned-request.ts';
import { buildAuthorizeUrl } from '../support/flows.ts';
import { pkcePair } from '../support/pkce.ts';

const [publicAddress, keyFile, certFile] = process.argv.slice(2) as [string, string, string];
const quiet = { info() {}, warn() {}, error() {} };

// the document server, on the public address
const documentHits = new Map<string, number>();
const documents = createHttpsServer({ key: readFileSync(keyFile), cert: readFileSync(certFile) }, (req, res) => {
  const url = new URL(req.url ?? '/', `https://${req.headers.host}`);
  documentHits.set(url.pathname, (documentHits.get(url.pathname) ?? 0) + 1);
  res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=60' });
  res.end(JSON.stringify({
    client_id: url.href,
    client_name: 'Agent on a public host',
    redirect_uris: ['http://127.0.0.1/callback'],
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  }));
});
await new Promise<void>((resolve) => documents.listen(0, publicAddress, resolve));
const documentPort = (documents.address() as AddressInfo).port;

// a listener on loopback that nothing may reach, on the document server's port too
let loopbackConnections = 0;
const loopback = createTcpServer((socket) => {
  loopbackConnections += 1;
  socket.destroy();
});
await new Promise<void>((resolve) => loopback.listen(documentPort, '127.0.0.1', resolve));

// the demo host, with open registration and the library's own request (no test-only fetch)
const server = createHttpServer();
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const demo = await buildApp({ baseUrl, auth: { registration: { variant: 'open' }, logger: quiet } });
server.on('request', demo.app.callback());

async function authorize(clientId: string) {
  const res = await fetch(buildAuthorizeUrl(baseUrl, { clientId, redirectUri: 'http://127.0.0.1:5000/callback' }, {
    scope: 'openid', challenge: pkcePair().challenge,
  }), { redirect: 'manual' });
  const page = await res.text();
  return { status: res.status, location: res.headers.get('location'), error: /\b(?:invalid_client|temporarily_unavailable): [^<]*/.exec(page)?.[0] ?? null };
}

const results: Record<string, unknown> = {};

// a valid document on a public host, found through /etc/hosts
results.publicHost = await authorize(`https://docs.example:${documentPort}/agent.json`);
results.publicHostHits = documentHits.get('/agent.json') ?? 0;

// names the system resolves to loopback, alone or beside the public address
results.loopbackName = await authorize(`https://loopback.example:${documentPort}/agent.json`);
results.loopbackNameAgain = await authorize(`https://loopback.example:${documentPort}/other.json`);
results.mixedName = await authorize(`https://mixed.example:${documentPort}/agent.json`);

// DNS rebinding: the check's answer is public, a second lookup (the system's) would say
// loopback; the request must connect to the checked address only, asking once
let lookups = 0;
const rebinding = createPinnedRequest({
  resolve: async () => {
    lookups += 1;
    return lookups === 1 ? [{ address: publicAddress, family: 4 }] : [{ address: '127.0.0.1', family: 4 }];
  },
});
const pinned = await rebinding(`https://rebind.example:${documentPort}/pinned.json`, { method: 'GET', headers: { accept: 'application/json' } });
results.rebinding = { status: pinned.status, body: await pinned.json(), lookups, pinnedHits: documentHits.get('/pinned.json') ?? 0 };
// the next request asks again, and the loopback answer is refused before connecting
results.rebindingNext = await rebinding(`https://rebind.example:${documentPort}/pinned.json`, { method: 'GET' })
  .then(() => 'fetched', (err: Error) => err.message);

// a certificate that does not name the host is still refused (TLS checks the name, not the pinned address)
results.wrongName = await createPinnedRequest({ resolve: async () => [{ address: publicAddress, family: 4 }] })(
  `https://unnamed.example:${documentPort}/agent.json`, { method: 'GET' },
).then(() => 'fetched', (err: Error) => (err as Error & { code?: string }).code ?? err.message);

results.loopbackConnections = loopbackConnections;
process.stdout.write(JSON.stringify(results));

server.closeAllConnections();
server.close();
documents.closeAllConnections();
documents.close();
loopback.close();
await demo.close();
