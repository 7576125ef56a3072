/**
 * Which grants an account holds, and when each was last used: what "Connected apps"
 * (lib/connected-apps) lists. oidc-provider finds a grant by its id only, and the adapter
 * contract has no "find by account" and no list type, so the grants of an account are kept as
 * a chain of small records beside its models, through the same adapter (every instance sees
 * them), each written once:
 *
 * - `AccountGrants`, one per account (id: the account id): `{ head, exp }`, the newest grant
 *   and the latest expiry of the chain. Replaced at each consent that creates a grant, by
 *   compare-and-set when the adapter has it (two consents of one account on two instances
 *   then both stay in the chain).
 * - `AccountGrantLink`, one per grant (id: the grant id): `{ accountId, prev, exp }`, the grant
 *   before it. Written once, before the head moves to it, and before the grant itself is
 *   stored, so no grant exists that its account's chain does not reach.
 * - `GrantUse`, one per grant (id: the grant id): `{ lastUsedAt }`, the time a token of the
 *   grant was last issued (code exchange or refresh): one blind write beside each access
 *   token, no read.
 *
 * The cost of a consent does not grow with the account's grants (a popular app signing the
 * same member in from fresh browsers makes a new grant each time): a read of the link and of
 * the head (together), a link write and a head write. Listing walks the chain, one read per
 * grant.
 *
 * Lifetimes: a link lives as long as the longest-lived grant it leads to (its own or the
 * chain's `exp` when written), so the chain is never cut while a grant it reaches can live;
 * links of revoked grants stay until then and are skipped. The head lives as long as the
 * chain, also when no grant it reaches is left (every app disconnected): no head or link is
 * ever deleted, least of all on a read. A link and the head move to a grant before it is
 * stored, so a reader that finds no grant behind the head cannot tell a consent still being
 * saved (another tab, another instance) from a grant that is gone; deleting the head then
 * would drop the new grant from its account's chain. A later consent links to the old chain,
 * whose dead links a listing skips (one read each) until they expire. A use record lives
 * `ttl.grant`, as long as a grant can. A grant's first use is its own `iat` (oidc-provider
 * keeps it when a grant is saved again), so nothing is stored for it.
 *
 * @module
 */
import { StorageUnavailableError } from '../../adapters/types.ts';
import type { Adapter, AdapterFactory, AdapterPayload, CompareAndSet } from '../../adapters/types.ts';
import { KeyedQueue } from './key-queue.ts';
import { decorateModel, DelegatingAdapter } from './model-decorator.ts';

/** The storage model of the per-account chain heads. */
export const ACCOUNT_GRANTS_MODEL = 'AccountGrants';
/** The storage model of the per-grant chain links. */
export const GRANT_LINK_MODEL = 'AccountGrantLink';
/** How many grants' last written use second one instance remembers. */
const MAX_REMEMBERED_USES = 10_000;
/** How many grants one instance remembers as chained (see GrantIndex.adopt). */
const MAX_REMEMBERED_CHAINED = 10_000;

/** The storage model of the per-grant last-use records. */
export const GRANT_USE_MODEL = 'GrantUse';

/** Tries of one head update before giving up (only racing consents of one account retry). */
const MAX_ATTEMPTS = 16;

export interface GrantIndexOptions {
  /** the longest a grant lives, in seconds (`options.ttl.grant`): the lifetime of a last-use record */
  readonly grantSeconds: number;
  /** epoch seconds; for tests */
  readonly now?: () => number;
  /** where a grant that could not be chained is reported (not storage outages: those are the adapter's to report) */
  readonly logger?: { warn(message: string): void };
}

interface Head extends AdapterPayload {
  readonly head: string;
  readonly exp: number;
}

interface Link extends AdapterPayload {
  readonly accountId: string;
  readonly prev?: string;
  readonly exp: number;
}

const epoch = () => Math.floor(Date.now() / 1000);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function asHead(stored: AdapterPayload | undefined | void): Head | undefined {
  const h = stored as Partial<Head> | undefined;
  return typeof h?.head === 'string' && typeof h.exp === 'number' ? (h as Head) : undefined;
}

function asLink(stored: AdapterPayload | undefined | void): Link | undefined {
  const l = stored as Partial<Link> | undefined;
  return typeof l?.accountId === 'string' && typeof l.exp === 'number' ? (l as Link) : undefined;
}

/** The per-account grant chains and the per-grant last use, over one adapter factory. */
export class GrantIndex {
  readonly #heads: Adapter & Partial<CompareAndSet>;
  readonly #links: Adapter;
  readonly #uses: Adapter;
  readonly #grants: Adapter;
  readonly #logger: GrantIndexOptions['logger'];
  readonly #grantSeconds: number;
  readonly #now: () => number;
  readonly #queue = new KeyedQueue();

