/**
 * Sign-in throttling: exponential back-off per account and per client address, shared by
 * every instance through the storage adapter.
 *
 * The rule, for each key (the account, by its normalised email, and the client address):
 * - The first `free` failures within the window cost nothing. After `n ≥ free` failures the
 *   next attempt waits `2^(n − free)` seconds after the last one (1 s, 2 s, 4 s, …), at most
 *   `maxDelaySeconds`; an attempt during the wait is refused (429 with `Retry-After`) and does
 *   not reach the host's password check.
 * - The window slides: a key is forgotten `windowSeconds` after its wait ends (its last
 *   failure plus its delay), so an attacker who keeps going stays at the cap: after a wait
 *   the key still holds its failures, and the one attempt the wait lets through waits the
 *   cap again when it fails. (Forgotten when the wait ended, as before, a key at the cap came
 *   back with its free failures every `maxDelaySeconds`: six times the guesses a day at the
 *   defaults.)
 * - A successful sign-in forgets the account's failures. The client address counts failures
 *   only: a success gives its attempt back, as if it had never started, its time included (the
 *   wait runs from the latest attempt still counted), so many people signing in through one
 *   address (a school network) use up nothing and, once a few typos put the address past its
 *   free failures, do not restart its wait or keep it remembered by signing in.
 * - Attempts are counted when they start, before the password is checked, and given back on
 *   success. So concurrent guesses cannot all slip through one open slot: on one instance the
 *   updates of a key are serialised, and across instances the Redis adapter's
 *   `compareAndSet` makes each update atomic (adapters without it fall back to
 *   read-modify-write; then two instances updating one key at the same moment may count one
 *   attempt, so an attacker gains at most one attempt per instance per open slot).
 * - The account key is the email as typed, normalised (NFKC, trimmed, lower-case), whether
 *   or not the account exists: an unknown email is throttled exactly like a known one, so
 *   the answer reveals nothing. Keys are stored hashed (SHA-256), never as emails or
 *   addresses.
 * - An IPv6 client is counted by its /64 network, which one machine usually controls whole.
 *
 * Trade-off: a per-account limit lets anyone who knows an email delay that person's
 * sign-in (not lock it: the wait is at most `maxDelaySeconds` after the attacker stops).
 * The per-address limit alone would not slow a distributed guess at one account.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';

import type { Adapter, AdapterFactory, AdapterPayload, CompareAndSet } from '../../adapters/types.ts';
import { KeyedQueue } from '../storage/key-queue.ts';

/** The storage model of the counters. */
export const SIGN_IN_THROTTLE_MODEL = 'SignInThrottle';

/** The resolved settings (`options.signInThrottle`). */
export interface SignInThrottleSettings {
  /** failures per account (email) that cost nothing within the window */
  readonly accountFailures: number;
  /** failures per client address that cost nothing within the window */
  readonly ipFailures: number;
  /** seconds after its wait ends at which a key is forgotten */
  readonly windowSeconds: number;
  /** the longest wait, in seconds */
  readonly maxDelaySeconds: number;
}

/** One key's budget. */
export interface ThrottleBudget {
  readonly free: number;
  readonly windowSeconds: number;
  readonly maxDelaySeconds: number;
}

/** What is stored per key: attempts counted (failures, and attempts under way) and when the last began. */
export interface ThrottleRecord {
  readonly failures: number;
  /** epoch milliseconds */
  readonly last: number;
  /**
   * When the newest attempts counted began (epoch ms, oldest first, at most
   * {@link RECENT_KEPT}): an attempt given back takes its own time out, and the wait runs from
   * the latest left. Absent in records written before it was kept.
   */
  readonly recent?: readonly number[];
}

/** Start times kept per key: attempts under way at once from one address, and then some. */
export const RECENT_KEPT = 32;

/** Seconds to wait after `failures` failures: 0 within the free budget, then 1, 2, 4, … up to the cap. */
export function delayAfter(failures: number, budget: ThrottleBudget): number {
  if (failures < budget.free) return 0;
  return Math.min(2 ** (failures - budget.free), budget.maxDelaySeconds);
}

/** How long the record is kept after its last failure, in seconds: its wait, then the window. */
export function lifetimeOf(record: ThrottleRecord, budget: ThrottleBudget): number {
  return delayAfter(record.failures, budget) + budget.windowSeconds;
}

