/**
 * Member clients, created by a site operator in the host's admin area ("Developers → OAuth
 * applications"), never self-serve (spec §2.2). The host's admin routes call this API after
 * checking that the signed-in person operates `site`; every method is scoped to that site,
 * so one site's operator can never see or change another site's clients.
 *
 * Clients are stored through oidc-provider's own Client model (the adapter), as member
 * audience metadata with the site as `org_id`, so every instance sees them at once. A rotation
 * writes only over the record it read (./client-records.ts), so a deletion from any instance
 * is never undone; each site's list is its own record (./site-index.ts).
 *
 * @example
 * ```ts
 * const { client, clientSecret } = await auth.memberClients.create('demo-school', {
 *   name: 'Study buddy', redirectUris: ['https://buddy.example/cb'], type: 'confidential',
 *   scopes: ['openid', 'profile', 'account:read'],
 * });
 * ```
 *
 * @module
 */
import { randomBytes } from 'node:crypto';

import type Provider from 'oidc-provider';

import type { AdapterFactory } from '../../adapters/types.ts';
import { StorageUnavailableError } from '../../adapters/types.ts';
import { MemberClientError } from '../errors.ts';
import { CONFIDENTIAL_CLIENT_AUTH_METHOD, PROTOCOL, PUBLIC_CLIENT_AUTH_METHOD } from '../constants.ts';
import { applicationTypeFor, isAcceptableRedirect, NOT_IN_A_NAME } from '../policies/client-metadata.ts';
import { characters, REGISTRATION_LIMITS } from '../policies/registration-limits.ts';
import { scopesForAudience } from '../scopes/catalogue.ts';
import type { TraceEntry } from '../trace/entry.ts';
import { ClientRecords } from './client-records.ts';
import { SITE_INDEX_MODEL, SiteIndex } from './site-index.ts';

export interface MemberClientInput {
  /** shown on the consent page */
  name: string;
  /** https, or http on a loopback address (any port is then accepted, RFC 8252 §7.3) */
  redirectUris: string[];
  /** `public`: PKCE only (`none`); `confidential`: also a secret (`client_secret_post`) */
  type: 'public' | 'confidential';
  /** picked from the member-eligible scopes; the client may request nothing else */
  scopes: string[];
}

export interface MemberClient {
  readonly clientId: string;
  readonly site: string;
  readonly name: string;
  readonly redirectUris: readonly string[];
  readonly type: 'public' | 'confidential';
  readonly scopes: readonly string[];
  /** epoch seconds */
  readonly createdAt: number;
}

export interface IssuedMemberClient {
  readonly client: MemberClient;
  /**
   * Confidential clients only; returned by `create` and `rotateSecret` alone, never read back
   * by another method. It is stored in plain text in the client's record, as oidc-provider
   * compares `client_secret_post` with it: whoever can read the storage can read it.
   */
  readonly clientSecret?: string;
}

export interface MemberClientManager {
  /** Refused unless the site has the "MCP connections" beta. */
  create(site: string, input: MemberClientInput): Promise<IssuedMemberClient>;
  list(site: string): Promise<MemberClient[]>;
  get(site: string, clientId: string): Promise<MemberClient>;
  /**
   * A new secret for a confidential client; the old one stops working at once. Rotations of
   * one client, from any instance, take effect one after the other, each returning its
   * secret: the last one written works. A client deleted meanwhile stays deleted (`not_found`).
   */
  rotateSecret(site: string, clientId: string): Promise<IssuedMemberClient & { clientSecret: string }>;
  /**
   * Deletes the client. From then on none of its tokens is accepted anywhere (every use of a
   * token looks its client up); their records are revoked when next presented, or expire.
   */
  delete(site: string, clientId: string): Promise<void>;
  /**
   * The client's recent events, newest first, each in plain words with what to do
   * (`options.trace`; README "Trace"): why a connection fails. `[]` with `trace: false`.
   */
  trace(site: string, clientId: string): Promise<TraceEntry[]>;
}

export interface MemberClientDeps {
  readonly provider: Provider;
  /**
   * the factory the provider's storage is built from: for the per-site list (model
   * `SiteMemberClients`) and the `Client` model's records, with its `compareAndSet`
   */
  readonly adapter: AdapterFactory;
  readonly betaEnabled: (site: string) => Promise<boolean>;
  /** `options.memberClients.maxPerSite`: create beyond it is refused */
  readonly maxPerSite: number;
  readonly siteExists: (site: string) => Promise<boolean>;
  /** a client's trace (lib/trace/), whoever's it is: checked against the site here */
  readonly readTrace?: (clientId: string) => Promise<TraceEntry[]>;
}

type Stored = Record<string, unknown>;

// the same sizes as a registration's (one rule for what a client may store)
const MAX_NAME = REGISTRATION_LIMITS.clientNameLength;
const MAX_REDIRECTS = REGISTRATION_LIMITS.redirectUris;
/** tries of a rotation whose client other instances keep changing between its read and write */
const MAX_ROTATION_TRIES = 5;

