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

const noted = new WeakMap<PeerRequest, string | undefined>();

/** Notes the request's peer now, while its connection is up; a request noted keeps its first. */
export function notePeer(req: PeerRequest): void {
  if (!noted.has(req)) noted.set(req, req.socket.remoteAddress);
}

/** The peer noted when the request entered the library, else the socket's (`undefined` once it is gone). */
export function peerAddress(req: PeerRequest): string | undefined {
  return noted.get(req) ?? req.socket.remoteAddress;
}