  constructor(factory: AdapterFactory, options: GrantIndexOptions) {
    this.#heads = factory(ACCOUNT_GRANTS_MODEL);
    this.#links = factory(GRANT_LINK_MODEL);
    this.#uses = factory(GRANT_USE_MODEL);
    this.#grants = factory('Grant');
    this.#grantSeconds = options.grantSeconds;
    this.#now = options.now ?? epoch;
    this.#logger = options.logger;
  }

  /**
   * The ids of the grants the chain of `accountId` reaches, newest first; some may be gone
   * (revoked, expired): the caller looks each up.
   */
  async grantsOf(accountId: string): Promise<string[]> {
    const ids = new Set<string>();
    let next = asHead(await this.#heads.find(accountId))?.head;
    // one read per link; the set guards against a cycle, which no writer makes
    while (next !== undefined && !ids.has(next)) {
      const link = asLink(await this.#links.find(next));
      if (!link || link.accountId !== accountId) break;
      ids.add(next);
      next = link.prev;
    }
    return [...ids];
  }

  /**
   * Puts `grantId` (expiring at `exp`, epoch seconds) at the head of the chain of `accountId`;
   * nothing when it is in it already. The additions of one account queue within this
   * instance (many grants of one account at once, e.g. a host minting tokens in bulk, made
   * every compare-and-set but one fail), so only other instances can race it.
   */
  add(accountId: string, grantId: string, exp: number): Promise<void> {
    return this.#queue.run(accountId, () => this.#add(accountId, grantId, exp, false));
  }

  /**
   * `shared`: the grant exists already (adopt), so other instances may chain it at the same
   * time, and its link is written by compare-and-set: one writer only. A consent's new grant
   * has one writer, whose link goes out with the turn's other record writes.
   */
  async #add(accountId: string, grantId: string, exp: number, shared: boolean): Promise<void> {
    const heads = this.#heads;
    // the link and the head are read together: one round trip, not two
    const [linked, first] = await Promise.all([this.#links.find(grantId), heads.find(accountId)]);
    if (asLink(linked)?.accountId === accountId) {
      this.#remember(grantId);
      return;
    }
    const cas = typeof heads.compareAndSet === 'function';
    const links = this.#links as Adapter & Partial<CompareAndSet>;
    const linkCas = shared && cas && typeof links.compareAndSet === 'function';
    // the grant's link as this writer last left it: a grant that already exists (adopt) may be
    // chained by another instance at the same time, and only one writer may write its link
    let mine: AdapterPayload | undefined = linked ?? undefined;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      const stored = (attempt === 0 ? first : await heads.find(accountId)) ?? undefined;
      const head = asHead(stored);
      // another writer put it at the head meanwhile: linking it to itself would cut the chain
      if (head?.head === grantId) {
        this.#remember(grantId);
        return;
      }
      const now = this.#now();
      const chainExp = Math.max(exp, head && head.exp > now ? head.exp : 0);
      // the link first, so the head never points at a link that is not there
      const link: Link = { accountId, ...(head ? { prev: head.head } : {}), exp: chainExp };
      if (linkCas) {
        // another writer's link: the chaining is its to finish
        if (!(await links.compareAndSet!(grantId, mine, link, chainExp - now))) {
          this.#remember(grantId);
          return;
        }
        mine = link;
      } else {
        await links.upsert(grantId, link, chainExp - now);
      }
      const next: Head = { head: grantId, exp: chainExp };
      if (!cas) {
        // a custom adapter without compare-and-set: last writer wins (README, Connected apps)
        await heads.upsert(accountId, next, chainExp - now);
        this.#remember(grantId);
        return;
      }
      if (await heads.compareAndSet!(accountId, stored, next, chainExp - now)) {
        this.#remember(grantId);
        return;
      }
      // another consent moved the head in between: link to the new head and try again, after a
      // random pause so that racing writers fall out of step
      await sleep(Math.random() * 2 ** Math.min(attempt, 6));
    }
    // storage the consent needs could not be had: a 503 the client retries, as the member
    // clients' site index answers the same contention, not a 500
    throw new StorageUnavailableError(`grant index: the grant chain of an account moved ${MAX_ATTEMPTS} times while a grant was being added; retry`);
  }

  /**
   * Puts a grant that no consent chained into its account's chain, when a token of it is
   * issued: a grant given under 0.1.0, which kept no chains, is listed (and can be revoked) in
   * Connected apps once its app refreshes. Nothing for a grant this instance chained or found
   * chained (the usual case: no storage call); otherwise one read of its link, and only for a
   * grant without one, a read of the grant and the chain's writes. Best effort, after the
   * token's own save: a failure is tried again with the grant's next token.
   */
  adopt(grantId: string): Promise<void> | undefined {
    if (this.isChained(grantId)) return undefined;
    this.#remember(grantId);
    // never a rejection: no caller waits for it
    return this.#adopt(grantId).catch((error: unknown) => {
      this.#chained.delete(grantId);
      if (!(error instanceof StorageUnavailableError)) {
        this.#logger?.warn(`platform-auth: a grant given before per-account chains could not be chained, and is not listed in Connected apps until its next token: ${error instanceof Error ? error.message : String(error)}`);
      }
    });
  }

