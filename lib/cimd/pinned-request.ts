/**
 * The request that loads a client ID metadata document: it resolves the host, refuses it
 * when the name or any address it resolves to is special-use
 * (lib/policies/special-use-addresses.ts), and only then connects, to the one address it
 * checked. Nothing is sent to a refused host, not even a TCP SYN, so a refusal takes the
 * same time whether a port is open or closed.
 *
 * - Pinned: the connection goes to the checked IP address itself; nothing resolves the name
 *   a second time, so DNS rebinding between check and connect cannot switch the address.
 *   TLS still verifies the certificate against the host name (SNI and identity).
 * - Every address refused: a name that resolves to a public and a loopback address is
 *   refused, not tried on its public one; no document host publishes both.
 * - Defence in depth: once the TCP connection is up and before the TLS ClientHello, the
 *   peer's address is checked again (it must be the pinned address, and public).
 * - HTTP/1.1 over one fresh connection, closed after the answer; redirects are not followed
 *   (oidc-provider asks for `redirect: 'manual'` and refuses anything but 200).
 *
 * oidc-provider's own guard (its dispatcher's `connect` check) is not used: it runs after
 * the TCP connection and the ClientHello, which is what made ports scannable.
 *
 * @module
 */
import { lookup } from 'node:dns/promises';
import { request as httpRequest } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { connect as netConnect, isIP } from 'node:net';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';

import type { MetadataDocumentFetch } from '../config/options.ts';
import { literalAddressOf, specialUseHostOf, specialUseOf } from '../policies/special-use-addresses.ts';

/** One address a host name resolves to. */
export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Every address of a host name (A and AAAA); rejects when it has none. */
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/**
 * The system resolver (getaddrinfo: `/etc/hosts`, then DNS), every address in the order it
 * answers: the addresses a plain connection to the name could reach.
 */
export const systemResolver: Resolver = async (hostname) => (await lookup(hostname, { all: true, order: 'verbatim' }))
  .map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));

/** A document host that is, or resolves to, a special-use address; nothing was sent to it. */
export class SpecialUseAddressError extends Error {
  /** the URL host name */
  readonly hostname: string;
  /** why, e.g. `loopback (127.0.0.0/8)` */
  readonly reason: string;
  /** the address it resolved to, when the name itself is not special-use */
  readonly address: string | undefined;

  constructor(hostname: string, reason: string, address?: string) {
    const what = address === undefined ? `${hostname} is` : `${hostname} resolves to ${address}, which is`;
    super(`${what} a special-use IP address or name: ${reason}`);
    this.name = 'SpecialUseAddressError';
    this.hostname = hostname;
    this.reason = reason;
    this.address = address;
  }

  /** What is wrong with the host, for a public error description: `is special-use: …` or `resolves to a special-use address: …`. */
  get summary(): string {
    return this.address === undefined ? `is special-use: ${this.reason}` : `resolves to a special-use address: ${this.reason}`;
  }
}

/**
 * More lookups than {@link lookupSlots} allows are under way (running, or given up on and
 * not yet answered); nothing was asked. `reason` classifies it for `metadata_document.failed`.
 */
export class LookupsBusyError extends Error {
  readonly reason = 'network';

  constructor(hostname: string, pending: number) {
    super(`${hostname} was not looked up: ${pending} host lookups for metadata documents are under way`);
    this.name = 'LookupsBusyError';
  }
}

/**
 * How many lookups of document hosts may be under way at once in this process. The system
 * resolver (getaddrinfo) runs on libuv's thread pool, which runs at most half its threads
 * (2 of the default 4; `UV_THREADPOOL_SIZE`) on such slow work, and a lookup cannot be
 * cancelled: a host whose name server never answers holds its thread until the system
 * resolver gives up (about 10 s), long after the request stopped waiting. Anyone may name such
 * hosts in a `client_id`; with no bound every other lookup of the process (the host app's,
 * its Redis client's, other documents') queued behind them. One slot fewer than libuv's, at
 * least one: the rest stays free for the others.
 */