function invalid(description: string): never {
  throw new MemberClientError('invalid_client_metadata', description);
}

function checkInput(input: MemberClientInput): MemberClientInput {
  if (!input || typeof input !== 'object') invalid('pass { name, redirectUris, type, scopes }');
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  if (!name || characters(name) > MAX_NAME) invalid(`name must be 1 to ${MAX_NAME} characters`);
  if (NOT_IN_A_NAME.test(name)) invalid('name must not contain control or text-direction characters');
  if (input.type !== 'public' && input.type !== 'confidential') invalid('type must be "public" or "confidential"');
  if (!Array.isArray(input.redirectUris) || input.redirectUris.length === 0 || input.redirectUris.length > MAX_REDIRECTS) {
    invalid(`redirectUris must list 1 to ${MAX_REDIRECTS} URIs`);
  }
  for (const uri of input.redirectUris) {
    if (typeof uri === 'string' && characters(uri) > REGISTRATION_LIMITS.uriLength) invalid(`each redirect URI must be at most ${REGISTRATION_LIMITS.uriLength} characters`);
    if (!isAcceptableRedirect(uri)) {
      invalid(`redirect URI ${JSON.stringify(uri)} must be https, or http on a loopback address, without a fragment, a user or password, or whitespace`);
    }
  }
  const eligible = new Set(scopesForAudience('member'));
  if (!Array.isArray(input.scopes) || input.scopes.length === 0) invalid(`scopes must pick at least one of ${[...eligible].join(', ')}`);
  for (const scope of input.scopes) {
    if (!eligible.has(scope)) invalid(`scope ${JSON.stringify(scope)} cannot be given to a member client; pick from ${[...eligible].join(', ')}`);
  }
  return { name, type: input.type, redirectUris: [...new Set(input.redirectUris)], scopes: [...new Set(input.scopes)] };
}

function view(stored: Stored): MemberClient {
  return Object.freeze({
    clientId: String(stored.client_id),
    site: String(stored.org_id),
    name: String(stored.client_name),
    redirectUris: Object.freeze([...(stored.redirect_uris as string[])]),
    type: stored.token_endpoint_auth_method === PUBLIC_CLIENT_AUTH_METHOD ? 'public' : 'confidential',
    scopes: Object.freeze(String(stored.scope ?? '').split(' ').filter(Boolean)),
    createdAt: Number(stored.client_id_issued_at ?? 0),
  });
}

/**
 * How old an entry of a site's list naming no client must be before a full list drops it: a
 * create writes its entry, then its client, within one storage call's timeout of each other.
 */
const LEFTOVER_SECONDS = 60;

