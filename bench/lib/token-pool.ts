/**
 * Token preparation shared by the OAuth scenarios: real tokens from real login flows, and a
 * round-robin over them for requests that do not consume what they present.
 *
 * @module
 */
import { memberFlow, obtainTokens } from '../load/login-flow.ts';
import type { TokenResponse } from '../load/login-flow.ts';
import type { RunningServer } from './types.ts';

type RawRequest = import('autocannon').RawRequest;

/**
 * Tokens for the demo member client. `resourceBound: false` asks the bare provider for a
 * token without `resource`, the only kind its own UserInfo accepts (ours binds every token
 * to its origin either way).
 */
export function memberTokens(server: RunningServer, count: number, resourceBound = true): Promise<TokenResponse[]> {
  return obtainTokens(memberFlow(server.origin, resourceBound), count);
}

/** Cycles through `values`; shared by all connections (nothing is consumed). */
export function roundRobin<T>(values: readonly T[]): () => T {
  if (values.length === 0) throw new Error('roundRobin needs at least one value');
  let i = 0;
  return () => values[i++ % values.length]!;
}

/** A request `setup` that sends the next of `tokens` as `Authorization: Bearer`, round-robin. */
export function bearerSetup(tokens: readonly TokenResponse[]): (request: RawRequest) => RawRequest {
  const next = roundRobin(tokens.map((t) => t.access_token));
  return (request) => ({ ...request, headers: { ...request.headers, authorization: `Bearer ${next()}` } });
}
