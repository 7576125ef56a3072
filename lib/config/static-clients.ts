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
 * the first one the provider refuses or that holds an unknown property. An unknown property
 * is named first, even when the provider refuses the client too: a misspelt one
 * (`redirect_uri`) is often why it does (`redirect_uris is mandatory property`).
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
      const reference = referenceKeys(provider);
      const stray = strayKey(metadata, unrecognised(provider, metadata, reference), reference);
      if (stray !== undefined) fail(strayMessage(path, stray, metadata, reference, err.error_description ?? err.message));
      fail(await refusal(provider, path, metadata, err));
    }
    // the client as built holds what the provider recognises (given or defaulted) and drops the rest
    const known = new Set(kept);
    const stray = strayKey(metadata, Object.keys(metadata).filter((key) => metadata[key] !== undefined && !known.has(key)), kept);
    if (stray !== undefined) fail(strayMessage(path, stray, metadata, kept));
  }
}

/** Of the unknown properties, the first with a likely intended name, else the first. */
function strayKey(metadata: StaticClient, unknown: readonly string[], kept: readonly string[]): string | undefined {
  const guesses = guessesFor(metadata, kept);
  return unknown.find((key) => didYouMean(key, guesses) !== '') ?? unknown[0];
}

/**
 * What an unknown property might have meant: among `kept` (what a built client holds, given
 * or defaulted), what the client does not hold yet, and the library's own metadata.
 */
function guessesFor(metadata: StaticClient, kept: readonly string[]): string[] {
  return [...new Set([...kept, ...EXTRA_CLIENT_METADATA])].filter((k) => !(k in metadata) || (EXTRA_CLIENT_METADATA as readonly string[]).includes(k));
}

/** `refused`: the provider's reason, when it refuses the client as it stands. */
function strayMessage(path: string, key: string, metadata: StaticClient, kept: readonly string[], refused?: string): string {
  const also = refused === undefined ? '' : `, and oidc-provider refuses the client as it stands (${refused})`;
  return `${path}.${key} is not client metadata that oidc-provider (as configured here) or this library reads, so it would be ignored${also}${didYouMean(key, guessesFor(metadata, kept)) || `; remove it (${SPEC})`}`;
}

/** oidc-provider builds a client from its metadata as `Client.validate` does (the constructor is not in its types). */
type ClientConstructor = new (metadata: Record<string, unknown>) => { metadata(): Record<string, unknown> };

/** A client the provider accepts, as small as can be: what it holds is every defaulted property and these. */
const REFERENCE = { client_id: 'platform-auth-reference', token_endpoint_auth_method: 'none', redirect_uris: ['https://client.example/cb'] } as const;

function build(provider: Provider, metadata: Record<string, unknown>): Record<string, unknown> {
  return new (provider.Client as unknown as ClientConstructor)(metadata).metadata();
}

/** What the reference client holds (the provider's defaults, the required properties), and the library's own. */
function referenceKeys(provider: Provider): string[] {
  return [...Object.keys(build(provider, REFERENCE)), ...EXTRA_CLIENT_METADATA];
}

/**
 * The properties of a client the provider refused that it would also ignore. Without a built
 * client to compare with, each property the reference client does not hold is tried on it:
 * kept, or refused for its value, it is one the provider reads; dropped, it is not.
 */
function unrecognised(provider: Provider, metadata: StaticClient, reference: readonly string[]): string[] {
  const known = new Set(reference);
  return Object.entries(metadata).filter(([key, value]) => {
    if (value === undefined || known.has(key)) return false;
    try {
      return !(key in build(provider, { ...REFERENCE, [key]: value }));
    } catch {
      // refused for its value (or anything else): read, so not what this names
      return false;
    }
  }).map(([key]) => key);
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
