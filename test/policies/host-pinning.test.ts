/**
 * The host pin (lib/policies/host-pinning.ts): what the provider is shown, and that the
 * request is handed back to the host app as it came.
 */
import type { IncomingMessage } from 'node:http';

import { createHostPin } from '../../lib/policies/host-pinning.ts';
import { buildAuthorizeUrl, MEMBER } from '../support/flows.ts';
import { rawRequest } from '../support/raw-request.ts';
import { startApp } from '../support/start-app.ts';

const requestWith = (headers: Record<string, string>) => ({ headers: { ...headers }, url: '/api/oauth/token' }) as unknown as IncomingMessage;
/** what the dispatcher routed the request by (Koa's path and search) */
const ROUTED = { path: '/api/oauth/token', search: '' };

it('shows the provider the host and scheme of baseUrl and puts the original back', () => {
  const req = requestWith({ host: 'evil.example', 'x-forwarded-host': 'evil.example' });
  const unpin = createHostPin({ baseUrl: 'https://learn.example.com' })(req, ROUTED);
  expect(req.headers).toEqual({ host: 'learn.example.com', 'x-forwarded-host': 'learn.example.com', 'x-forwarded-proto': 'https' });
  unpin();
  expect(req.headers).toEqual({ host: 'evil.example', 'x-forwarded-host': 'evil.example' });
});

it('pins X-Forwarded-Proto over what a proxy sent, and removes what it added', () => {
  const req = requestWith({ host: 'internal:8080', 'x-forwarded-proto': 'http' });
  const unpin = createHostPin({ baseUrl: 'https://learn.example.com:8443' })(req, ROUTED);
  expect(req.headers).toEqual({ host: 'learn.example.com:8443', 'x-forwarded-proto': 'https' });
  unpin();
  expect(req.headers).toEqual({ host: 'internal:8080', 'x-forwarded-proto': 'http' });
  // an https baseUrl on a request without the header: added (Koa reads `http` off a plain connection), then removed
  const plain = requestWith({ host: 'internal:8080' });
  const unpinPlain = createHostPin({ baseUrl: 'https://learn.example.com' })(plain, ROUTED);
  expect(plain.headers).toEqual({ host: 'learn.example.com', 'x-forwarded-proto': 'https' });
  unpinPlain();
  expect(plain.headers).toEqual({ host: 'internal:8080' });
});

it('writes no forwarded header an http baseUrl does not need: nothing to delete afterwards', () => {
  const req = requestWith({ host: 'evil.example' });
  const unpin = createHostPin({ baseUrl: 'http://127.0.0.1:3000' })(req, ROUTED);
  expect(req.headers).toEqual({ host: '127.0.0.1:3000' });
  unpin();
  expect(req.headers).toEqual({ host: 'evil.example' });
  // what a client sent is still overwritten, and given back
  const forwarded = requestWith({ host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' });
  const unpinForwarded = createHostPin({ baseUrl: 'http://127.0.0.1:3000' })(forwarded, ROUTED);
  expect(forwarded.headers).toEqual({ host: '127.0.0.1:3000', 'x-forwarded-host': '127.0.0.1:3000', 'x-forwarded-proto': 'http' });
  unpinForwarded();
  expect(forwarded.headers).toEqual({ host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' });
});

it('pins HTTP/2 :authority when the request has one', () => {
  const req = requestWith({ ':authority': 'evil.example' });
  const unpin = createHostPin({ baseUrl: 'http://127.0.0.1:3000' })(req, ROUTED);
  expect(req.headers).toEqual({ ':authority': '127.0.0.1:3000', host: '127.0.0.1:3000' });
  unpin();
  expect(req.headers).toEqual({ ':authority': 'evil.example' });
});

it('hands over a target not in origin form as the path and query it was routed by, and puts it back', () => {
  for (const target of ['http://evil.example/oauth/authorize?client_id=a', 'foo://evil.example/oauth/authorize?client_id=a']) {
    const req = { headers: { host: '127.0.0.1:3000' }, url: target } as unknown as IncomingMessage;
    const unpin = createHostPin({ baseUrl: 'https://learn.example.com' })(req, { path: '/oauth/authorize', search: '?client_id=a' });
    expect(req.url).toBe('/oauth/authorize?client_id=a');
    unpin();
    expect(req.url).toBe(target);
  }
  // origin form is left as it came, whatever the routed path says
  const req = requestWith({ host: 'learn.example.com' });
  createHostPin({ baseUrl: 'https://learn.example.com' })(req, { path: '/other', search: '' });
  expect(req.url).toBe('/api/oauth/token');
});

it('an authorization request in absolute form leaves a returnTo on baseUrl', async () => {
  const app = await startApp();
  try {
    const authorize = new URL(buildAuthorizeUrl(app.baseUrl, MEMBER, {
      scope: 'openid', resource: app.baseUrl, challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', state: 's',
    }));
    // the request line names another host; Host is the server's own
    const answer = await rawRequest({ port: app.port, target: `http://evil.example${authorize.pathname}${authorize.search}` });
    const location = String(answer.headers.location);
    const uid = /\/oauth\/interaction\/([^/?]+)/.exec(location)?.[1];
    expect(uid).toEqual(expect.any(String));
    expect(location).not.toContain('evil.example');
    const interaction = await app.auth.provider.Interaction.find(uid!);
    expect(interaction?.returnTo).toBe(`${app.baseUrl}/oauth/authorize/${uid}`);
  } finally {
    await app.stop();
  }
});
