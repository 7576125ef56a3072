/**
 * The options `createPlatformAuth` accepts, and what they resolve to.
 * Defaults and checks live in ./validate.ts; every field's default is named here.
 *
 * @module
 */
import type { ClientMetadata, JWKS } from 'oidc-provider';

import type { AdapterFactory } from '../../adapters/types.ts';
import type { AccountApiOptions, ResolvedAccountApiOptions } from '../account-api/index.ts';
import type { DocsOptions, ResolvedDocsOptions } from '../docs/index.ts';
import type { McpOptions, ResolvedMcpOptions } from '../mcp/index.ts';
import type {
  AccountStore, Logger, MemberDataSource, SiteStore,
} from '../contracts.ts';
import type { Audience } from '../scopes/catalogue.ts';

/** A client known at start-up: oidc-provider client metadata plus its audience. */
export interface StaticClient extends ClientMetadata {
  /**
   * Who the client acts for.
   * @default 'operator'
   */
  audience?: Audience;
  /** The site a member client belongs to; required when `audience` is `member`. */
  org_id?: string;
}

/** A vendor platform that Variant A registration hands out (spec §4, Registration). */
export interface VendorIntegration {
  /** a client in `options.clients` (operator audience) */
  clientId: string;
  /**
   * The `client_name` values that name this platform; matched case- and
   * whitespace-insensitively.
   * @default [the client's client_name]
   */
  names?: string[];
}

/**
 * `POST /api/oauth/register`. `restricted` (Variant A) hands out the client_id of a known
 * vendor platform by its `client_name` and registers nothing; `open` (Variant B) is RFC 7591
 * dynamic registration of operator clients through oidc-provider.
 */
export interface RegistrationOptions {
  /** @default 'restricted' */
  variant?: 'restricted' | 'open';
  /**
   * Variant A's vendor platforms.
   * @default []
   */
  vendors?: VendorIntegration[];
}

/** What a client ID metadata document fetch gets; the SSRF-safe `dispatcher` is set. */
export type MetadataDocumentFetch = (url: string, init: RequestInit & { dispatcher?: unknown }) => Promise<Response>;

/** Client ID Metadata Documents: `client_id` as an https URL of the client's metadata. */
export interface ClientIdMetadataDocumentOptions {
  /**
   * Accept metadata documents at all.
   * @default true when registration is open or `allowedHosts` is not empty
   */
  enabled?: boolean;
  /**
   * Hosts (`app.example.com`, or `host:port`) whose documents are accepted. When
   * registration is open, every host is.
   * @default []
   */
  allowedHosts?: string[];
  /**
   * The clients a site operator has reviewed. Until then a document's client may request
   * read scopes (`*:read`) and identity scopes only.
   * @default no client is reviewed
   */
  reviewed?: string[] | ((clientId: string) => boolean | Promise<boolean>);
  /**
   * Replaces the fetch that loads documents. **Tests only**: the replacement is handed
   * oidc-provider's SSRF-protected dispatcher and may ignore it, so production refuses it.
   * @default oidc-provider's fetch (SSRF-protected, 2.5 s, 5 KiB)
   */
  fetch?: MetadataDocumentFetch;
}

/** The member clients a site operator creates ("Developers → OAuth applications"). */
export interface MemberClientOptions {
  /**
   * Whether a site has the "MCP connections" beta; creation is refused elsewhere.
   * @default no site
   */
  betaEnabled?: boolean | string[] | ((siteId: string) => boolean | Promise<boolean>);
}

export interface TokenLifetimes {
  /** @default 3600 (1 hour) */
  accessToken?: number;
  /** @default 1209600 (14 days); rotated on every use */
  refreshToken?: number;
  /** @default 60 */
  authorizationCode?: number;
  /** @default 3600 (1 hour): how long a sign-in/consent page stays valid */
  interaction?: number;
  /** @default 1209600 (14 days): the browser sign-in session */
  session?: number;
  /** @default 1209600 (14 days): a user's consent to a client */
  grant?: number;
}


