/**
 * An `OAuthClientProvider` for the MCP SDK's own OAuth client (`auth()`, and the
 * `StreamableHTTPClientTransport`'s `authProvider`), in memory, with what a test needs to
 * follow the flow: the authorization URL the SDK built is kept instead of opened, and
 * `approve()` walks it through the real sign-in and consent pages and returns the code.
 *
 * What decides the client the SDK uses: pre-registered `clientInformation` first; else, when
 * the authorization server says `client_id_metadata_document_supported` and the provider has
 * a `clientMetadataUrl`, that URL is the client_id (CIMD); else dynamic registration with
 * `clientMetadata`, whose `scope` the SDK replaces with the scope it is about to request.
 */
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';

import { Browser, signIn } from './browser.ts';
import type { SignInOptions } from './browser.ts';
import { randomState } from './pkce.ts';

export interface TestOAuthProviderOptions {
  /** where the authorization server sends the browser back; a loopback URL, any port */
  redirectUrl: string;
  /** extra or replaced registration metadata */
  clientMetadata?: Partial<OAuthClientMetadata>;
  /** an HTTPS client ID metadata document: used when the server supports them */
  clientMetadataUrl?: string;
  /** pre-registered client (e.g. a member client a site operator created) */
  clientInformation?: OAuthClientInformationMixed;
  /** tokens to start with (e.g. a garbage one, for a bare 401) */
  tokens?: OAuthTokens;
  /**
   * Return the resource as a parsed URL from `validateResourceURL`, so the SDK sends its
   * `href`: `https://host/` with a trailing slash (as some clients do).
   */
  resourceWithTrailingSlash?: boolean;
}

export class TestOAuthProvider implements OAuthClientProvider {
  #redirectUrl: string;
  readonly #metadata: OAuthClientMetadata;
  #client: OAuthClientInformationMixed | undefined;
  #tokens: OAuthTokens | undefined;
  #verifier: string | undefined;
  #state: string | undefined;
  readonly clientMetadataUrl: string | undefined;
  /** every authorization URL the SDK asked to open, newest last */
  readonly authorizationUrls: URL[] = [];
  /** every token set the SDK saved, newest last */
  readonly savedTokens: OAuthTokens[] = [];
  /** how many times the SDK registered a client dynamically */
  registrations = 0;
  validateResourceURL?: (serverUrl: string | URL, resource?: string) => Promise<URL | undefined>;

  constructor(options: TestOAuthProviderOptions) {
    this.#redirectUrl = options.redirectUrl;
    this.clientMetadataUrl = options.clientMetadataUrl;
    this.#client = options.clientInformation;
    this.#tokens = options.tokens;
    this.#metadata = {
      client_name: 'MCP test client',
      redirect_uris: [options.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...options.clientMetadata,
    };
    if (options.resourceWithTrailingSlash) {
      this.validateResourceURL = async (_serverUrl, resource) => (resource ? new URL(resource) : undefined);
    }
  }

  get redirectUrl(): string {
    return this.#redirectUrl;
  }

  /** A client restarted on another ephemeral port keeps its registration. */
  set redirectUrl(url: string) {
    this.#redirectUrl = url;
  }

  get clientMetadata(): OAuthClientMetadata {
    return this.#metadata;
  }

  state(): string {
    this.#state = randomState();
    return this.#state;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.#client;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    if (!this.#client && 'client_id_issued_at' in info) this.registrations += 1;
    this.#client = info;
  }

  tokens(): OAuthTokens | undefined {
    return this.#tokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.#tokens = tokens;
    this.savedTokens.push(tokens);
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrls.push(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.#verifier) throw new Error('no code verifier saved');
    return this.#verifier;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'client') this.#client = undefined;
    if (scope === 'all' || scope === 'tokens') this.#tokens = undefined;
    if (scope === 'all' || scope === 'verifier') this.#verifier = undefined;
  }

  /** the authorization request the SDK built last */
  get lastAuthorization(): URLSearchParams {
    const url = this.authorizationUrls.at(-1);
    if (!url) throw new Error('the SDK did not start an authorization');
    return url.searchParams;
  }

  /**
   * Follows the last authorization URL through the real pages as `user` and returns the
   * code, after checking `state` and `iss` (RFC 9207) on the way back.
   */
  async approve(issuer: string, user: SignInOptions, browser = new Browser(issuer)): Promise<string> {
    const url = this.authorizationUrls.at(-1);
    if (!url) throw new Error('the SDK did not start an authorization');
    const callback = new URL(await signIn(browser, url.href, user));
    const params = callback.searchParams;
    if (params.get('error')) throw new AuthorizationRefused(params.get('error')!, params.get('error_description') ?? '');
    if (params.get('state') !== this.#state) throw new Error(`state mismatch in ${callback.href}`);
    if (params.get('iss') !== issuer) throw new Error(`iss mismatch in ${callback.href}`);
    if (callback.origin + callback.pathname !== new URL(this.#redirectUrl).origin + new URL(this.#redirectUrl).pathname) {
      throw new Error(`redirected to ${callback.href}, not ${this.#redirectUrl}`);
    }
    return params.get('code')!;
  }
}

/** The authorization server sent the browser back with an error (RFC 6749 §4.1.2.1). */
export class AuthorizationRefused extends Error {
  readonly error: string;

  constructor(error: string, description: string) {
    super(`${error}: ${description}`);
    this.name = 'AuthorizationRefused';
    this.error = error;
  }
}

/** A loopback redirect URI on a port nobody registered, as native MCP clients pick them. */
export function ephemeralRedirect(path = '/callback'): string {
  return `http://127.0.0.1:${40000 + Math.floor(Math.random() * 20000)}${path}`;
}
