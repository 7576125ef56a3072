/**
 * A request's TCP peer, as read when the request entered the library. Node answers
 * `socket.remoteAddress` from the connection: once the client has reset it, the answer is
 * `undefined`. A client that sent a request and reset the connection at once was counted as
 * nobody by a limit that read the address later, after a storage round trip or two (a review
 * had the metadata-document fetch budget fetch 20 documents for one address over a
 * `perCaller` of 2, with Redis). Noted where a request enters the library
 * (lib/events/index.ts), read by every limit counted by client address.
 *
 * @module
 */

/** What is read of a request: Node's `IncomingMessage`, or a test's stand-in. */
export interface PeerRequest {
  readonly socket: { readonly remoteAddress?: string | undefined };
}

/**
 * Where the peer is noted: on the request itself, as the request's diagnostics are
 * (lib/events/diagnostics.ts), not in a WeakMap, whose every entry is an ephemeron the
 * collector must trace (a WeakMap set and lookup on every request cost more than the rest of
 * noting it, in a CPU profile of the login flow).
 */
const PEER = Symbol('platform-auth.peer');

interface Noted {
  [PEER]?: string | undefined;
}

/** Notes the request's peer now, while its connection is up; a request noted keeps its first. */
export function notePeer(req: PeerRequest): void {
  const noted = req as PeerRequest & Noted;
  if (!(PEER in noted)) noted[PEER] = req.socket.remoteAddress;
}

/** The peer noted when the request entered the library, else the socket's (`undefined` once it is gone). */
export function peerAddress(req: PeerRequest): string | undefined {
  return (req as PeerRequest & Noted)[PEER] ?? req.socket.remoteAddress;
}
