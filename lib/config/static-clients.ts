/**
 * The start-up check of `options.clients` against oidc-provider's own client schema. The
 * provider builds a static client only when it is first used, so metadata it refuses
 * (`token_endpoint_auth_method: 'foo'`, `redirect_uris` as a string, a missing
 * `client_secret`) would otherwise show every person who signs in to that client a broken
 * sign-in link, with nothing logged. Here it fails `createPlatformAuth` instead, as do
 * properties that neither oidc-provider nor this library knows (they would be ignored).
 *
 * @module
 */
import { errors } from 'oidc-provider';
import type Provider from 'oidc-provider';

import { PROTOCOL } from '../constants.ts';
import { EXTRA_CLIENT_METADATA } from '../policies/client-metadata.ts';
import { didYouMean, fail, show } from './check.ts';
import type { StaticClient } from './options.ts';

const SPEC = 'RFC 7591 §2 and OpenID Connect Dynamic Client Registration §2 define the client metadata';
const MISSING_SECRET = 'client_secret is mandatory property';

/**
 * Builds each static client as its first request would, from the provider's own copy of the
 * metadata (what `lib/provider/configuration.ts` handed it); throws ConfigurationError for
 * the first one the provider refuses or that holds an unknown property.
 */
export async function checkStaticClients(provider: Provider, clients: readonly StaticClient[]): Promise<void> {
  for (const [i, metadata] of clients.entries()) {
    const path = `options.clients[${i}]`;
    let kept: string[];
    try {
      // the lookup of a request: builds the client once and keeps it
      const client = await provider.Client.find(metadata.client_id);
      kept = [...Object.keys(client!.metadata()), ...EXTRA_CLIENT_METADATA];
    } catch (err) {
      if (!(err instanceof errors.InvalidClientMetadata)) throw err;
      fail(await refusal(provider, path, metadata, err));
    }
    // the client as built holds what the provider recognises (given or defaulted) and drops the rest
    const known = new Set(kept);
    for (const [key, value] of Object.entries(metadata)) {
      if (value === undefined || known.has(key)) continue;
      // a guess among what the client does not hold yet: defaulted properties and the library's own
      const guesses = kept.filter((k) => !(k in metadata) || (EXTRA_CLIENT_METADATA as readonly string[]).includes(k));
      fail(`${path}.${key} is not client metadata that oidc-provider (as configured here) or this library reads, so it would be ignored${didYouMean(key, guesses) || `; remove it (${SPEC})`}`);
    }
  }
}

/** What to say for a refused client: the property oidc-provider names, its reason and the fix. */
async function refusal(provider: Provider, path: string, metadata: StaticClient, err: errors.InvalidClientMetadata): Promise<string> {
  const reason = err.error_description ?? err.message;
  if (reason === MISSING_SECRET && metadata.client_secret === undefined) {
    // oidc-provider asks for a secret before it looks at the method: an unknown method
    // (`'foo'`) is the real fault, found by checking again as if a secret were there
    const other = await otherRefusal(provider, { ...metadata, client_secret: 'a placeholder, never used' });
    if (other === undefined) {
      const method = metadata.token_endpoint_auth_method ?? PROTOCOL.defaultTokenEndpointAuthMethod;
      return `${path}.client_secret is missing, and token_endpoint_auth_method ${show(method)}${metadata.token_endpoint_auth_method ? '' : ' (the default)'} needs one: `
        + 'set client_secret to a long random secret, or token_endpoint_auth_method to "none" for a public client (it then proves itself with PKCE)';
    }
    return described(path, metadata, other);
  }
  return described(path, metadata, reason);
}

async function otherRefusal(provider: Provider, metadata: StaticClient): Promise<string | undefined> {
  try {
    await provider.Client.validate(metadata);
    return undefined;
  } catch (err) {
    if (!(err instanceof errors.InvalidClientMetadata)) throw err;
    return err.error_description ?? err.message;
  }
}

/** `options.clients[0].redirect_uris …` when the reason starts with a property name, else the client. */
function described(path: string, metadata: StaticClient, reason: string): string {
  const property = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b|^[a-z]+(?= )/.exec(reason)?.[0];
  const where = property !== undefined && (property.includes('_') || property in metadata) ? `${path}.${property}` : path;
  return `${where} is refused by oidc-provider: ${reason}. Correct the client's metadata (${SPEC}); until then every sign-in to this client would fail`;
}
