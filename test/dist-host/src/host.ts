/**
 * The host: a Koa app that mounts platform-auth as the README says, with its own account
 * store, one public member client, one MCP tool written with zod 4 and one route of its own
 * behind `auth.requireBearer()`. Everything comes from the installed package and the registry.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { Router } from '@koa/router';
import Koa from 'koa';
import { createPlatformAuth, defineMcpTool, McpToolError } from 'platform-auth';
import type { Account, AccountStore, AnyMcpTool, PlatformAuth, PlatformAuthOptions } from 'platform-auth';
import { createMemoryAdapter } from 'platform-auth/adapters/memory';
import { z } from 'zod';

export const SITE = 'dist-school';
export const STUDENT = { email: 'student@example.com', password: 'correct horse battery staple' } as const;
export const CLIENT = {
  clientId: 'dist-host-app',
  // loopback redirect of a native client: any port matches (RFC 8252 §7.3)
  redirectUri: 'http://127.0.0.1/callback',
} as const;

const accounts: AccountStore = {
  async authenticate(email, password) {
    // a real host checks a slow password hash here
    return email === STUDENT.email && password === STUDENT.password ? STUDENT_ACCOUNT : undefined;
  },
  async findById(id) {
    return id === STUDENT_ACCOUNT.id ? STUDENT_ACCOUNT : undefined;
  },
};
const STUDENT_ACCOUNT: Account = { id: 'acc-1', email: STUDENT.email, name: 'Sam Student', roles: { [SITE]: ['student'] } };

/** The host's own MCP tool: a zod 4 schema, typed arguments, the caller's token. */
const greet = defineMcpTool({
  name: 'greet_member',
  title: 'Greeting',
  description: 'Greets the signed-in member by the school their token names.',
  audience: 'member',
  scopes: ['account:read'],
  inputSchema: z.object({
    greeting: z.string().min(1).describe('how to greet'),
    times: z.number().int().min(1).max(3).default(1),
  }),
  handler({ greeting, times }, caller) {
    if (!caller.site) throw new McpToolError('this token names no school');
    return { message: Array.from({ length: times }, () => `${greeting}, ${caller.sub} of ${caller.site}`).join(' ') };
  },
});
const tools: AnyMcpTool[] = [greet];

export interface RunningHost {
  readonly baseUrl: string;
  readonly auth: PlatformAuth;
  close(): Promise<void>;
}

export async function startHost(secrets: Pick<Required<PlatformAuthOptions>, 'jwks' | 'cookieKeys'>): Promise<RunningHost> {
  // listen first: baseUrl (the issuer) names the port
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const adapter = createMemoryAdapter();
  const auth = await createPlatformAuth({
    baseUrl,
    accounts,
    sites: { findById: async (id) => (id === SITE ? { id, name: 'Dist School' } : undefined) },
    adapter,
    jwks: secrets.jwks,
    cookieKeys: secrets.cookieKeys,
    clients: [{
      client_id: CLIENT.clientId,
      client_name: 'Dist host app',
      application_type: 'native',
      token_endpoint_auth_method: 'none',
      redirect_uris: [CLIENT.redirectUri],
      scope: 'openid profile email account:read',
      audience: 'member',
      org_id: SITE,
    }],
    mcp: { tools },
  });

  const router = new Router();
  router.get('/host/me', auth.requireBearer({ scopes: ['account:read'], audiences: ['member'] }), (ctx) => {
    const caller = ctx.state.auth;
    if (!caller) throw new Error('requireBearer without optional always sets ctx.state.auth');
    ctx.body = { sub: caller.sub, site: caller.site, scopes: [...caller.scopes] };
  });

  const app = new Koa();
  app.use(auth.routes());
  app.use(router.routes());
  app.use(router.allowedMethods());
  server.on('request', app.callback());

  return {
    baseUrl,
    auth,
    async close() {
      await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
      server.closeAllConnections();
      await auth.close();
      await adapter.close();
    },
  };
}
