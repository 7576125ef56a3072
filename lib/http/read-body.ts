/**
 * Reads a request body straight from the Node request, never beyond `limit` bytes: the
 * routers that need their body (the Account API, `/mcp`) are mounted before any body parser,
 * and a body over the limit is refused from its `Content-Length` or as soon as it grows past.
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';

/** The body is larger than the limit; answer 413 and close the connection. */
export class BodyTooLargeError extends Error {
  readonly limit: number;

  constructor(limit: number) {
    super(`the request body is larger than ${limit} bytes`);
    this.name = 'BodyTooLargeError';
    this.limit = limit;
  }
}

/** The client stopped sending before the body was complete. */
export class BodyIncompleteError extends Error {
  constructor(options?: { cause?: unknown }) {
    super('the request body was not received completely', options);
    this.name = 'BodyIncompleteError';
  }
}

export function readLimitedBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  // an ended stream emits no 'end' again: fail rather than wait for ever. Not reached from
  // routes() or a piece mounted alone, which refuse such a request first (./mounted-alone.ts)
  if (req.readableEnded) return Promise.reject(new Error('platform-auth: the request body was read before the library; mount auth.routes() before any body parser'));
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) return Promise.reject(new BodyTooLargeError(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        reject(new BodyTooLargeError(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onError = (cause?: unknown) => {
      cleanup();
      reject(new BodyIncompleteError({ cause }));
    };
    const onClose = () => {
      if (!req.complete) onError();
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}