  async #adopt(grantId: string): Promise<void> {
    if (asLink(await this.#links.find(grantId))) return;
    const grant = await this.#grants.find(grantId);
    if (typeof grant?.accountId !== 'string') return;
    const { accountId } = grant;
    const exp = typeof grant.exp === 'number' ? grant.exp : this.#now() + this.#grantSeconds;
    await this.#queue.run(accountId, () => this.#add(accountId, grantId, exp, true));
  }

  /**
   * Whether this instance chained `grantId` or found it chained (no storage call). A hit keeps
   * it remembered: the bound drops the grants least recently seen, not the oldest, so an
   * instance serving more grants than it remembers still asks for each only once in a while.
   */
  isChained(grantId: string): boolean {
    if (!this.#chained.delete(grantId)) return false;
    this.#chained.add(grantId);
    return true;
  }

  /** Grants this instance chained or found chained (bounded, least recently seen dropped first). */
  readonly #chained = new Set<string>();

  #remember(grantId: string): void {
    this.#chained.delete(grantId);
    if (this.#chained.size >= MAX_REMEMBERED_CHAINED) this.#chained.delete(this.#chained.values().next().value!);
    this.#chained.add(grantId);
  }

  /**
   * Records that a token of `grantId` was issued at `at` (epoch seconds): one write, no read,
   * and none when this instance already wrote that same second for the grant (the record has
   * whole seconds, so a second write would store the same value; a client refreshing in a
   * loop costs one write a second, not one per refresh).
   */
  recordUse(grantId: string, at: number): Promise<void> | undefined {
    const written = this.#written;
    // nothing to wait for (no promise: this is on every token issued)
    if (written.get(grantId) === at) return undefined;
    if (written.size >= MAX_REMEMBERED_USES) written.delete(written.keys().next().value!);
    written.set(grantId, at);
    return this.#uses.upsert(grantId, { lastUsedAt: at }, this.#grantSeconds).catch((error: unknown) => {
      // not written: the next token of this second writes it
      if (written.get(grantId) === at) written.delete(grantId);
      throw error;
    });
  }

  /** The second each grant's use was last written by this instance (bounded, oldest dropped first). */
  readonly #written = new Map<string, number>();

  /** When a token of `grantId` was last issued (epoch seconds); `undefined` when none was since consent. */
  async lastUse(grantId: string): Promise<number | undefined> {
    const stored = await this.#uses.find(grantId);
    return typeof stored?.lastUsedAt === 'number' ? stored.lastUsedAt : undefined;
  }

  forgetUse(grantId: string): Promise<void> {
    return this.#uses.destroy(grantId);
  }
}

/** A model's adapter that keeps the grant index up to date as the model is written. */
abstract class IndexingAdapter extends DelegatingAdapter {
  protected readonly index: GrantIndex;
  protected readonly now: () => number;

  constructor(inner: Adapter, index: GrantIndex, now: () => number) {
    super(inner);
    this.index = index;
    this.now = now;
  }
}

/** The `Grant` adapter: a saved grant joins its account's chain first. */
class IndexedGrants extends IndexingAdapter {
  override async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    const { accountId } = payload;
    if (typeof accountId === 'string') {
      const exp = typeof payload.exp === 'number' ? payload.exp : this.now() + (expiresIn ?? 0);
      // before the grant: a failure here leaves no grant that its account cannot see
      await this.index.add(accountId, id, exp);
    }
    await this.inner.upsert(id, payload, expiresIn as number);
  }
}

/** The `AccessToken` adapter: issuing a token is a use of its grant (and chains a grant of 0.1.0). */
class UseRecordingAccessTokens extends IndexingAdapter {
  override upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    const { grantId } = payload;
    const saving = this.inner.upsert(id, payload, expiresIn as number);
    const using = typeof grantId === 'string'
      ? this.index.recordUse(grantId, typeof payload.iat === 'number' ? payload.iat : this.now())
      : undefined;
    // no async frame and no Promise.all when the use of this second is already written (the usual case)
    const saved = using ? Promise.all([saving, using]).then(() => undefined) : saving;
    // a grant no consent chained (0.1.0's): after the token's writes went out, so its read is
    // no command of the token's; not waited for, the answer does not depend on it
    if (typeof grantId === 'string' && !this.index.isChained(grantId)) {
      void saved.then(() => this.index.adopt(grantId), () => undefined);
    }
    return saved;
  }
}

/**
 * The adapter factory with grants chained by account (`Grant`) and their last use recorded
 * (`AccessToken`). Other models (and `close()`, if any) are the inner factory's.
 */
export function withGrantIndex<F extends AdapterFactory>(factory: F, index: GrantIndex, options: Pick<GrantIndexOptions, 'now'> = {}): F {
  const now = options.now ?? epoch;
  const grants = decorateModel(factory, 'Grant', (inner) => new IndexedGrants(inner, index, now));
  return decorateModel(grants, 'AccessToken', (inner) => new UseRecordingAccessTokens(inner, index, now));
}
