/**
 * The host pin (lib/policies/host-pinning.ts): what the provider is shown, and that the
 * request is handed back to the host app as it came.
 */
import type { IncomingMessage } from 'node:http';

import { createHostPin } from '../../lib/policies/host-pinning.ts';

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
