/**
 * The HTTP edge of `POST /account/graphql`: media type, size limit, JSON and the GraphQL
 * request parameters. The body is read straight from the Node request (the library is
 * mounted before any body parser), and never beyond the limit.
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';

import { isUtf8Charset } from '../http/charset.ts';
import { BodyIncompleteError, BodyTooLargeError, readLimitedBody } from '../http/read-body.ts';
import { RequestProblem } from './errors.ts';

export interface GraphQLParams {
  readonly query: string;
  readonly variables: Record<string, unknown> | undefined;
  readonly operationName: string | undefined;
}

/** `application/json`, with no charset or `charset=utf-8`. */
export function checkContentType(header: string | undefined): void {
  const type = (header ?? '').split(';', 1)[0]!.trim().toLowerCase();
  if (type !== 'application/json' || !isUtf8Charset(header)) {
    throw new RequestProblem(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the request as Content-Type: application/json (UTF-8) with a body {"query": "…"}.');
  }
}

function tooLarge(limit: number): RequestProblem {
  // close the connection rather than drain an arbitrarily long body
  return new RequestProblem(413, 'REQUEST_ENTITY_TOO_LARGE', `The request body is larger than ${limit} bytes.`, { Connection: 'close' });
}

export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  try {
    return await readLimitedBody(req, limit);
  } catch (err) {
    if (err instanceof BodyTooLargeError) throw tooLarge(limit);
    if (err instanceof BodyIncompleteError) throw new RequestProblem(400, 'BAD_REQUEST', 'The request body was not received completely.');
    throw err;
  }
}

function badRequest(message: string): RequestProblem {
  return new RequestProblem(400, 'BAD_REQUEST', message);
}

/** The `query`, `variables` and `operationName` of a JSON body; other members are ignored. */
export function parseParams(body: Buffer): GraphQLParams {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw badRequest('The request body is not valid JSON.');
  }
  if (Array.isArray(parsed)) throw badRequest('Batched requests are not supported: send one operation per request.');
  if (parsed === null || typeof parsed !== 'object') throw badRequest('The request body must be a JSON object: {"query": "…", "variables": {…}}.');
  const { query, variables, operationName } = parsed as Record<string, unknown>;
  if (typeof query !== 'string' || query.trim() === '') throw badRequest('"query" must be a non-empty GraphQL document string.');
  if (variables != null && (typeof variables !== 'object' || Array.isArray(variables))) throw badRequest('"variables" must be a JSON object when present.');
  if (operationName != null && typeof operationName !== 'string') throw badRequest('"operationName" must be a string when present.');
  return {
    query,
    variables: (variables ?? undefined) as Record<string, unknown> | undefined,
    operationName: (operationName ?? undefined) as string | undefined,
  };
}
