/**
 * The host pin (lib/policies/host-pinning.ts): what the provider is shown, and that the
 * request is handed back to the host app as it came.
 */
import { request } from 'node:http';
import type { IncomingMessage } from 'node:http';

import { createHostPin, originForm } from '../../lib/policies/host-pinning.ts';
import { buildAuthorizeUrl, MEMBER } from '../support/flows.ts';
import { startApp } from '../support/start-app.ts';

const requestWith = (headers: Record<string, string>) => ({ headers: { ...headers } }) as unknown as IncomingMessage;

it('shows the provider the host of baseUrl and puts the original back', () => {
  const req = requestWith({ host: 'evil.example', 'x-forwarded-host': 'evil.example' });
  const unpin = createHostPin({ baseUrl: 'https://learn.example.com', proxy: false })(req);
  // without proxy the provider reads no X-Forwarded-*: left as it is
  expect(req.headers).toEqual({ host: 'learn.example.com', 'x-forwarded-host': 'evil.example' });
  unpin();
  expect(req.headers).toEqual({ host: 'evil.example', 'x-forwarded-host': 'evil.example' });
});

it('with proxy, pins X-Forwarded-Host and -Proto too, and removes what it added', () => {
  const req = requestWith({ host: 'internal:8080', 'x-forwarded-proto': 'http' });
  const unpin = createHostPin({ baseUrl: 'https://learn.example.com:8443', proxy: true })(req);
  expect(req.headers).toEqual({ host: 'learn.example.com:8443', 'x-forwarded-host': 'learn.example.com:8443', 'x-forwarded-proto': 'https' });
  unpin();
  expect(req.headers).toEqual({ host: 'internal:8080', 'x-forwarded-proto': 'http' });
});

it('pins HTTP/2 :authority when the request has one', () => {
  const req = requestWith({ ':authority': 'evil.example' });
  const unpin = createHostPin({ baseUrl: 'http://127.0.0.1:3000', proxy: false })(req);
  expect(req.headers).toEqual({ ':authority': '127.0.0.1:3000', host: '127.0.0.1:3000' });
  unpin();
  expect(req.headers).toEqual({ ':authority': 'evil.example' });
});

it('turns a target in absolute form into its path and query, and puts it back', () => {
  const req = { headers: { host: '127.0.0.1:3000' }, url: 'http://evil.example/oauth/authorize?client_id=a&x=%2F' } as unknown as IncomingMessage;
  const unpin = createHostPin({ baseUrl: 'https://learn.example.com', proxy: false })(req);
  expect(req.url).toBe('/oauth/authorize?client_id=a&x=%2F');
  unpin();
  expect(req.url).toBe('http://evil.example/oauth/authorize?client_id=a&x=%2F');
});

it.each([
  ['/already/origin-form?x=1', undefined],
  ['*', undefined],
  ['https://evil.example', '/'],
  ['HTTP://EVIL.EXAMPLE/a/b?c', '/a/b?c'],
  ['ftp://evil.example/a', undefined],
  ['not a url', undefined],
])('origin form of %s: %s', (target, expected) => {
  expect(originForm(target)).toBe(expected);
});

it('an authorization request in absolute form leaves a returnTo on baseUrl', async () => {
  const app = await startApp();
  try {
    const authorize = new URL(buildAuthorizeUrl(app.baseUrl, MEMBER, {
      scope: 'openid', resource: app.baseUrl, challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', state: 's',
    }));
    // the request line names another host; Host is the server's own
    const location = await new Promise<string>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: app.port, path: `http://evil.example${authorize.pathname}${authorize.search}` }, (res) => {
        res.resume();
        res.on('end', () => resolve(String(res.headers.location)));
      });
      req.on('error', reject);
      req.end();
    });
    const uid = /\/oauth\/interaction\/([^/?]+)/.exec(location)?.[1];
    expect(uid).toEqual(expect.any(String));
    expect(location).not.toContain('evil.example');
    const interaction = await app.auth.provider.Interaction.find(uid!);
    expect(interaction?.returnTo).toBe(`${app.baseUrl}/oauth/authorize/${uid}`);
  } finally {
    await app.stop();
  }
});
