/**
 * The client of a token, looked up by whoever checks the token (the bearer routes, the
 * introspection policy). A metadata-document client is fetched again once its cached copy is
 * old, and oidc-provider says `invalid_client` when that fails: an error that names the
 * *caller's* client (RFC 6749 §5.2), so it must not reach an answer about someone else's
 * token. Here a document now gone or invalid is {@link DOCUMENT_REFUSED} (the token is
 * inactive: 401 `invalid_token` at a bearer route, `{"active":false}` at introspection), and a
 * fetch that may work later (its host unreachable, timing out, answering 5xx) is a
 * `StorageUnavailableError`, a 503 to retry wherever it is thrown (oidc-provider renders it
 * so, and the bearer routes answer it as an outage): a client told its token is invalid
 * drops it.
 *
 * @module
 */
import type Provider from 'oidc-provider';
import { errors } from 'oidc-provider';

import { StorageUnavailableError } from '../../adapters/types.ts';
import { documentMayWorkLater } from '../events/metadata-document-failure.ts';

/** A metadata-document client whose document was refused when fetched again. */
export const DOCUMENT_REFUSED = Symbol('document refused');

/** The token's client, `undefined` for none (deleted), or {@link DOCUMENT_REFUSED}; see the module comment. */
export function findTokenClient(Client: Provider['Client'], clientId: string) {
  return Client.find(clientId).catch((error: unknown): typeof DOCUMENT_REFUSED => {
    if (error instanceof errors.TemporarilyUnavailable || documentMayWorkLater(error)) {
      throw new StorageUnavailableError('client metadata document unreachable', { cause: error });
    }
    if (error instanceof errors.InvalidClient || error instanceof errors.InvalidClientMetadata) return DOCUMENT_REFUSED;
    throw error;
  });
}