export function createMemberClientManager({ provider, adapter, betaEnabled, maxPerSite, siteExists, readTrace }: MemberClientDeps): MemberClientManager {
  // the records Client.find reads (the factory's own adapter: the provider's may hide compareAndSet)
  const clients = new ClientRecords(adapter('Client'));
  const sites = new SiteIndex(adapter(SITE_INDEX_MODEL));

  /** The stored client, if it is a member client of `site`; the same answer for "another site's" and "none". */
  async function load(site: string, clientId: string): Promise<Stored> {
    const stored = typeof clientId === 'string' && clientId ? await clients.find(clientId) : undefined;
    if (!stored || stored.audience !== 'member' || stored.org_id !== site) {
      throw new MemberClientError('not_found', `site ${site} has no OAuth application ${JSON.stringify(clientId)}`);
    }
    return stored as Stored;
  }

  /**
   * Takes out of the site's list the entries that name no client and are older than any
   * create still under way (a failed create that could not take its entry back, a delete that
   * failed between its two writes): they count against \`maxPerSite\` and no operator can see
   * or delete them, so a site that met such faults could never create again. Asked only
   * when the list is full. \`true\` when one was taken out.
   */
  async function dropLeftovers(site: string): Promise<boolean> {
    const oldEnough = Math.floor(Date.now() / 1000) - LEFTOVER_SECONDS;
    const old = (await sites.entries(site)).filter((e) => e.addedAt === undefined || e.addedAt <= oldEnough);
    const gone = (await Promise.all(old.map(async (e) => ((await clients.find(e.clientId)) ? undefined : e.clientId))))
      .filter((id): id is string => id !== undefined);
    for (const id of gone) await sites.remove(site, id);
    return gone.length > 0;
  }

  async function validate(metadata: Stored): Promise<void> {
    try {
      // the provider's own schema and our audience rules (lib/policies/client-metadata.ts)
      await provider.Client.validate(metadata as never);
    } catch (err) {
      invalid((err as { error_description?: string }).error_description ?? 'the client metadata is invalid');
    }
  }

  return Object.freeze({
    async create(site: string, input: MemberClientInput) {
      if (typeof site !== 'string' || !(await siteExists(site))) invalid(`site ${JSON.stringify(site)} does not exist`);
      if (!(await betaEnabled(site))) {
        throw new MemberClientError('access_denied', `OAuth applications need the "MCP connections" beta, which is not enabled for site ${site}`);
      }
      const checked = checkInput(input);
      const clientId = `mc_${randomBytes(12).toString('base64url')}`;
      const clientSecret = checked.type === 'confidential' ? randomBytes(32).toString('base64url') : undefined;
      const metadata: Stored = {
        client_id: clientId,
        client_id_issued_at: Math.floor(Date.now() / 1000),
        client_name: checked.name,
        redirect_uris: checked.redirectUris,
        application_type: applicationTypeFor(checked.redirectUris),
        grant_types: [...PROTOCOL.grantTypes],
        response_types: [...PROTOCOL.responseTypes],
        token_endpoint_auth_method: clientSecret ? CONFIDENTIAL_CLIENT_AUTH_METHOD : PUBLIC_CLIENT_AUTH_METHOD,
        scope: checked.scopes.join(' '),
        audience: 'member',
        org_id: site,
        ...(clientSecret ? { client_secret: clientSecret, client_secret_expires_at: 0 } : {}),
      };
      await validate(metadata);
      // the list first: a failure in between leaves an entry that list() skips, never a
      // working client that no list shows (and that a retry would double)
      // the limit is checked in the list's own change, so instances creating at once cannot pass it together
      const added = await sites.add(site, clientId, maxPerSite) || (await dropLeftovers(site) && await sites.add(site, clientId, maxPerSite));
      if (!added) {
        throw new MemberClientError('access_denied', `site ${site} has ${maxPerSite} OAuth applications, the most it may have (memberClients.maxPerSite); delete one first`);
      }
      try {
        await clients.insert(clientId, metadata);
      } catch (err) {
        // the write may still land: a Redis (Cluster node) that stopped answering applies it
        // once back. So the record is deleted first (on the same connection, after the
        // write), and the entry taken back only once that delete is confirmed, so failed
        // creates do not pile up in the list. A delete that fails too keeps the entry: a
        // client that lands later is listed (and can be deleted), and an entry naming
        // nothing is skipped by list()
        const deleted = await clients.destroy(clientId).then(() => true, () => false);
        if (deleted) await sites.remove(site, clientId).catch(() => undefined);
        throw err;
      }
      return Object.freeze({ client: view(metadata), ...(clientSecret ? { clientSecret } : {}) });
    },

    async list(site: string) {
      const found = await Promise.all((await sites.ids(site)).map((id) => clients.find(id)));
      return found
        .filter((s): s is NonNullable<typeof s> => s !== undefined && s.audience === 'member' && s.org_id === site)
        .map((s) => view(s as Stored));
    },

    async get(site: string, clientId: string) {
      return view(await load(site, clientId));
    },

    rotateSecret(site: string, clientId: string) {
      return clients.exclusive(clientId, async () => {
        for (let tries = 0; tries < MAX_ROTATION_TRIES; tries += 1) {
          const stored = await load(site, clientId);
          if (stored.token_endpoint_auth_method === PUBLIC_CLIENT_AUTH_METHOD) invalid('public clients have no secret to rotate');
          const clientSecret = randomBytes(32).toString('base64url');
          const metadata = { ...stored, client_secret: clientSecret };
          await validate(metadata);
          // false: another instance deleted or rotated it since the read; the next try answers
          // not_found, or rotates the newer record (so its rotation counts as the earlier one)
          if (await clients.replace(clientId, stored, metadata)) return Object.freeze({ client: view(metadata), clientSecret });
        }
        throw new StorageUnavailableError(`OAuth application ${clientId} kept changing during its secret's rotation (${MAX_ROTATION_TRIES} tries); retry`);
      });
    },

    async delete(site: string, clientId: string) {
      await clients.exclusive(clientId, async () => {
        try {
          await load(site, clientId);
        } catch (err) {
          // a delete that failed after the record was gone (a 503 between the two writes, a
          // lost reply) is asked again: its entry goes now (an id is only ever in the list of
          // the site it was made for), or it would count against maxPerSite for good
          if (err instanceof MemberClientError && err.code === 'not_found' && typeof clientId === 'string' && clientId) await sites.remove(site, clientId);
          throw err;
        }
        // oidc-provider indexes tokens by grant but grants by nothing, so a client's grants
        // cannot be listed without a per-client index every consent would rewrite (a cost that
        // grows with the client's users). Removing the client is enough: the bearer guard,
        // introspection and the token and revocation endpoints all look the client up and
        // refuse its tokens; lib/resource/bearer.ts revokes a grant found orphaned. A rotation
        // that read the client before this fails its write (ClientRecords.replace).
        await clients.destroy(clientId);
      });
      await sites.remove(site, clientId);
    },

    async trace(site: string, clientId: string) {
      // another site's client, or none: the same not_found as every other method
      await load(site, clientId);
      return readTrace ? readTrace(clientId) : [];
    },
  });
}