/** The record as it stands at `now`: `undefined` once forgotten (storage that keeps records longer changes nothing). */
function current(record: ThrottleRecord | undefined, budget: ThrottleBudget, now: number): ThrottleRecord | undefined {
  if (!record) return undefined;
  return now - record.last >= lifetimeOf(record, budget) * 1000 ? undefined : record;
}

/** Whole seconds until the next attempt may start; 0 when it may start now. */
export function retryAfterOf(record: ThrottleRecord | undefined, budget: ThrottleBudget, now: number): number {
  const live = current(record, budget, now);
  if (!live) return 0;
  const wait = live.last + delayAfter(live.failures, budget) * 1000 - now;
  return wait > 0 ? Math.ceil(wait / 1000) : 0;
}

export type Reservation =
  | { readonly allowed: true; readonly next: ThrottleRecord }
  | { readonly allowed: false; readonly retryAfter: number };

/** Starts an attempt: refused while the key waits, otherwise counted (as a failure until given back). */
export function reserve(record: ThrottleRecord | undefined, budget: ThrottleBudget, now: number): Reservation {
  const retryAfter = retryAfterOf(record, budget, now);
  if (retryAfter > 0) return { allowed: false, retryAfter };
  const live = current(record, budget, now);
  const recent = [...(live ? live.recent ?? [live.last] : []), now].slice(-RECENT_KEPT);
  return { allowed: true, next: { failures: (live?.failures ?? 0) + 1, last: now, recent } };
}

/**
 * Gives back the attempt that began at `startedAt` (it succeeded, or another key refused it):
 * counted no more, and the wait runs from the latest attempt still counted. When that time is
 * no longer known (more attempts than {@link RECENT_KEPT} since, a record without `recent`),
 * the wait keeps its start: the cautious side. `undefined` when nothing is left.
 */
export function release(record: ThrottleRecord | undefined, budget: ThrottleBudget, now: number, startedAt: number): ThrottleRecord | undefined {
  const live = current(record, budget, now);
  if (!live || live.failures <= 1) return undefined;
  const failures = live.failures - 1;
  const recent = live.recent ? [...live.recent] : undefined;
  const at = recent ? recent.lastIndexOf(startedAt) : -1;
  if (!recent || at < 0) return { failures, last: live.last, ...(recent ? { recent } : {}) };
  recent.splice(at, 1);
  // the other attempts counted began before the kept ones: their latest is unknown, keep the start
  if (recent.length === 0) return { failures, last: live.last, recent };
  return { failures, last: Math.max(...recent), recent };
}

/** The account key: the email as typed, NFKC-normalised, trimmed and lower-cased. */
export function normaliseEmail(email: string): string {
  return email.normalize('NFKC').trim().toLowerCase();
}

/** Eight hextets of an IPv6 address (`::` expanded, a dotted IPv4 tail converted). */
function hextets(address: string): string[] {
  let text = address;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((h) => h.toLowerCase().replace(/^0+(?=.)/, ''));
}

/**
 * The IPv4 client an IPv6 address stands for, in any spelling: IPv4-mapped (`::ffff:0:0/96`,
 * a dual-stack socket's view of an IPv4 peer), IPv4-translated (`::ffff:0:0:0/96`, RFC 6145,
 * a SIIT translator's) or under the NAT64 well-known prefix (`64:ff9b::/96`, RFC 6052). Behind
 * a translator every IPv4 client arrives so, and counted by the /64 they would all share one
 * budget, which one of them could spend for all.
 */
function carriedIPv4(h: readonly string[]): string | undefined {
  const zero = (from: number, to: number) => h.slice(from, to).every((x) => x === '0');
  const mapped = zero(0, 5) && h[5] === 'ffff';
  const translated = zero(0, 4) && h[4] === 'ffff' && h[5] === '0';
  const nat64 = h[0] === '64' && h[1] === 'ff9b' && zero(2, 6);
  if (!mapped && !translated && !nat64) return undefined;
  const [high, low] = [Number.parseInt(h[6]!, 16), Number.parseInt(h[7]!, 16)];
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}

/**
 * The address a client is counted by: IPv4 as is (also when an IPv6 address carries it for an
 * IPv4 client: {@link carriedIPv4}), IPv6 by its /64 network, anything else (a proxy's odd
 * entry) as given.
 */
