/**
 * Bare Koa answering "hello": the ceiling of any Koa app on this machine, and a baseline for
 * scenarios whose cost is mostly our stack (Account API, MCP).
 *
 * @module
 */
import Koa from 'koa';

import type { BuildServer, ServerTarget } from '../lib/types.ts';

export const koaHello: ServerTarget = {
  id: 'koa',
  label: 'bare Koa',
  module: import.meta.url,
  export: 'buildKoaHello',
};

export const buildKoaHello: BuildServer = async () => {
  const app = new Koa();
  app.use(function hello(ctx) {
    ctx.type = 'text/plain';
    ctx.body = 'hello';
  });
  return { listener: app.callback(), close: async () => {} };
};
