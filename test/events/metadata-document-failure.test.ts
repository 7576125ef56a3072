/**
 * Why a metadata document could not be used, read from oidc-provider's error: the allowlist,
 * DNS, its SSRF guard, the timeout, the size limit, the status, invalid content; and errors
 * that are about something else are not taken for one.
 */
import { errors } from 'oidc-provider';

import { metadataDocumentFailure } from '../../lib/events/metadata-document-failure.ts';

const fetchFailed = (cause: unknown, detail?: string) => {
  const error = new errors.InvalidClient('client_id metadata document fetch failed', { cause });
  if (detail) Object.assign(error, { error_detail: detail });
  return error;
};
const withCode = (code: string) => Object.assign(new Error(`getaddrinfo ${code} evil.example`), { code });

it.each([
  ['the host is not allowed', new errors.InvalidClient('client_id metadata document fetch not allowed'), { reason: 'host_not_allowed' }],
  ['DNS', fetchFailed(new TypeError('fetch failed', { cause: withCode('ENOTFOUND') })), { reason: 'dns' }],
  ['the SSRF guard', fetchFailed(new TypeError('fetch failed', { cause: new Error('hostname resolves to a special-use IP address') })), { reason: 'refused_address' }],
  ['a timeout', fetchFailed(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), { reason: 'timeout' }],
  ['the size limit', fetchFailed(new Error('response too large')), { reason: 'size' }],
  ['a status', new errors.InvalidClient('client_id metadata document fetch failed', 'unexpected response status 404'), { reason: 'status', status: 404 }],
  ['a cached status', fetchFailed(new Error('cached failure: status 500')), { reason: 'status', status: 500 }],
  ['JSON that does not parse', fetchFailed(new SyntaxError('Unexpected token')), { reason: 'invalid_content' }],
  ['a document refused', new errors.InvalidClientMetadata('client_id metadata document client_id does not match the expected value'), { reason: 'invalid_content' }],
  ['the library\'s own host check', new errors.InvalidClient('client_id metadata document host resolves to a special-use address; documents are fetched from public hosts only', { cause: new Error('10.0.0.1') }), { reason: 'refused_address' }],
  ['a reason the fetch gives itself', fetchFailed(Object.assign(new Error('refused'), { reason: 'refused_address' })), { reason: 'refused_address' }],
  ['anything else', fetchFailed(new Error('socket hang up')), { reason: 'network' }],
])('%s', (_, error, expected) => {
  const failure = metadataDocumentFailure(error);
  expect(failure).toMatchObject(expected);
  expect(failure!.description).toMatch(/\w/);
});

it('is nothing for errors of other kinds', () => {
  expect(metadataDocumentFailure(new errors.InvalidClient('client is invalid', 'client not found'))).toBeUndefined();
  expect(metadataDocumentFailure(new errors.InvalidRedirectUri())).toBeUndefined();
  expect(metadataDocumentFailure(new Error('x'))).toBeUndefined();
  expect(metadataDocumentFailure(undefined)).toBeUndefined();
});

it('never copies the error\'s own message (it may quote the document) into the description', () => {
  const failure = metadataDocumentFailure(fetchFailed(new SyntaxError('Unexpected token s in JSON: "secret-value"')));
  expect(failure!.description).not.toContain('secret-value');
});
