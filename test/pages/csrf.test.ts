/**
 * The pages' CSRF tokens (lib/pages/csrf.ts): bound to what the form acts on, never a cookie
 * signature, and taken from any cookie key, newest first, so a form shown before a key rotation
 * still posts after it; a dropped key's tokens are refused.
 */
import { createHmac } from 'node:crypto';

import { CsrfTokens } from '../../lib/index.ts';

const OLD = 'old-cookie-key-0123456789abcdef0123456789';
const NEW = 'new-cookie-key-fedcba9876543210fedcba9876';

it('binds a token to its uid', () => {
  const csrf = new CsrfTokens(NEW);
  const token = csrf.issue('uid-1');
  expect(csrf.verify('uid-1', token)).toBe(true);
  expect(csrf.verify('uid-2', token)).toBe(false);
  expect(csrf.verify('uid-1', undefined)).toBe(false);
  expect(csrf.verify('uid-1', `${token}x`)).toBe(false);
});

it('is never the cookie signature of the same value (a key of its own)', () => {
  const signature = createHmac('sha256', NEW).update('uid-1').digest('base64url');
  expect(new CsrfTokens(NEW).issue('uid-1')).not.toBe(signature);
});

it('issues with the newest key and takes a token of any key it was given: a form shown before a rotation posts after it', () => {
  const before = new CsrfTokens([OLD]);
  const after = new CsrfTokens([NEW, OLD]);
  expect(after.issue('uid-1')).toBe(new CsrfTokens(NEW).issue('uid-1'));
  expect(after.verify('uid-1', before.issue('uid-1'))).toBe(true);
  // once the old key is dropped, what it signed is refused
  expect(new CsrfTokens([NEW]).verify('uid-1', before.issue('uid-1'))).toBe(false);
});

it('needs a secret', () => {
  expect(() => new CsrfTokens([])).toThrow(TypeError);
});
