/**
 * The shared body reader of the Account API and /mcp: whole bodies, the limit by
 * Content-Length and by counting, a client that goes away mid-body, and a body read before.
 */
import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';

import { BodyIncompleteError, BodyTooLargeError, readLimitedBody } from '../../lib/http/read-body.ts';

function request(headers: Record<string, string> = {}) {
  const stream = new PassThrough() as PassThrough & { headers: Record<string, string>; complete: boolean };
  stream.headers = headers;
  stream.complete = false;
  stream.on('end', () => { stream.complete = true; });
  return stream;
}

it('reads a body in chunks', async () => {
  const req = request();
  const body = readLimitedBody(req as unknown as IncomingMessage, 10);
  req.write('abc');
  req.end('def');
  expect((await body).toString()).toBe('abcdef');
});

it('refuses from Content-Length without reading', async () => {
  const req = request({ 'content-length': '11' });
  await expect(readLimitedBody(req as unknown as IncomingMessage, 10)).rejects.toBeInstanceOf(BodyTooLargeError);
});

it('refuses a body that grows past the limit without Content-Length', async () => {
  const req = request();
  const body = readLimitedBody(req as unknown as IncomingMessage, 5);
  req.write('abc');
  req.write('def');
  await expect(body).rejects.toMatchObject({ name: 'BodyTooLargeError', limit: 5 });
});

it('reports a body the client did not finish', async () => {
  const req = request();
  const body = readLimitedBody(req as unknown as IncomingMessage, 50);
  req.write('abc');
  req.destroy();
  await expect(body).rejects.toBeInstanceOf(BodyIncompleteError);
});

it('fails, rather than waits for ever, on a body something read before it', async () => {
  const req = request();
  req.end('abc');
  req.resume();
  await new Promise((resolve) => req.once('end', resolve));
  await expect(readLimitedBody(req as unknown as IncomingMessage, 10)).rejects.toThrow(/read before the library; mount auth\.routes\(\) before any body parser/);
});
