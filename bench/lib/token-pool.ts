/**
 * Token preparation shared by the OAuth scenarios: real tokens from real login flows, and a
 * fixed token per connection for requests that do not consume what they present.
 *
 * @module
 */
import { memberFlow, obtainTokens } from '../load/login-flow.ts';
import type { TokenResponse } from '../load/login-flow.ts';
import type { RunningServer } from './types.ts';

/**
 * Tokens for the demo member client. `resourceBound: false` asks the bare provider for a
 * token without `resource`, the only kind its own UserInfo accepts (ours binds every token
 * to its origin either way).
 */
export function memberTokens(server: RunningServer, count: number, resourceBound = true): Promise<TokenResponse[]> {
  return obtainTokens(memberFlow(server.origin, resourceBound), count);
}

/**
 * The access token of connection `index`: connection i sends token i mod `tokens.length` on
 * every request. Fixed per connection rather than rotated per request, so autocannon builds
 * the request once: a per-request `setup` costs the load generator (this process, on the same
 * cores as the servers) ~10 µs a request that a baseline sending no token does not pay, and
 * lowers ours' ratio for work no server does.
 */
export function connectionToken(tokens: readonly TokenResponse[], index: number): string {
  if (tokens.length === 0) throw new Error('connectionToken needs at least one token');
  return tokens[index % tokens.length]!.access_token;
}

/** The `Authorization: Bearer` header of connection `index` (see {@link connectionToken}). */
export function bearerHeader(tokens: readonly TokenResponse[], index: number): { authorization: string } {
  return { authorization: `Bearer ${connectionToken(tokens, index)}` };
}