export interface PlatformAuthOptions {
  /**
   * The origin this service is reached at, e.g. `https://learn.example.com`. It is the
   * issuer, the resource indicator of every token, and the base of every endpoint.
   * `https` is required in production; `http` is accepted for localhost and loopback only.
   */
  baseUrl: string;
  /** The host's accounts: sign-in and the claims of `sub`. */
  accounts: AccountStore;
  /**
   * The host's sites, to show their names on the consent page.
   * @default each site is named by its id
   */
  sites?: SiteStore;
  /**
   * Clients known at start-up (for example the demo clients).
   * @default []
   */
  clients?: StaticClient[];
  /**
   * Storage, an oidc-provider adapter factory (`adapters/memory`, `adapters/redis`).
   * @default a fresh in-memory store (development only: lost on restart, not shared)
   */
  adapter?: AdapterFactory;
  /**
   * The private signing keys (JWKS) for ID tokens; ES256 (`kty: "EC"`, `crv: "P-256"`)
   * with a `kid`. Required in production.
   * @default an ephemeral key generated at start-up (development only)
   */
  jwks?: JWKS;
  /**
   * Secrets that sign the sign-in session cookies, newest first (rotate by prepending).
   * Each at least 32 characters. Required in production.
   * @default random keys generated at start-up (development only)
   */
  cookieKeys?: string[];
  /**
   * Issue ID tokens. When `false`, discovery lists neither
   * `id_token_signing_alg_values_supported` nor `jwks_uri`, the JWKS endpoint is not
   * served, no `id_token` is ever returned, and clients use UserInfo.
   * @default true
   */
  idTokens?: boolean;
  /**
   * The roles that make an account an operator of a site (may use operator clients for it).
   * @default ['owner', 'admin']
   */
  operatorRoles?: string[];
  /** Token and session lifetimes in seconds. */
  ttl?: TokenLifetimes;
  /**
   * Who may introspect a token besides the client it was issued to: the client ids of
   * trusted resource servers.
   * @default []
   */
  introspectionClients?: string[];
  /**
   * Trust `X-Forwarded-Proto`/`X-Forwarded-Host` (set when behind a TLS-terminating proxy).
   * @default false
   */
  proxy?: boolean;
  /**
   * Production mode refuses generated keys and cookie secrets.
   * @default process.env.NODE_ENV === 'production'
   */
  production?: boolean;
  /**
   * Where warnings go. Nothing the library logs ever contains a token or a secret.
   * @default console
   */
  logger?: Logger;
  /**
   * The host's member data. The Account API (`/account/graphql`) and the MCP member tools
   * read it; without it `/account/graphql` is not mounted.
   * @default undefined
   */
  memberData?: MemberDataSource;
  /** Account API settings (page size cap, query limits, introspection, GraphiQL). */
  accountApi?: AccountApiOptions;
  /** Client registration: Variant A (restricted, the default) or B (open). */
  registration?: RegistrationOptions;
  /** Client ID Metadata Documents. */
  clientIdMetadataDocuments?: ClientIdMetadataDocumentOptions;
  /** Member clients created through `auth.memberClients`. */
  memberClients?: MemberClientOptions;
  /** The MCP endpoint (`/mcp`): its tools; `false` turns it off. */
  mcp?: McpOptions | false;
  /** `/openapi.json` and `/auth.md`. */
  docs?: DocsOptions;
}

export interface ResolvedRegistration {
  readonly variant: 'restricted' | 'open';
  /** normalised name → client id */
  readonly vendors: ReadonlyMap<string, string>;
}

export interface ResolvedClientIdMetadataDocuments {
  readonly enabled: boolean;
  /** `null`: every host */
  readonly allowedHosts: ReadonlySet<string> | null;
  readonly isReviewed: (clientId: string) => Promise<boolean>;
  readonly fetch: MetadataDocumentFetch | undefined;
}

export interface ResolvedOptions {
  readonly baseUrl: string;
  readonly issuer: string;
  readonly accounts: AccountStore;
  readonly sites: SiteStore;
  readonly clients: readonly StaticClient[];
  readonly adapter: AdapterFactory;
  readonly ownsAdapter: boolean;
  readonly jwks: JWKS;
  readonly cookieKeys: readonly string[];
  readonly idTokens: boolean;
  readonly operatorRoles: readonly string[];
  readonly ttl: Required<TokenLifetimes>;
  readonly introspectionClients: readonly string[];
  readonly proxy: boolean;
  readonly production: boolean;
  readonly logger: Logger;
  readonly memberData: MemberDataSource | undefined;
  readonly accountApi: ResolvedAccountApiOptions;
  readonly registration: ResolvedRegistration;
  readonly clientIdMetadataDocuments: ResolvedClientIdMetadataDocuments;
  readonly betaEnabled: (siteId: string) => Promise<boolean>;
  readonly mcp: ResolvedMcpOptions;
  readonly docs: ResolvedDocsOptions;
  /** keys of the generated development secrets, for the start-up banner */
  readonly generated: readonly ('jwks' | 'cookieKeys')[];
}