export function addressKeyOf(address: string): string {
  if (!isIPv6(address)) return address;
  const h = hextets(address.split('%')[0]!);
  return carriedIPv4(h) ?? `${h.slice(0, 4).join(':')}::/64`;
}

/** What the library reads to find the client's address. */
export interface ClientAddressInput {
  /** the TCP peer */
  readonly socketAddress: string | undefined;
  /** the `X-Forwarded-For` header, if any */
  readonly forwardedFor: string | undefined;
  /** `options.proxy` */
  readonly proxy: boolean;
  /** `options.proxyHops`: how many proxies append to `X-Forwarded-For` */
  readonly hops: number;
}

/**
 * The client's address, with Koa's `ctx.ip` semantics under `app.proxy = true` and
 * `app.maxIpsCount = hops`: without `proxy` the socket address (`X-Forwarded-For` is never
 * read); with it, the entry `hops` places from the right of `X-Forwarded-For`, which the
 * outermost trusted proxy wrote. Entries further left come from the client and are ignored.
 * An IPv4-mapped IPv6 address is answered as IPv4.
 */
export function clientAddress({ socketAddress, forwardedFor, proxy, hops }: ClientAddressInput): string {
  const entries = proxy && forwardedFor ? forwardedFor.split(',').map((s) => s.trim()).filter(Boolean) : [];
  const forwarded = entries.slice(-hops)[0];
  const address = (forwarded === undefined ? undefined : withoutPort(forwarded)) ?? socketAddress ?? '';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped && isIPv4(mapped[1]!) ? mapped[1]! : address;
}

/**
 * A forwarded entry without the port some proxies write into it (`203.0.113.7:40001`,
 * `[2001:db8::1]:40001`, as Azure's front ends do): counted by port, every new source port of
 * one client would get a fresh budget.
 */
function withoutPort(entry: string): string {
  const v4 = /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(entry);
  if (v4 && isIPv4(v4[1]!)) return v4[1]!;
  const v6 = /^\[([^\]]+)\](?::\d+)?$/.exec(entry);
  if (v6 && isIPv6(v6[1]!)) return v6[1]!;
  return entry;
}

const hashed = (kind: 'account' | 'ip', value: string) => `${kind}:${createHash('sha256').update(value).digest('base64url')}`;

/** What a sign-in attempt may do. */
export type SignInAttempt =
  | {
    readonly allowed: true;
    /**
     * Call after the password was accepted: the account's failures are forgotten and the
     * address gets its attempt back. Without this call the attempt stays a failure.
     */
    succeeded(): Promise<void>;
  }
  | {
    readonly allowed: false;
    /** whole seconds to wait; send it as `Retry-After` */
    readonly retryAfter: number;
  };

/** A change of one key's record (`undefined`: none); returning `record` itself writes nothing. */
type Change = (record: ThrottleRecord | undefined, now: number) => ThrottleRecord | undefined;
/** Changes of one key written together, and what their write came to (set once queued). */
interface Batch { readonly changes: Change[]; written: Promise<boolean> | undefined }

/** An adapter, perhaps able to replace a record only when it is unchanged (adapters/types.ts). */
type ComparingAdapter = Adapter & Partial<CompareAndSet>;

const ALLOWED: SignInAttempt = Object.freeze({ allowed: true, succeeded: async () => {} });
/** compare-and-set attempts before a key's update gives up (only under heavy contention) */
const MAX_TRIES = 8;
/** keys whose last written value one process remembers (the first remembered dropped first) */
const MAX_WRITTEN = 10_000;
/** a remembered key whose value this process no longer knows (see #written) */
const UNKNOWN = Symbol('unknown');

function asRecord(payload: AdapterPayload | undefined): ThrottleRecord | undefined {
  const failures = payload?.failures;
  const last = payload?.last;
  if (typeof failures !== 'number' || typeof last !== 'number') return undefined;
  const recent = payload?.recent;
  return Array.isArray(recent) && recent.every((t) => typeof t === 'number') ? { failures, last, recent } : { failures, last };
}

/**
 * The throttle over the storage adapter. One per `createPlatformAuth`; the sign-in page and
 * a host's own sign-in forms (through `auth.signInThrottle`) share its counters.
 */
