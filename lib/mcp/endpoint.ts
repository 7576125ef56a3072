/**
 * `/mcp` as Koa middleware: a pipeline of named steps, each of which answers or hands on.
 *
 * 1. `checkOrigin`: 403 for a foreign `Host` or a not-allowed `Origin` (DNS rebinding); the
 *    first refusal of each kind is logged once, with the option to change;
 * 2. `preflight`: CORS, and 405 for anything but POST (stateless: no sessions to resume or
 *    delete, no server-initiated stream);
 * 3. `identify`: the bearer core in optional mode: no token is anonymous, a bad, expired,
 *    revoked or foreign token is 401 `invalid_token` (never anonymous);
 * 4. `readMessages`: the JSON body, once: 415 unless `application/json` with no charset or
 *    `utf-8` (the body is read as UTF-8);
 * 5. `checkBatch`: 400 for a JSON-RPC batch the revision does not allow (2025-06-18 and
 *    later), or one that cancels its own request (it would never be answered; lib/mcp/batch.ts);
 * 6. `checkRoutingHeaders`: a 2025-era POST that sends `Mcp-Method` or `Mcp-Name` anyway gets
 *    400 `-32020` when they disagree with its body, as on 2026-07-28 (the SDK reads neither
 *    there, but a gateway may have routed by them: ./standard-headers.ts);
 * 7. `checkToolCalls`: a `tools/call` the caller may not make is answered before it runs:
 *    401 without a token (a challenge naming the tool's scopes, with no error code: the
 *    request had no credentials, RFC 6750 §3.1), 403 `insufficient_scope` naming the tool's
 *    scopes (the MCP step-up), or naming none for a tool of the other audience, which no
 *    step-up can reach. A request the transport would refuse, or a batch calling member and
 *    operator tools (no one token may), is refused 4xx first, with no challenge. The body's
 *    `params.name` is what counts, in both revisions: in 2026-07-28 the SDK refuses an
 *    `Mcp-Name` header that disagrees with it;
 * 8. `serve`: the v2 server SDK on a pooled server (lib/mcp/server.ts). MCP 2026-07-28
 *    (stateless, `server/discover`, per-request `_meta`) through `createMcpHandler`; the 2025
 *    revisions through the SDK's Streamable HTTP transport with JSON answers, as before; both
 *    with a bound on the wait for the answer (`options.answerTimeout`, lib/mcp/answer-bound.ts).
 *    The caller travels in the SDK's `authInfo`. A client that leaves, or the bound running
 *    out, closes the exchange's server, which aborts the tool handlers' `context.signal`.
 *
 * @module
 */
