/**
 * The positive path of the library's own document request, and DNS through the system
 * resolver: in a network namespace (`unshare`: a user, network and mount namespace, no
 * privileges needed) whose loopback interface also carries a public address and whose
 * /etc/hosts names it, test/cimd/namespace-probe.ts runs the demo host without the test-only
 * fetch. A document on a public host is fetched and accepted; names that resolve to
 * loopback (alone, or beside the public address) are refused without a connection; a DNS
 * answer that changes between check and connect cannot move the connection.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

// any global unicast address will do: the namespace has no route out, only this address on lo
const PUBLIC_ADDRESS = '93.184.215.14';
const NAMES = ['docs.example', 'loopback.example', 'mixed.example', 'rebind.example'];

let dir: string;
let results: Record<string, any>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cimd-public-'));
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2',
    '-subj', '/CN=platform-auth public host test',
    '-addext', `subjectAltName=${NAMES.map((n) => `DNS:${n}`).join(',')}`,
    '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
  ], { stdio: 'ignore' });
  writeFileSync(join(dir, 'hosts'), [
    '127.0.0.1 localhost',
    `${PUBLIC_ADDRESS} docs.example`,
    '127.0.0.1 loopback.example',
    `${PUBLIC_ADDRESS} mixed.example`,
    '127.0.0.1 mixed.example',
    // what a second lookup would answer in the rebinding case
    '127.0.0.1 rebind.example',
    `${PUBLIC_ADDRESS} unnamed.example`,
    '',
  ].join('\n'));
  const probe = fileURLToPath(new URL('./namespace-probe.ts', import.meta.url));
  const script = 'ip link set lo up && ip addr add "$PUBLIC/32" dev lo && mount --bind "$HOSTS" /etc/hosts'
    + ' && exec "$NODE" "$PROBE" "$PUBLIC" "$KEY" "$CERT"';
  const { stdout } = await run('unshare', ['--user', '--map-root-user', '--net', '--mount', 'sh', '-c', script], {
    env: {
      ...process.env,
      PATH: `${process.env.PATH ?? ''}:/usr/sbin:/sbin`,
      PUBLIC: PUBLIC_ADDRESS,
      HOSTS: join(dir, 'hosts'),
      NODE: process.execPath,
      PROBE: probe,
      KEY: join(dir, 'key.pem'),
      CERT: join(dir, 'cert.pem'),
      NODE_EXTRA_CA_CERTS: join(dir, 'cert.pem'),
      NODE_NO_WARNINGS: '1',
    },
    timeout: 25_000,
  });
  results = JSON.parse(stdout);
}, 30_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('the certificate is trusted only through NODE_EXTRA_CA_CERTS (the test trusts nothing else)', () => {
  expect(readFileSync(join(dir, 'cert.pem'), 'utf8')).toMatch(/BEGIN CERTIFICATE/);
});

it('fetches and accepts a document from a public host', () => {
  // 303 to the sign-in interaction: the client was loaded from its document
  expect(results.publicHost).toMatchObject({ status: 303, error: null });
  expect(results.publicHost.location).toMatch(/\/interaction\//);
  expect(results.publicHostHits).toBe(1);
});

it('refuses a name that resolves to loopback, and remembers it for the next document on that host', () => {
  const refusal = 'invalid_client: client_id metadata document host resolves to a special-use address: loopback (127.0.0.0/8); documents are fetched from public hosts only';
  expect(results.loopbackName).toEqual({ status: 400, location: null, error: refusal });
  expect(results.loopbackNameAgain).toEqual({ status: 400, location: null, error: refusal });
});

it('refuses a name that resolves to a public and a loopback address', () => {
  expect(results.mixedName).toMatchObject({ status: 400, location: null });
  expect(results.mixedName.error).toMatch(/resolves to a special-use address: loopback/);
});

it('connects to the address it checked: a changed DNS answer cannot move the connection', () => {
  expect(results.rebinding).toMatchObject({ status: 200, lookups: 1, pinnedHits: 1 });
  expect(results.rebinding.body.client_id).toMatch(/^https:\/\/rebind\.example:\d+\/pinned\.json$/);
  expect(results.rebindingNext).toMatch(/rebind\.example resolves to 127\.0\.0\.1, which is a special-use IP address or name: loopback/);
});

it('still checks the certificate against the host name', () => {
  expect(results.wrongName).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
});

it('no request reached the loopback listener', () => {
  expect(results.loopbackConnections).toBe(0);
});