export class SignInThrottler {
  readonly enabled: boolean;
  readonly #store: ComparingAdapter | undefined;
  readonly #account: ThrottleBudget;
  readonly #ip: ThrottleBudget;
  readonly #now: () => number;
  /** the updates of each key in this process, one at a time */
  readonly #queue = new KeyedQueue();
  /**
   * key → what this process last wrote there (`undefined`: deleted), the expected value of
   * its next compare-and-set: an account signing in again here costs one write per update,
   * not a read and a write. A stale entry (another instance wrote, the record expired) only
   * makes that compare-and-set fail, and the key is read again.
   *
   * A key is marked {@link UNKNOWN}, not removed, when its value is no longer known, and its
   * entry is overwritten in place: V8 keeps a key removed from a Map in its bucket's chain
   * until the table is rebuilt, so removing and re-adding a busy account's key on every
   * update would make each of its lookups walk thousands of dead entries (adapters/memory.ts
   * has the measurement). Only eviction removes keys, each once.
   */
  readonly #written = new Map<string, AdapterPayload | undefined | typeof UNKNOWN>();

  constructor(adapter: AdapterFactory, settings: SignInThrottleSettings | false, now: () => number = Date.now) {
    this.enabled = settings !== false;
    this.#store = settings === false ? undefined : adapter(SIGN_IN_THROTTLE_MODEL) as ComparingAdapter;
    const s = settings || { accountFailures: 0, ipFailures: 0, windowSeconds: 1, maxDelaySeconds: 1 };
    this.#account = { free: s.accountFailures, windowSeconds: s.windowSeconds, maxDelaySeconds: s.maxDelaySeconds };
    this.#ip = { free: s.ipFailures, windowSeconds: s.windowSeconds, maxDelaySeconds: s.maxDelaySeconds };
    this.#now = now;
  }

  /**
   * Starts a sign-in attempt for `email` from `ip`, before the password is checked. Refused
   * while the account or the address waits; otherwise counted as a failure until
   * `succeeded()` is called.
   */
  async attempt(email: string, ip: string): Promise<SignInAttempt> {
    if (!this.enabled) return ALLOWED;
    const account = hashed('account', normaliseEmail(email));
    const address = hashed('ip', addressKeyOf(ip));
    // both counted at once; one refused gives the other its attempt back
    const [onAccount, onAddress] = await Promise.all([this.#reserve(account, this.#account), this.#reserve(address, this.#ip)]);
    const refusal = !onAccount.allowed ? onAccount : !onAddress.allowed ? onAddress : undefined;
    if (refusal) {
      await Promise.all([
        onAccount.allowed ? this.#release(account, this.#account, onAccount.next.last) : undefined,
        onAddress.allowed ? this.#release(address, this.#ip, onAddress.next.last) : undefined,
      ]);
      return refusal;
    }
    const startedAt = (onAddress as Extract<Reservation, { allowed: true }>).next.last;
    return {
      allowed: true,
      succeeded: async () => {
        // the account's failures are forgotten; the address gets its attempt back
        await Promise.all([this.#forget(account), this.#release(address, this.#ip, startedAt)]);
      },
    };
  }

  async #reserve(key: string, budget: ThrottleBudget): Promise<Reservation> {
    let outcome: Reservation | undefined;
    const applied = await this.#update(key, budget, (record, now) => {
      outcome = reserve(record, budget, now);
      return outcome.allowed ? outcome.next : record;
    });
    // a key that kept changing under us is being hammered: refusing is the safe side
    return applied ? outcome! : { allowed: false, retryAfter: 1 };
  }

  async #release(key: string, budget: ThrottleBudget, startedAt: number): Promise<void> {
    // not applied (heavy contention): the attempt stays counted, the cautious outcome
    await this.#update(key, budget, (record, now) => release(record, budget, now, startedAt));
  }

