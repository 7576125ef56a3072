/**
 * How errors leave the Account API. Every error carries `extensions.code`; the service's
 * input errors become `BAD_USER_INPUT` with their reason; an outage of the data source or
 * storage becomes `SERVICE_UNAVAILABLE`, to be retried; anything else unexpected is logged
 * and answered as "Unexpected error." with `INTERNAL_SERVER_ERROR`: no message, stack or
 * cause of the original reaches the client.
 *
 * @module
 */
import { GraphQLError } from 'graphql';
import type { GraphQLFormattedError } from 'graphql';

import type { Logger } from '../contracts.ts';
import { requestTag } from '../http/request-id.ts';
import { MemberDataInputError } from '../member-data/errors.ts';
import { isStorageUnavailable } from '../storage/outage.ts';

export const UNEXPECTED_MESSAGE = 'Unexpected error.';
export const UNAVAILABLE_MESSAGE = 'The service is temporarily unavailable; retry later.';

/** The code of an outage: the request may succeed if sent again later. */
export const UNAVAILABLE_CODE = 'SERVICE_UNAVAILABLE';

function originalOf(error: unknown): unknown {
  let current = error;
  while (current instanceof GraphQLError && current.originalError) current = current.originalError;
  return current;
}

/**
 * The log line of an unexpected failure, kept on its masked error until the engine, which
 * knows the request, writes it with the request's id (yoga's `maskError` is given no request).
 * A symbol: never serialised into the answer.
 */
const LOG_LINE = Symbol('platform-auth.account-api.logLine');

/** Writes the log lines of the unexpected failures among `errors`, naming the request. */
export function logUnexpected(errors: readonly unknown[] | undefined, logger: Logger, requestId: string | undefined): void {
  for (const error of errors ?? []) {
    const line = (error as { [LOG_LINE]?: (tag: string) => string } | null)?.[LOG_LINE];
    if (line) logger.error(line(requestTag(requestId)));
  }
}

/** The `maskError` of yoga's masked-errors plugin. */
export function createMaskError() {
  /** what this function made: masked already, answered as it is if handed back */
  const made = new WeakSet<Error>();
  const mark = (error: GraphQLError): GraphQLError => {
    made.add(error);
    return error;
  };
  return function maskError(error: unknown, message: string = UNEXPECTED_MESSAGE): Error {
    if (error instanceof Error && made.has(error)) return error;
    const located = error instanceof GraphQLError ? error : undefined;
    const original = originalOf(error);
    if (original instanceof MemberDataInputError) {
      return mark(new GraphQLError(original.message, {
        nodes: located?.nodes, positions: located?.positions, path: located?.path,
        extensions: {
          code: 'BAD_USER_INPUT',
          reason: original.code,
          argument: original.argument,
          ...(original.maximum === undefined ? {} : { maximum: original.maximum }),
        },
      }));
    }
    // an outage, not a bug: the data source threw StorageUnavailableError or
    // TemporarilyUnavailableError, possibly as the cause of its own error. Not logged, as on
    // /mcp: the source that failed is the host's to monitor, and a line per request would
    // flood the log for as long as the outage lasts
    if (isStorageUnavailable(original)) {
      return mark(new GraphQLError(UNAVAILABLE_MESSAGE, {
        nodes: located?.nodes, positions: located?.positions, path: located?.path,
        extensions: { code: UNAVAILABLE_CODE },
      }));
    }
    // graphql-js's own request errors (variables, operation name): the caller's input. They
    // have no field path; a GraphQLError raised under a field came from a resolver's source
    // (a host's data source re-throwing an upstream GraphQL error): unexpected, masked below.
    // The outermost one is answered: a variable's coercion error names the variable and where
    // it is defined ('Variable "$b" got invalid value …'), the scalar's error inside it neither
    if (original instanceof GraphQLError && !located?.path) {
      const outer = located ?? original;
      if (outer.extensions.code === undefined) {
        return mark(new GraphQLError(outer.message, {
          nodes: outer.nodes, positions: outer.positions, path: outer.path,
          extensions: { ...outer.extensions, code: 'BAD_USER_INPUT' },
        }));
      }
      return mark(outer);
    }
    const where = located?.path ? ` at ${located.path.join('.')}` : '';
    const detail = original instanceof Error ? (original.stack ?? `${original.name}: ${original.message}`) : String(original);
    const masked = new GraphQLError(message, {
      nodes: located?.nodes, positions: located?.positions, path: located?.path,
      extensions: { code: 'INTERNAL_SERVER_ERROR' },
    });
    Object.defineProperty(masked, LOG_LINE, { value: (tag: string) => `platform-auth: the Account API failed${where}${tag}: ${detail}` });
    return mark(masked);
  };
}

/**
 * The status of an answer without data, from its (masked) errors: 500 for a fault, 503 for
 * an outage, 400 for the caller's input. A fault wins over an outage, as a retry would not
 * mend it.
 */
export function statusWithoutData(errors: readonly GraphQLError[] | undefined): number {
  const codes = new Set(errors?.map((e) => e.extensions.code));
  if (codes.has('INTERNAL_SERVER_ERROR')) return 500;
  if (codes.has(UNAVAILABLE_CODE)) return 503;
  return 400;
}

/** The wire form of an error: yoga's internal extensions (`http`, `unexpected`) stripped. */
export function formatError(error: GraphQLError): GraphQLFormattedError {
  const formatted = error.toJSON();
  if (!formatted.extensions) return formatted;
  const { http: _http, unexpected: _unexpected, originalError: _original, ...extensions } = formatted.extensions;
  return { ...formatted, extensions };
}

/** An answer decided before GraphQL runs (method, media type, size, JSON): a status and one coded error. */
export class RequestProblem extends Error {
  readonly status: number;
  readonly code: string;
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, code: string, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'RequestProblem';
    this.status = status;
    this.code = code;
    this.headers = headers;
  }

  toBody(): { errors: GraphQLFormattedError[] } {
    return { errors: [{ message: this.message, extensions: { code: this.code } }] };
  }
}

/**
 * A validation error without graphql-js's `Did you mean …?` hint, which names schema fields,
 * types and arguments: given only when introspection is off (production), where the schema is
 * not to be read off the error messages.
 */
export function withoutSuggestions(error: GraphQLError): GraphQLError {
  const message = error.message.replace(/ Did you mean [^?]*\?/g, '');
  if (message === error.message) return error;
  return new GraphQLError(message, {
    nodes: error.nodes, source: error.source, positions: error.positions, path: error.path, extensions: error.extensions,
  });
}
