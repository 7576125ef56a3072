/**
 * Run as its own Node process by the SSRF test (never imported by jest): jest's module
 * sandbox hides undici's global dispatcher, so oidc-provider cannot install its SSRF
 * protection there. Here it runs as in production, with no test-only fetch.
 *
 *   node test/support/ssrf-probe.ts <client_id URL>
 *
 * Prints { status, causes } of one authorization request naming that client_id.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import { buildApp } from '../../examples/host/app.ts';

const clientId = process.argv[2]!;
const server = createServer();
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const quiet = { info() {}, warn() {}, error() {} };
const demo = await buildApp({ baseUrl, auth: { registration: { variant: 'open' }, logger: quiet } });
server.on('request', demo.app.callback());

const causes: string[] = [];
demo.auth.provider.on('authorization.error', (_ctx: unknown, err: unknown) => {
  for (let e = err; e instanceof Error; e = e.cause) causes.push(e.message);
});
const url = new URL('/oauth/authorize', baseUrl);
url.search = new URLSearchParams({
  response_type: 'code',
  client_id: clientId,
  redirect_uri: 'http://127.0.0.1/callback',
  scope: 'openid',
  code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
  code_challenge_method: 'S256',
}).toString();
const res = await fetch(url, { redirect: 'manual' });
process.stdout.write(JSON.stringify({ status: res.status, causes }));
server.close();
await demo.close();
