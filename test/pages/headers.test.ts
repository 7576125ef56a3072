/**
 * The pages' headers (lib/pages/headers.ts): `form-action` names the redirect's origin, its
 * custom scheme, or for an IPv6 literal host its scheme, which CSP can express.
 */
import { redirectSource } from '../../lib/pages/headers.ts';

it.each([
  ['https://client.example/cb?x=1', 'https://client.example'],
  ['http://127.0.0.1:5555/callback', 'http://127.0.0.1:5555'],
  ['http://localhost/callback', 'http://localhost'],
  // no host-source form for an IPv6 literal: the scheme stands in
  ['http://[::1]:5555/callback', 'http:'],
  ['https://[2001:db8::1]/cb', 'https:'],
  ['com.example.app:/oauth2redirect', 'com.example.app:'],
  ['not a url', undefined],
  [undefined, undefined],
])('redirectSource(%p) is %p', (uri, source) => {
  expect(redirectSource(uri)).toBe(source);
});
