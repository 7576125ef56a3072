/**
 * Unused registered clients expire: a client that registered itself (Variant B, RFC 7591)
 * is stored with a TTL of `unusedSeconds`, and every grant created or used for it (a consent,
 * an access or refresh token issued) pushes its expiry back. A client with no grant activity
 * for that long is gone, its record reclaimed by the storage itself (Redis `EX`, the memory
 * adapter's sweep): nothing has to scan for it.
 *
 * - Only clients stored by oidc-provider's registration route get a TTL. Static and vendor
 *   clients are never stored, metadata-document clients are fetched, not stored, and member
 *   clients are stored by `auth.memberClients` outside any provider request: none expires.
 * - The expiry is pushed back to `max(unusedSeconds, the artefact's own TTL)` from now, so a
 *   client outlives every grant and token issued to it: no live refresh token ever names a
 *   vanished client.
 * - Extending costs a read and a write of the client record, done at most once per
 *   `unusedSeconds / 30` (a day by default) per client and instance: an in-process note of
 *   each client's known expiry answers the other token issues without storage.
 * - The expiry is kept in the stored record ({@link CLIENT_EXPIRY_FIELD}); oidc-provider drops
 *   properties it does not recognise when it loads a client, so clients never see it.
 *
 * Clients registered before this rule have no TTL and are left as they are.
 *
 * With the rule off (`unusedSeconds: false`, and always in the restricted variant), a client
 * registered while it was on still carries its TTL: nothing would push it back any more, so
 * a client in daily use would be deleted and its tokens refused `invalid_client`. Such a
 * client is made permanent (field and TTL dropped, written only over the record read) the
 * first time it is looked up ({@link PermanentClients}). One that is never looked up again
 * expires as it would have: no adapter is scanned for them.
 *
 * @module
 */
import Provider from 'oidc-provider';

import type { Adapter, AdapterFactory, AdapterPayload, CompareAndSet } from '../../adapters/types.ts';
import { decorateModel, DelegatingAdapter } from './model-decorator.ts';

/** Where a registered client's record keeps its expiry (epoch seconds); no RFC 7591 name has a colon. */
export const CLIENT_EXPIRY_FIELD = 'platform_auth:expires_at';

/** The models whose records mean "a grant for this client was created or used". */
export const GRANT_ACTIVITY_MODELS = Object.freeze(['Grant', 'AccessToken', 'RefreshToken'] as const);

/** Clients whose known expiry one instance keeps in memory; the oldest note is dropped beyond it. */
const MAX_NOTES = 10_000;

export interface ClientExpiryOptions {
  /** seconds after registration, or after the last grant activity, at which a registered client is deleted; `false`: never */
  readonly unusedSeconds: number | false;
  /** whether the client being stored comes from a registration; for tests */
  readonly isRegistration?: () => boolean;
  /** epoch seconds; for tests */
  readonly now?: () => number;
}

const epoch = () => Math.floor(Date.now() / 1000);

/** oidc-provider runs each request in an AsyncLocalStorage, so storage calls can see their route. */
const duringRegistration = () => Provider.ctx?.oidc.route === 'registration';

type ClientStore = Adapter & Partial<CompareAndSet>;

/** The rule's state for one provider: the client storage and what this instance knows of expiries. */
class ClientExpiry {
  readonly unusedSeconds: number;
  readonly isRegistration: () => boolean;
  readonly now: () => number;
  /** a client's expiry is pushed back only when it would gain more than this */
  readonly #step: number;
  readonly #clients: () => ClientStore;
  /** client id → its expiry as last read or written (epoch s); Infinity: never expires */
  readonly #known = new Map<string, number>();

  constructor(clients: () => ClientStore, options: ClientExpiryOptions & { unusedSeconds: number }) {
    this.unusedSeconds = options.unusedSeconds;
    this.isRegistration = options.isRegistration ?? duringRegistration;
    this.now = options.now ?? epoch;
    this.#step = Math.max(1, Math.floor(options.unusedSeconds / 30));
    this.#clients = clients;
  }

  #note(clientId: string, expiresAt: number): void {
    this.#known.delete(clientId);
    this.#known.set(clientId, expiresAt);
    if (this.#known.size > MAX_NOTES) this.#known.delete(this.#known.keys().next().value!);
  }