  /**
   * Applies `change` to the key's record: serialised in this process, atomic across instances
   * where the adapter can. False when the key kept changing between read and write.
   *
   * For an address key, changes that arrive while an earlier update of the key is
   * under way are written together once it is done: applied one after another, in the order
   * they came, to the record as read, and stored with one compare-and-set, as if written one
   * by one. A busy address (one school's network, every sign-in of which reserves and gives
   * back an attempt) otherwise queues a storage round trip per change behind the one before
   * it: the login bench from one address lost 7% of its rate on Redis to those waits.
   * An account's changes go one by one: a person signing in from several tabs or devices at
   * once has each reservation meet the success (#forget, not queued) of the one before, as
   * it did; taken together they would all count at once and refuse the sixth.
   */
  #update(key: string, budget: ThrottleBudget, change: Change): Promise<boolean> {
    if (budget !== this.#ip) return this.#queue.run(key, () => this.#apply(key, budget, change));
    const waiting = this.#waiting.get(key);
    if (waiting) {
      waiting.changes.push(change);
      return waiting.written!;
    }
    // waiting before it is queued: a key with nothing under way starts at once, inside run()
    const batch: Batch = { changes: [change], written: undefined };
    this.#waiting.set(key, batch);
    batch.written = this.#queue.run(key, () => {
      // from here on, new changes wait for the next batch
      this.#waiting.delete(key);
      const { changes } = batch;
      return this.#apply(key, budget, changes.length === 1 ? change : (record, now) => changes.reduce((r, c) => c(r, now), record));
    });
    return batch.written;
  }

  /** key → the changes waiting for the key's update under way (see #update) */
  readonly #waiting = new Map<string, Batch>();

  /**
   * Deletes the key whatever it holds (a success forgets the account's failures, also those
   * other instances counted meanwhile): one compare-and-set when this process knows what is
   * there, else an unconditional delete, so contention can never leave the account counted.
   * Not queued behind this process's pending updates of the key: the sign-in is over, and
   * an update racing it only finds its compare-and-set failed and reads the key again.
   */
  async #forget(key: string): Promise<void> {
    const store = this.#store!;
    const expected = this.#guess(key);
    const known = typeof store.compareAndSet === 'function' && expected !== UNKNOWN;
    this.#forgetGuess(key);
    if (!known || !await store.compareAndSet!(key, expected as AdapterPayload | undefined, undefined)) await store.destroy(key);
    // absent now; a guess only ever saves a read (a compare-and-set checks it)
    if (typeof store.compareAndSet === 'function') this.#remember(key, undefined);
  }

  #remember(key: string, payload: AdapterPayload | undefined): void {
    const written = this.#written;
    if (!written.has(key) && written.size >= MAX_WRITTEN) written.delete(written.keys().next().value!);
    written.set(key, payload);
  }

  /** What this process last wrote at `key`, or {@link UNKNOWN}. */
  #guess(key: string): AdapterPayload | undefined | typeof UNKNOWN {
    const written = this.#written;
    return written.has(key) ? written.get(key) : UNKNOWN;
  }

  /** The value at `key` is no longer known here (the key stays remembered: see #written). */
  #forgetGuess(key: string): void {
    if (this.#written.has(key)) this.#written.set(key, UNKNOWN);
  }

  async #apply(key: string, budget: ThrottleBudget, change: Change): Promise<boolean> {
    const store = this.#store!;
    const comparing = typeof store.compareAndSet === 'function';
    for (let tries = 0; tries < MAX_TRIES; tries += 1) {
      // what this process wrote last, if it wrote the key at all (see #written); a stale
      // guess is not a try lost to contention
      const guess = comparing ? this.#guess(key) : UNKNOWN;
      const guessed = guess !== UNKNOWN;
      if (guessed) tries -= 1;
      const stored = guessed ? guess : await store.find(key) ?? undefined;
      const record = asRecord(stored);
      const next = change(record, this.#now());
      if (next === record) {
        // nothing to write: only a value read from storage may decide that (a refusal on a
        // stale guess would keep refusing an account another instance has since forgotten)
        if (!guessed) return true;
        this.#forgetGuess(key);
        continue;
      }
      const payload = next ? { failures: next.failures, last: next.last, ...(next.recent ? { recent: [...next.recent] } : {}) } : undefined;
      // kept as long as the record stands, from its latest attempt (which a release moves back)
      const expiresIn = next ? Math.max(1, Math.ceil(lifetimeOf(next, budget) - (this.#now() - next.last) / 1000)) : undefined;
      if (!comparing) {
        if (payload) await store.upsert(key, payload, expiresIn!);
        else await store.destroy(key);
        return true;
      }
      this.#forgetGuess(key);
      // false: another instance changed the key in between (or it expired); read it again
      if (await store.compareAndSet!(key, stored, payload, expiresIn)) {
        this.#remember(key, payload);
        return true;
      }
    }
    return false;
  }
}
