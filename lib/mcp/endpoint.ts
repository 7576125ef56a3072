/**
 * `/mcp` as Koa middleware: a pipeline of named steps, each of which answers or hands on.
 *
 * 1. `preflight`: CORS, and 405 for anything but POST (stateless: no sessions to resume or
 *    delete, no server-initiated stream, as the SDK's stateless servers answer);
 * 2. `identify`: the bearer core in optional mode: no token is anonymous, a bad, expired,
 *    revoked or foreign token is 401 `invalid_token` (never anonymous);
 * 3. `readMessages`: the JSON body, once;
 * 4. `checkToolCalls`: a `tools/call` the caller may not make is answered before it runs:
 *    401 without a token, 403 `insufficient_scope` naming the tool's scopes (the MCP step-up);
 * 5. `serve`: the SDK's Streamable HTTP transport, stateless with JSON responses, on a
 *    pooled server (lib/mcp/server.ts); the caller travels in the SDK's `authInfo`.
 *
 * @module
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import type { Context, Middleware, Next } from 'koa';

import { ENDPOINTS } from '../endpoints.ts';
import { createMemberDataService } from '../member-data/service.ts';
import type { Logger } from '../contracts.ts';
import type { MemberDataSource } from '../contracts.ts';
import type { BearerAuth, BearerVerifier } from '../resource/bearer.ts';
import { extractBearerToken } from '../resource/bearer.ts';
import { writeBearerError } from '../resource/challenge.ts';
import { createBearerAuthenticator } from '../resource/require-bearer.ts';
import {
  calledTools, METHOD_NOT_ALLOWED, readJsonBody, toWebRequest, withoutStackTraces, writeJsonRpcProblem, writeWebResponse,
} from './http.ts';
import type { ResolvedMcpOptions } from './options.ts';
import { buildServer, ServerPool } from './server.ts';
import { refuseCall } from './tools/access.ts';
import { memberTools } from './tools/member.ts';
import { publicTools } from './tools/public.ts';
import { createToolRegistry } from './tools/registry.ts';
import type { ToolRegistry } from './tools/registry.ts';

export interface McpDeps {
  /** the origin; also the base of the URL the transport sees */
  readonly baseUrl: string;
  readonly bearer: BearerVerifier;
  /** the RFC 9728 metadata URL for `WWW-Authenticate` challenges */
  readonly resourceMetadata: string;
  /** `options.memberData`: without it there are no member tools and no catalogue tools */
  readonly dataSource: MemberDataSource | undefined;
  readonly options: ResolvedMcpOptions;
  readonly logger: Logger;
}

const ALLOW_HEADERS = 'Authorization, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID';
const EXPOSE_HEADERS = 'WWW-Authenticate, Mcp-Session-Id, Mcp-Protocol-Version';

/** The tools of this endpoint: the library's public and member tools, then the host's. */
export function createEndpointTools(deps: McpDeps): ToolRegistry {
  const { options } = deps;
  const service = deps.dataSource && createMemberDataService(deps.dataSource, { maxPageSize: options.maxPageSize });
  return createToolRegistry([
    ...publicTools({ catalogue: service?.catalogue, defaultSite: options.defaultSite, maxPageSize: options.maxPageSize }),
    ...(service ? memberTools({ service, maxPageSize: options.maxPageSize }) : []),
    ...options.tools,
  ]);
}

function toAuthInfo(caller: BearerAuth, token: string): AuthInfo {
  return { token, clientId: caller.clientId, scopes: [...caller.scopes], expiresAt: caller.expiresAt, extra: { caller } };
}

/** Resolves `undefined` once the client has gone away, so a stuck call frees its server. */
function whileConnected<T>(ctx: Context, work: Promise<T>): Promise<T | undefined> {
  let onClose!: () => void;
  const gone = new Promise<undefined>((resolve) => {
    onClose = () => resolve(undefined);
    ctx.res.once('close', onClose);
  });
  return Promise.race([work, gone]).finally(() => ctx.res.off('close', onClose));
}

export function createMcpEndpoint(deps: McpDeps): Middleware {
  const { options, resourceMetadata } = deps;
  const registry = createEndpointTools(deps);
  const pool = new ServerPool(() => buildServer({
    info: options.serverInfo, instructions: options.instructions, registry, logger: deps.logger,
  }), options.maxIdleServers);
  const path = ENDPOINTS.mcp.path;

  function preflight(ctx: Context): boolean {
    ctx.set('Cache-Control', 'no-store');
    if (options.cors) {
      ctx.set('Access-Control-Allow-Origin', '*');
      ctx.set('Access-Control-Expose-Headers', EXPOSE_HEADERS);
      if (ctx.method === 'OPTIONS') {
        ctx.set('Access-Control-Allow-Methods', 'POST');
        ctx.set('Access-Control-Allow-Headers', ALLOW_HEADERS);
        ctx.set('Access-Control-Max-Age', '86400');
        ctx.status = 204;
        return false;
      }
    }
    if (ctx.method !== 'POST') {
      writeJsonRpcProblem(ctx, METHOD_NOT_ALLOWED);
      return false;
    }
    return true;
  }

  const authenticate = createBearerAuthenticator(deps.bearer, resourceMetadata);
  const identify = (ctx: Context) => authenticate(ctx, { optional: true });

  async function readMessages(ctx: Context): Promise<{ readonly value: unknown } | undefined> {
    if (!isJsonContentType(ctx.get('content-type') || null)) {
      writeJsonRpcProblem(ctx, { status: 415, code: -32000, message: 'Unsupported Media Type: Content-Type must be application/json' });
      return undefined;
    }
    const body = await readJsonBody(ctx, options.maxBodyBytes);
    if ('value' in body) return body;
    writeJsonRpcProblem(ctx, body);
    return undefined;
  }

  function checkToolCalls(ctx: Context, messages: unknown, caller: BearerAuth | undefined): boolean {
    for (const name of calledTools(messages)) {
      // unknown tools are the SDK's to answer (a tool error naming the tool)
      const prepared = registry.get(name);
      const refusal = prepared && refuseCall(prepared.tool, caller);
      if (refusal) {
        writeBearerError(ctx, refusal, resourceMetadata);
        return false;
      }
    }
    return true;
  }

  async function serve(ctx: Context, messages: unknown, caller: BearerAuth | undefined): Promise<void> {
    const authInfo = caller && toAuthInfo(caller, extractBearerToken(ctx.get('authorization'))!);
    const server = pool.acquire();
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    try {
      await server.connect(transport);
      const request = toWebRequest(ctx, deps.baseUrl);
      const answer = withoutStackTraces(() => transport.handleRequest(request, { parsedBody: messages, authInfo }));
      const response = await whileConnected(ctx, answer);
      if (response) await writeWebResponse(ctx, response);
    } finally {
      // closing aborts what is still running for a client that left, and frees the server
      await server.close();
      pool.release(server);
    }
  }

  return async function mcp(ctx: Context, next: Next) {
    if (ctx.path !== path) return next();
    if (!preflight(ctx)) return;
    const identity = await identify(ctx);
    if (!identity) return;
    const messages = await readMessages(ctx);
    if (!messages) return;
    if (!checkToolCalls(ctx, messages.value, identity.caller)) return;
    await serve(ctx, messages.value, identity.caller);
  };
}