import {
  createMcpHandler, isJsonContentType, isLegacyRequest, WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { AuthInfo, McpHandlerRequestOptions, McpServer } from '@modelcontextprotocol/server';
import type { Context, Middleware, Next } from 'koa';

import type { AccountStore, Logger, MemberDataSource } from '../contracts.ts';
import { MCP_REVISIONS } from '../constants.ts';
import { ENDPOINTS } from '../endpoints.ts';
import type { PlatformAuthError } from '../errors.ts';
import { printable } from '../events/printable.ts';
import { REQUEST_ID_HEADER, requestTag } from '../http/request-id.ts';
import { mcpCors, writeCors } from '../policies/cors.ts';
import { createMemberDataService } from '../member-data/service.ts';
import type { BearerAuth, BearerVerifier } from '../resource/bearer.ts';
import { extractBearerToken } from '../resource/bearer.ts';
import { accountGone } from '../resource/account-gone.ts';
import { writeBearerError } from '../resource/challenge.ts';
import { createBearerAuthenticator } from '../resource/require-bearer.ts';
import { answerWithin, NO_ANSWER } from './answer-bound.ts';
import { refuseBatch } from './batch.ts';
import {
  calledTools, METHOD_NOT_ALLOWED, METHOD_NOT_ALLOWED_WITHOUT_CORS, problemResponse, readJsonBody, toWebRequest, UNSUPPORTED_CHARSET, UNSUPPORTED_MEDIA_TYPE,
  writeJsonRpcProblem, writeWebResponse,
} from './http.ts';
import { isUtf8Charset } from '../http/charset.ts';
import type { ResolvedMcpOptions } from './options.ts';
import { refusalHint, refusedOrigin, withoutDefaultPort } from './request-origin.ts';
import type { OriginPolicy, OriginRefusal } from './request-origin.ts';
import { buildServer, ServerPool } from './server.ts';
import { legacyHeaderRejection, transportRejection } from './standard-headers.ts';
import type { StandardHeaders } from './standard-headers.ts';
import { combinedRefusal, mixedAudiences, refuseCall } from './tools/access.ts';
import type { ToolAccess } from './tools/access.ts';
import { memberTools } from './tools/member.ts';
import { publicTools } from './tools/public.ts';
import { createToolRegistry } from './tools/registry.ts';
import type { ToolRegistry } from './tools/registry.ts';

export interface McpDeps {
  /** the origin; also the base of the URL the transport sees */
  readonly baseUrl: string;
  readonly bearer: BearerVerifier;
  /** the host's accounts: a token whose account is gone is refused, as UserInfo refuses it */
  readonly accounts: Pick<AccountStore, 'findById'>;
  /** the RFC 9728 metadata URL for `WWW-Authenticate` challenges */
  readonly resourceMetadata: string;
  /** `options.memberData`: without it there are no member tools and no catalogue tools */
  readonly dataSource: MemberDataSource | undefined;
  readonly options: ResolvedMcpOptions;
  /** `options.proxy`: the host the client addressed may come in `X-Forwarded-Host` */
  readonly proxy?: boolean;
  /** `options.proxyHops`: which entry of `X-Forwarded-Host` is the trusted proxy's (default 1) */
  readonly proxyHops?: number;
  readonly logger: Logger;
  /**
   * How long a POST waits for the SDK's answer to start, in milliseconds, in place of
   * `options.answerTimeout` (seconds, or `false` for no bound); tests shorten it.
   */
  readonly answerTimeoutMs?: number;
}

/**
 * What the SDK reports about a request it refused with a 4xx: the client's mistake (its
 * classification's rejections, modern-only ones included: a posted response, a batch).
 */
const CLIENT_MISTAKE = /^(?:Rejected (?:inbound|2025-era) request|Unsupported protocol version)/;

/** The tools of this endpoint: the library's public and member tools, then the host's. */
export function createEndpointTools(deps: McpDeps): ToolRegistry {
  const { options } = deps;
  const service = deps.dataSource && createMemberDataService(deps.dataSource, { maxPageSize: options.maxPageSize });
  return createToolRegistry([
    ...publicTools({ catalogue: service?.catalogue, defaultSite: options.defaultSite, maxPageSize: options.maxPageSize }),
    ...(service ? memberTools({ service, maxPageSize: options.maxPageSize }) : []),
    ...options.tools,
  ], { advertiseMemberTools: options.advertiseMemberTools });
}

/** A request header, `undefined` when absent (an empty one is present, as the SDK reads it). */
function headerValue(ctx: Context, name: string): string | undefined {
  const value = ctx.req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The MCP standard headers of a request, `undefined` when absent or empty. */
function standardHeaders(ctx: Context): StandardHeaders {
  return {
    protocolVersion: ctx.get('mcp-protocol-version') || undefined, method: ctx.get('mcp-method') || undefined, name: ctx.get('mcp-name') || undefined,
    accept: ctx.get('accept'), get: (name) => headerValue(ctx, name),
  };
}

function toAuthInfo(caller: BearerAuth, token: string): AuthInfo {
  return { token, clientId: caller.clientId, scopes: [...caller.scopes], expiresAt: caller.expiresAt, extra: { caller } };
}

/**
 * Resolves `undefined` once the client has gone away before its answer, after `onGone`
 * (which closes the exchange's server: that aborts what still runs and frees the server).
 */
function whileConnected<T>(ctx: Context, work: Promise<T>, onGone: () => void): Promise<T | undefined> {
  let onClose!: () => void;
  const gone = new Promise<undefined>((resolve) => {
    onClose = () => {
      if (!ctx.res.writableFinished) onGone();
      resolve(undefined);
    };
    ctx.res.once('close', onClose);
  });
  return Promise.race([work, gone]).finally(() => ctx.res.off('close', onClose));
}

export function createMcpEndpoint(deps: McpDeps): Middleware {
  const { options, resourceMetadata, logger } = deps;
  /** `undefined`: no bound (`answerTimeout: false`) */
  const answerTimeoutMs = deps.answerTimeoutMs ?? (options.answerTimeout === false ? undefined : options.answerTimeout * 1000);
  const registry = createEndpointTools(deps);
  const build = () => buildServer({ info: options.serverInfo, instructions: options.instructions, registry, logger });
  const pools = { modern: new ServerPool(build, options.maxIdleServers), legacy: new ServerPool(build, options.maxIdleServers) };
  /** the server of each exchange under way, by its request, until the exchange closes */
  const serving = new WeakMap<Request, McpServer>();
  function acquire(era: keyof typeof pools, request: Request | undefined): McpServer {
    const server = pools[era].acquire(request && (() => serving.delete(request)));
    if (request) serving.set(request, server);
    return server;
  }
  /** A client gone before its answer: its exchange's server closes, if still serving it. */
  function abandon(request: Request): void {
    void serving.get(request)?.close();
  }
  // 2026-07-28 only; the 2025 revisions are served below with JSON answers (the SDK's own
  // legacy path would answer them as event streams)
  const modern = createMcpHandler((ctx) => acquire(ctx.era, ctx.requestInfo), {
    legacy: 'reject',
    responseMode: 'auto',
    // a request the SDK refuses is the client's mistake, answered 4xx: not worth an error line
    // each (a client could flood the log); anything else is ours
    onerror: (error) => {
      if (!CLIENT_MISTAKE.test(error.message)) logger.error(`platform-auth: /mcp: ${error.message}`);
    },
  });
  // the lists add to baseUrl's own host and origin (and loopback pages), never replace them:
  // listing a partner must not lock out the server's own pages
  const policy: OriginPolicy = {
    hosts: new Set([new URL(deps.baseUrl).host, ...(options.allowedHosts ?? [])].map(withoutDefaultPort)),
    origins: options.allowedOrigins === '*' ? '*' : new Set([new URL(deps.baseUrl).origin, ...(options.allowedOrigins ?? [])]),
    proxy: deps.proxy ?? false,
    proxyHops: deps.proxyHops ?? 1,
  };
  // optional mode: no header is anonymous; a header of another scheme (Basic) is still refused
  // as `invalid_token` saying why, as before RFC 6750 §3.1 was applied to UserInfo and host routes
  // the preflight lets a page send the Mcp-Param-* headers the tools declare
  const cors = mcpCors(registry.tools.flatMap((prepared) => prepared.paramHeaders.map((declared) => declared.headerName)));
  const authenticate = createBearerAuthenticator(deps.bearer, resourceMetadata, { missingToken: 'invalid_token' });
  const path = ENDPOINTS.mcp.path;

  /** the kinds of refusal already logged: one line each per instance, never one per request */
  const hinted = new Set<OriginRefusal['kind']>();
  const configured = { hosts: options.allowedHosts !== undefined, origins: options.allowedOrigins !== undefined };

  function checkOrigin(ctx: Context): boolean {
    const refusal = refusedOrigin(ctx, policy);
    if (refusal === undefined) return true;
    // the client's SDK reports only a failed version negotiation, and every other endpoint
    // answers this Host: the operator learns why here, once (any client could send many)
    if (!hinted.has(refusal.kind)) {
      hinted.add(refusal.kind);
      logger.warn(refusalHint(refusal, policy, configured));
    }
    ctx.set('Cache-Control', 'no-store');
    writeJsonRpcProblem(ctx, { status: 403, code: -32000, message: `Forbidden: ${refusal.reason}` });
    return false;
  }

  function preflight(ctx: Context): boolean {
    ctx.set('Cache-Control', 'no-store');
    if (options.cors) {
      // an origin got here only if it is allowed (checkOrigin)
      const origin = ctx.get('origin');
      if (writeCors(ctx, cors, policy.origins === '*' || !origin ? '*' : origin)) return false;
    }
    if (ctx.method !== 'POST') {
      writeJsonRpcProblem(ctx, options.cors ? METHOD_NOT_ALLOWED : METHOD_NOT_ALLOWED_WITHOUT_CORS);
      return false;
    }
    return true;
  }

  async function readMessages(ctx: Context): Promise<{ readonly value: unknown } | undefined> {
    const contentType = ctx.get('content-type') || null;
    if (!isJsonContentType(contentType)) {
      writeJsonRpcProblem(ctx, UNSUPPORTED_MEDIA_TYPE);
      return undefined;
    }
    // the body is read as UTF-8 whatever the header says: another charset is refused, not misread
    if (!isUtf8Charset(contentType)) {
      writeJsonRpcProblem(ctx, UNSUPPORTED_CHARSET);
      return undefined;
    }
    const body = await readJsonBody(ctx, options.maxBodyBytes);
    if ('value' in body) return body;
    writeJsonRpcProblem(ctx, body);
    return undefined;
  }

  function checkBatch(ctx: Context, messages: unknown): boolean {
    const refusal = refuseBatch(messages, ctx.get('mcp-protocol-version'));
    if (refusal === undefined) return true;
    writeJsonRpcProblem(ctx, refusal);
    return false;
  }

  function checkRoutingHeaders(ctx: Context, messages: unknown): boolean {
    const refusal = legacyHeaderRejection(standardHeaders(ctx), messages);
    if (refusal === undefined) return true;
    writeJsonRpcProblem(ctx, refusal);
    return false;
  }

  function checkToolCalls(ctx: Context, messages: unknown, caller: BearerAuth | undefined): boolean {
    const called: ToolAccess[] = [];
    const refusals: PlatformAuthError[] = [];
    for (const name of calledTools(messages)) {
      // unknown tools are the SDK's to answer
      const prepared = registry.get(name);
      if (!prepared) continue;
      called.push(prepared.tool);
      const error = refuseCall(prepared.tool, caller);
      if (error) refusals.push(error);
    }
    const refusal = combinedRefusal(called, refusals);
    if (!refusal) return true;
    // the transport's verdict comes first: a request it would refuse is not sent through
    // sign-in or a step-up (./standard-headers.ts)
    const invalid = transportRejection(standardHeaders(ctx), messages, (tool) => registry.get(tool)?.paramHeaders);
    const mixed = invalid ? undefined : mixedAudiences(called);
    if (invalid) writeJsonRpcProblem(ctx, invalid);
    else if (mixed) writeJsonRpcProblem(ctx, { status: 400, code: -32600, message: `Invalid Request: ${mixed}` });
    else writeBearerError(ctx, refusal, resourceMetadata);
    return false;
  }

  /**
   * `answering`'s response, or NO_ANSWER once `answerTimeoutMs` have passed without one (the
   * caller then closes the exchange's server). What it bounds is the wait for the response
   * to start: an event stream the SDK has begun is the client's to end. `left` ends the wait
   * quietly (the client went away: nothing to log, no one to answer). Without a bound
   * (`answerTimeout: false`), `answering` itself: no timer, no race.
   */
  function bounded(request: Request, answering: Promise<Response>, handling: McpHandlerRequestOptions, left: AbortSignal | undefined, onLate?: () => void): Promise<Response> {
    return answerTimeoutMs === undefined ? answering : boundedBy(answerTimeoutMs, request, answering, handling, left, onLate);
  }

  async function boundedBy(
    ms: number, request: Request, answering: Promise<Response>, handling: McpHandlerRequestOptions, left: AbortSignal | undefined, onLate?: () => void,
  ): Promise<Response> {
    const answer = await answerWithin(answering, ms, () => {
      const tools = calledTools(handling.parsedBody);
      // tool names are the request's: JSON-quoted, controls escaped and cut, as in events
      const named = tools.slice(0, 5).map((name) => JSON.stringify(printable(name, 64))).join(', ');
      logger.error(`platform-auth: /mcp: no answer within ${ms} ms${tools.length ? ` (tools/call of ${named})` : ''}${requestTag(request.headers.get(REQUEST_ID_HEADER) ?? undefined)}; answered ${NO_ANSWER.status}`);
      onLate?.();
    }, left);
    return answer ?? problemResponse(NO_ANSWER);
  }

  /** The 2025 revisions: a pooled server on the SDK's stateless Streamable HTTP transport, JSON answers. */
  async function serveLegacy(request: Request, handling: McpHandlerRequestOptions, left: AbortSignal | undefined): Promise<Response> {
    const server = acquire('legacy', request);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    try {
      await server.connect(transport);
      return await bounded(request, transport.handleRequest(request, handling), handling, left);
    } finally {
      // closing aborts what is still running (for a client that left, or past the bound),
      // and returns the server
      await server.close();
    }
  }

  async function serve(ctx: Context, messages: unknown, caller: BearerAuth | undefined): Promise<void> {
    const authInfo = caller && toAuthInfo(caller, extractBearerToken(ctx.get('authorization'))!);
    const request = toWebRequest(ctx, deps.baseUrl);
    const handling: McpHandlerRequestOptions = { parsedBody: messages, ...(authInfo ? { authInfo } : {}) };
    // a request that names the current revision in its header is modern (served, or refused
    // for a bad envelope, by createMcpHandler), so the SDK's classification is needed only for
    // the others; createMcpHandler classifies again inside, and classifying twice cost ~4%
    const modernHeader = ctx.get('mcp-protocol-version') === MCP_REVISIONS.current;
    const legacy = !modernHeader && await isLegacyRequest(request, messages);
    // a client that left ends the bound's wait: the 2025 transport's JSON answer never comes
    // once its server is closed, and the bound would log a timeout no one was waiting for
    const left = answerTimeoutMs === undefined ? undefined : new AbortController();
    // past the bound, the modern exchange's server is closed as for a client that left
    const answer = legacy
      ? serveLegacy(request, handling, left?.signal)
      : bounded(request, modern.fetch(request, handling), handling, left?.signal, () => abandon(request));
    const response = await whileConnected(ctx, answer, () => {
      left?.abort();
      abandon(request);
    });
    if (response) await writeWebResponse(ctx, response);
  }

  return async function mcp(ctx: Context, next: Next) {
    if (ctx.path !== path) return next();
    if (!checkOrigin(ctx)) return;
    if (!preflight(ctx)) return;
    const identity = await authenticate(ctx, { optional: true });
    if (!identity) return;
    // a deleted or deactivated account: its tokens act for nobody (member tools read its data)
    if (identity.caller && !await deps.accounts.findById(identity.caller.sub)) {
      writeBearerError(ctx, accountGone({ clientId: identity.caller.clientId, accountId: identity.caller.sub }), resourceMetadata);
      return;
    }
    const messages = await readMessages(ctx);
    if (!messages) return;
    if (!checkBatch(ctx, messages.value)) return;
    if (!checkRoutingHeaders(ctx, messages.value)) return;
    if (!checkToolCalls(ctx, messages.value, identity.caller)) return;
    await serve(ctx, messages.value, identity.caller);
  };
}