export function lookupSlots(threadPoolSize = Number(process.env.UV_THREADPOOL_SIZE) || 4): number {
  return Math.max(1, Math.floor((threadPoolSize + 1) / 2) - 1);
}

/**
 * `resolve`, each answer remembered for `ttlMs`: the check before a document fetch
 * (lib/cimd/guard.ts) and the fetch itself then see one answer from one lookup, so the
 * address the fetch connects to is the one that was checked, and DNS is asked once. A name
 * asked for while its lookup is under way shares that lookup (the fetch after a guard that
 * stopped waiting starts no second one), and at most `slots` lookups are under way at once,
 * counted until they are answered, not until a caller stops waiting: past that,
 * {@link LookupsBusyError} at once ({@link lookupSlots}).
 */
export function rememberingResolver(resolve: Resolver, ttlMs = 10_000, now: () => number = Date.now, slots = lookupSlots()): Resolver {
  const answers = new Map<string, { answer: readonly ResolvedAddress[]; until: number }>();
  const underWay = new Map<string, Promise<readonly ResolvedAddress[]>>();
  return async function rememberedResolve(hostname) {
    const key = hostname.toLowerCase();
    const known = answers.get(key);
    if (known && known.until > now()) return known.answer;
    let lookup = underWay.get(key);
    if (!lookup) {
      if (underWay.size >= slots) throw new LookupsBusyError(hostname, underWay.size);
      lookup = resolve(hostname);
      underWay.set(key, lookup);
      const done = () => underWay.delete(key);
      lookup.then(done, done);
    }
    const answer = await lookup;
    // expired answers go once the map grows, so it holds about the hosts of the last ttlMs;
    // past the cap (a flood of distinct names) answers are not kept, which costs a lookup only
    if (answers.size >= 1000) {
      for (const [name, entry] of answers) {
        if (entry.until <= now()) answers.delete(name);
      }
    }
    if (answers.size < 10_000) answers.set(key, { answer, until: now() + ttlMs });
    return answer;
  };
}

function abortable<T>(work: Promise<T>, signal: AbortSignal | null | undefined): Promise<T> {
  if (!signal) return work;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/**
 * The address to connect to for `hostname` (`URL#hostname`): the literal address itself, or
 * the first address the resolver answers, once the name and every address it resolves to
 * are known to be public. Throws {@link SpecialUseAddressError} otherwise. The resolver is
 * asked once.
 */
export async function pinAddress(hostname: string, resolve: Resolver, signal?: AbortSignal | null): Promise<ResolvedAddress> {
  const refused = specialUseHostOf(hostname);
  if (refused !== undefined) throw new SpecialUseAddressError(hostname, refused);
  const literal = literalAddressOf(hostname);
  if (literal !== undefined) return { address: literal, family: isIP(literal) === 6 ? 6 : 4 };

  const found = await abortable(resolve(hostname), signal);
  if (found.length === 0) throw new Error(`${hostname} has no address`);
  for (const { address } of found) {
    const reason = specialUseOf(address);
    if (reason !== undefined) throw new SpecialUseAddressError(hostname, reason, address);
  }
  return found[0]!;
}

/** One spelling per address: IPv6 compressed and lower-case, IPv4-mapped (as a dual-stack socket reports IPv4 peers) as IPv4. */
function canonical(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  return isIP(address) === 6 ? URL.parse(`http://[${address}]/`)?.hostname.slice(1, -1) ?? address : address;
}

function connected(socket: Socket): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const settle = (err?: Error) => {
      socket.off('connect', onConnect).off('error', settle).off('close', onClose);
      if (err) reject(err);
      else resolve();
    };
    const onConnect = () => settle();
    const onClose = () => settle(new Error('connection closed'));
    socket.once('connect', onConnect).once('error', settle).once('close', onClose);
  });
}