  /** Grant activity for `clientId`: keeps a registered client at least `lifetime` seconds more, and `unusedSeconds` at least. */
  async extend(clientId: unknown, lifetime: number | undefined): Promise<void> {
    if (typeof clientId !== 'string' || !clientId) return;
    const now = this.now();
    const wanted = now + Math.max(this.unusedSeconds, typeof lifetime === 'number' && Number.isFinite(lifetime) ? Math.ceil(lifetime) : 0);
    const known = this.#known.get(clientId);
    if (known !== undefined && known >= wanted - this.#step) return;

    const clients = this.#clients();
    const stored = await clients.find(clientId) ?? undefined;
    const expiresAt = stored?.[CLIENT_EXPIRY_FIELD];
    // not stored (static, metadata document) or stored without expiry (member, older): never expires
    if (!stored || typeof expiresAt !== 'number') {
      this.#note(clientId, Infinity);
      return;
    }
    if (expiresAt >= wanted - this.#step) {
      this.#note(clientId, expiresAt);
      return;
    }
    const next = { ...stored, [CLIENT_EXPIRY_FIELD]: wanted };
    if (typeof clients.compareAndSet === 'function') {
      // written only if the record is unchanged: never resurrects a client deleted meanwhile
      if (await clients.compareAndSet(clientId, stored, next, wanted - now)) this.#note(clientId, wanted);
      else this.#known.delete(clientId);
      return;
    }
    await clients.upsert(clientId, next, wanted - now);
    this.#note(clientId, wanted);
  }
}

/** The `Client` adapter: a registration is stored with the TTL and its expiry noted in the record. */
class ExpiringClients extends DelegatingAdapter {
  readonly #expiry: ClientExpiry;

  constructor(inner: Adapter, expiry: ClientExpiry) {
    super(inner);
    this.#expiry = expiry;
  }

  override upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    if (expiresIn !== undefined || !this.#expiry.isRegistration()) return super.upsert(id, payload, expiresIn);
    const lifetime = this.#expiry.unusedSeconds;
    return super.upsert(id, { ...payload, [CLIENT_EXPIRY_FIELD]: this.#expiry.now() + lifetime }, lifetime);
  }
}

/** A grant-activity model's adapter: storing a record extends its client. */
class GrantActivity extends DelegatingAdapter {
  readonly #expiry: ClientExpiry;

  constructor(inner: Adapter, expiry: ClientExpiry) {
    super(inner);
    this.#expiry = expiry;
  }

  override async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    await Promise.all([super.upsert(id, payload, expiresIn), this.#expiry.extend(payload.clientId, expiresIn)]);
  }
}

/**
 * The `Client` adapter with the rule off: a client found with an expiry (registered while the
 * rule was on) is rewritten without it, so it stays. Each client is looked at once per
 * instance (a bounded note), and only a record carrying the field costs a write.
 */
class PermanentClients extends DelegatingAdapter {
  /** client ids found without an expiry, or made permanent */
  readonly #permanent = new Set<string>();

  override find(id: string): ReturnType<Adapter['find']> {
    if (this.#permanent.has(id)) return this.inner.find(id);
    return this.#findKeeping(id);
  }

  async #findKeeping(id: string): Promise<AdapterPayload | undefined> {
    const stored = await this.inner.find(id) ?? undefined;
    if (!stored) return stored;
    if (stored[CLIENT_EXPIRY_FIELD] === undefined) {
      this.#remember(id);
      return stored;
    }
    const { [CLIENT_EXPIRY_FIELD]: _dropped, ...kept } = stored;
    const store = this.inner as ClientStore;
    // written only over the record read (compare-and-set, as both adapters here have): a
    // client that expired meanwhile stays gone. A custom adapter without it writes plainly, so
    // a client that expired in the instant between its lookup and this write comes back, for
    // good: it was in use when looked up (registered clients are deleted by expiry alone).
    // A failed write leaves the client as it was, tried again at its next lookup.
    const written = typeof store.compareAndSet === 'function'
      ? await store.compareAndSet(id, stored, kept).catch(() => false)
      : await store.upsert(id, kept).then(() => true, () => false);
    if (written) this.#remember(id);
    return written ? kept : stored;
  }

  #remember(id: string): void {
    this.#permanent.add(id);
    if (this.#permanent.size > MAX_NOTES) this.#permanent.delete(this.#permanent.values().next().value!);
  }
}

/**
 * The adapter factory with the rule on `Client` and the {@link GRANT_ACTIVITY_MODELS}. Other
 * models (and `close()`, if any) are the inner factory's. With `unusedSeconds: false`, only
 * {@link PermanentClients} on `Client`.
 */
export function withClientExpiry<F extends AdapterFactory>(factory: F, options: ClientExpiryOptions): F {
  const { unusedSeconds } = options;
  if (unusedSeconds === false) return decorateModel(factory, 'Client', (inner) => new PermanentClients(inner));
  let clients: ClientStore | undefined;
  const expiry = new ClientExpiry(() => (clients ??= factory('Client') as ClientStore), { ...options, unusedSeconds });
  let decorated = decorateModel(factory, 'Client', (inner) => new ExpiringClients(inner, expiry));
  for (const model of GRANT_ACTIVITY_MODELS) decorated = decorateModel(decorated, model, (inner) => new GrantActivity(inner, expiry));
  return decorated;
}
