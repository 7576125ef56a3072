/**
 * Request ids: a well-formed `X-Request-Id` is kept, anything else replaced by a fresh UUID,
 * one already on the response (the host's) wins, and the id is assigned once.
 */
import { assignRequestId, isWellFormedRequestId, keepRequestIdOn, MAX_REQUEST_ID_LENGTH, requestIdOf } from '../../lib/http/request-id.ts';

function response() {
  const headers = new Map<string, unknown>();
  return {
    headersSent: false,
    getHeader: (name: string) => headers.get(name),
    setHeader(name: string, value: unknown) { headers.set(name, value); return this as never; },
    headers,
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

it.each([
  ['a UUID', '5f0c8c1e-4bb5-4a4e-9b7e-2a0f3c1d9e11'],
  ['a proxy hex id', 'a1b2c3d4e5f60718'],
  ['an AWS-style trace id', 'Root=1-67891233-abcdef012345678912345678'],
  ['the longest allowed', 'x'.repeat(MAX_REQUEST_ID_LENGTH)],
])('keeps %s', (_, id) => {
  const res = response();
  expect(isWellFormedRequestId(id)).toBe(true);
  expect(assignRequestId({ headers: { 'x-request-id': id } }, res)).toBe(id);
  expect(res.headers.get('x-request-id')).toBe(id);
  expect(requestIdOf({ res })).toBe(id);
});

it.each([
  ['an empty one', ''],
  ['one too long', 'x'.repeat(MAX_REQUEST_ID_LENGTH + 1)],
  ['a line break (log forging)', 'abc\nplatform-auth: fake line'],
  ['spaces and quotes', 'a "b" c'],
  ['two headers', ['a', 'b']],
])('replaces %s by a fresh UUID', (_, id) => {
  const res = response();
  const assigned = assignRequestId({ headers: { 'x-request-id': id } }, res);
  expect(assigned).toMatch(UUID);
  expect(res.headers.get('x-request-id')).toBe(assigned);
});

it('makes one when none was sent, each request its own', () => {
  const a = assignRequestId({ headers: {} }, response());
  const b = assignRequestId({ headers: {} }, response());
  expect(a).toMatch(UUID);
  expect(b).toMatch(UUID);
  expect(a).not.toBe(b);
});

it('keeps the id already on the response (the host\'s own middleware, or a first assignment)', () => {
  const res = response();
  res.setHeader('x-request-id', 'host-123');
  expect(assignRequestId({ headers: { 'x-request-id': 'client-456' } }, res)).toBe('host-123');
  const again = response();
  const first = assignRequestId({ headers: {} }, again);
  expect(assignRequestId({ headers: {} }, again)).toBe(first);
});

it('has no id for a response that got none', () => {
  expect(requestIdOf({ res: response() })).toBeUndefined();
  expect(requestIdOf(undefined)).toBeUndefined();
});

describe('keepRequestIdOn', () => {
  const res = { getHeader: (name: string) => (name === 'x-request-id' ? 'req-1' : undefined) };

  it('puts the id into the error\'s own headers, keeping theirs', () => {
    const plain = new Error('boom');
    keepRequestIdOn(plain, res);
    expect((plain as Error & { headers?: unknown }).headers).toEqual({ 'x-request-id': 'req-1' });
    const withHeaders = Object.assign(new Error('refused'), { headers: { 'retry-after': '5' } });
    keepRequestIdOn(withHeaders, res);
    expect(withHeaders.headers).toEqual({ 'retry-after': '5', 'x-request-id': 'req-1' });
  });

  it('leaves alone what it cannot or should not change', () => {
    const frozen = Object.freeze(new Error('frozen'));
    expect(() => keepRequestIdOn(frozen, res)).not.toThrow();
    expect((frozen as Error & { headers?: unknown }).headers).toBeUndefined();
    expect(() => keepRequestIdOn('a string', res)).not.toThrow();
    expect(() => keepRequestIdOn(null, res)).not.toThrow();
    const readOnly = new (class extends Error {
      get headers() { return { a: 'b' }; }
    })('read-only');
    expect(() => keepRequestIdOn(readOnly, res)).not.toThrow();
    const noId = new Error('no id yet');
    keepRequestIdOn(noId, { getHeader: () => undefined });
    expect((noId as Error & { headers?: unknown }).headers).toBeUndefined();
  });
});
