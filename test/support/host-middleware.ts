/**
 * Middleware a host puts in front of the library, for the tests of what the library makes
 * of it (test/e2e/mount-order.test.ts, test/e2e/mounted-alone.test.ts).
 */
import type Koa from 'koa';

/** Counts the bytes of each request body as they pass (a metrics hook): sets the stream flowing. */
export function countingBodies(counted: number[]): Koa.Middleware {
  return async (ctx, next) => {
    let bytes = 0;
    ctx.req.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    await next();
    counted.push(bytes);
  };
}