/**
 * A TCP connection to `pinned`, checked once it is up and before anything is written: its
 * peer must be `pinned` and public. Exported for its test; use {@link createPinnedRequest}.
 */
export async function openPinnedSocket(pinned: ResolvedAddress, port: number, signal?: AbortSignal | null): Promise<Socket> {
  signal?.throwIfAborted();
  const socket = netConnect({ host: pinned.address, port, family: pinned.family });
  const abort = () => socket.destroy(signal!.reason instanceof Error ? signal!.reason : new Error('aborted'));
  signal?.addEventListener('abort', abort, { once: true });
  try {
    await connected(socket);
  } finally {
    signal?.removeEventListener('abort', abort);
  }
  const peer = socket.remoteAddress === undefined ? undefined : canonical(socket.remoteAddress);
  const reason = peer === undefined ? 'no peer address' : specialUseOf(peer);
  if (reason !== undefined || peer !== canonical(pinned.address)) {
    socket.destroy();
    throw new SpecialUseAddressError(pinned.address, reason ?? `connected to ${peer}, not the checked address`);
  }
  return socket;
}

function requestHeaders(init: RequestInit, host: string): Record<string, string> {
  const headers: Record<string, string> = {};
  // oidc-provider sends `user-agent: ''` to mean "none"; an empty header is left out
  new Headers(init.headers).forEach((value, name) => { if (value) headers[name] = value; });
  return { ...headers, host, connection: 'close' };
}

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

function toResponse(res: IncomingMessage): Response {
  const status = res.statusCode ?? 0;
  if (status < 200 || status > 599) {
    res.destroy();
    throw new Error(`unexpected HTTP status ${status}`);
  }
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (Array.isArray(value)) value.forEach((v) => headers.append(name, v));
    else if (value !== undefined) headers.set(name, value);
  }
  if (NULL_BODY_STATUSES.has(status)) {
    res.resume();
    return new Response(null, { status, headers });
  }
  return new Response(Readable.toWeb(res) as ReadableStream, { status, headers });
}

export interface PinnedRequestOptions {
  /** @default {@link systemResolver} */
  readonly resolve?: Resolver;
}

/**
 * oidc-provider's `fetch` for documents (and any other URL it loads): https only, to a
 * pinned public address. oidc-provider's `init.dispatcher` is not used (see the module doc);
 * its `init.signal` (the fetch timeout) bounds the lookup, the connection and the answer.
 */
export function createPinnedRequest(options: PinnedRequestOptions = {}): MetadataDocumentFetch {
  const resolve = options.resolve ?? systemResolver;
  return async function pinnedRequest(url, init) {
    const target = new URL(url);
    if (target.protocol !== 'https:') throw new Error(`only https URLs are fetched; got ${target.protocol}`);
    if (target.username || target.password) throw new Error('URLs with credentials are not fetched');
    const pinned = await pinAddress(target.hostname, resolve, init.signal);
    const socket = await openPinnedSocket(pinned, Number(target.port || 443), init.signal);
    const literal = literalAddressOf(target.hostname);
    // a certificate is checked against `servername`, or `host` for an IP address (which SNI cannot carry)
    const tlsSocket = tlsConnect({
      socket,
      ALPNProtocols: ['http/1.1'],
      ...(literal === undefined ? { servername: target.hostname.replace(/\.+$/, '') } : { host: literal }),
    });
    return new Promise<Response>((resolvePromise, reject) => {
      const req = httpRequest({
        createConnection: () => tlsSocket,
        method: init.method ?? 'GET',
        path: `${target.pathname}${target.search}`,
        headers: requestHeaders(init, target.host),
        setHost: false,
        signal: init.signal ?? undefined,
      }, (res) => {
        try {
          resolvePromise(toResponse(res));
        } catch (err) {
          reject(err);
        }
      });
      req.on('error', (err) => {
        tlsSocket.destroy();
        reject(err);
      });
      const body = init.body;
      if (typeof body === 'string' || body instanceof Uint8Array) req.end(body);
      else req.end();
    });
  };
}
