/**
 * Reference: a host route behind `auth.routes()` (the demo host's GET /) against bare Koa
 * answering "hello". Shows the ceiling of Koa on this machine and what mounting
 * platform-auth costs the host's own routes. Never touches storage.
 */
import { httpWorkload } from '../load/autocannon.ts';
import type { Scenario } from '../lib/types.ts';
import { koaHello } from '../servers/koa-hello.ts';
import { ours } from '../servers/ours.ts';

const scenario: Scenario = {
  id: 'koa-hello',
  title: 'Koa hello (reference)',
  unit: 'req/s',
  order: 90,
  ours,
  baselines: [koaHello],
  usesStorage: false,
  method: 'GET / : ours answers the demo host\'s plain-text page after passing through auth.routes(); '
    + 'bare Koa answers "hello". No target: the reference line for every Koa-based scenario.',
  async prepare(server) {
    return httpWorkload({ origin: server.origin, connection: () => [{ path: '/' }] });
  },
};

export default scenario;
