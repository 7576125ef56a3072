/**
 * A local HTTPS server for client ID metadata documents, with a self-signed certificate
 * made at start-up (openssl), and the test-only fetch that reaches it: it trusts that
 * certificate and maps test host names (`tools.example`, …) to 127.0.0.1, standing in for
 * DNS. Production never gets this fetch (options.clientIdMetadataDocuments.fetch is
 * refused there) and keeps oidc-provider's SSRF-protected one.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:https';
import type { Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';

import type { MetadataDocumentFetch } from '../../lib/index.ts';

export const TEST_HOSTS = ['tools.example', 'other.example', 'evil.example'] as const;

function selfSignedCertificate(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'cimd-tls-'));
  try {
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2',
      '-subj', '/CN=platform-auth test documents',
      '-addext', `subjectAltName=${[...TEST_HOSTS.map((h) => `DNS:${h}`), 'DNS:localhost', 'IP:127.0.0.1'].join(',')}`,
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
    ], { stdio: 'ignore' });
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function plainHeaders(init: HeadersInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(init).forEach((value, name) => { out[name] = value; });
  return out;
}

/** A public client's document (a native app on a loopback redirect), whose client_id is the URL it is served at. */
export function publicClientDocument(clientId: string) {
  return {
    client_id: clientId, client_name: 'Agent', redirect_uris: ['http://127.0.0.1/callback'],
    token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'],
  };
}

export interface ServedDocument {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface DocumentServer {
  readonly port: number;
  /** the self-signed certificate (PEM), for processes that should trust it */
  readonly cert: string;
  /** `https://<host>:<port><path>` */
  url(host: string, path: string): string;
  /** Serves `doc` at `path` (any host); a function sees the URL it answers for. */
  serve(path: string, doc: ServedDocument | ((url: string) => ServedDocument)): void;
  /** how many requests reached `path` */
  hits(path: string): number;
  /** the fetch to pass as `clientIdMetadataDocuments.fetch` */
  readonly fetch: MetadataDocumentFetch;
  close(): Promise<void>;
}

export async function startDocumentServer(): Promise<DocumentServer> {
  const { key, cert } = selfSignedCertificate();
  const documents = new Map<string, ServedDocument | ((url: string) => ServedDocument)>();
  const counts = new Map<string, number>();
  const server: Server = createServer({ key, cert }, (req, res) => {
    const path = new URL(req.url ?? '/', 'https://x').pathname;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const entry = documents.get(path);
    const doc = typeof entry === 'function' ? entry(`https://${req.headers.host}${req.url}`) : entry;
    if (!doc) {
      res.writeHead(404).end();
      return;
    }
    const body = typeof doc.body === 'string' ? doc.body : JSON.stringify(doc.body);
    res.writeHead(doc.status ?? 200, { 'content-type': 'application/json', ...doc.headers });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const fetch: MetadataDocumentFetch = (url, init) => new Promise((resolve, reject) => {
    const target = new URL(url);
    const req = request({
      host: '127.0.0.1',
      port,
      servername: target.hostname === '127.0.0.1' ? undefined : target.hostname,
      path: `${target.pathname}${target.search}`,
      method: init.method ?? 'GET',
      headers: { ...plainHeaders(init.headers as HeadersInit | undefined), host: target.host },
      ca: cert,
      signal: init.signal ?? undefined,
    }, (res) => {
      const headers = new Headers();
      for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers.set(k, v);
      resolve(new Response(Readable.toWeb(res) as ReadableStream, { status: res.statusCode ?? 500, headers }));
    });
    req.on('error', reject);
    req.end();
  });

  return {
    port,
    cert,
    url: (host, path) => `https://${host}:${port}${path}`,
    serve: (path, doc) => { documents.set(path, doc); },
    hits: (path) => counts.get(path) ?? 0,
    fetch,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
