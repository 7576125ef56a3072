/**
 * `GET /openapi.json` and `GET /auth.md`. Both are rendered once, when the router is built
 * (so a broken host extension fails at start-up), and served with a strong `ETag` and a
 * short public cache lifetime.
 *
 * @module
 */
import { createHash } from 'node:crypto';

import type { Context, Middleware, Next } from 'koa';

import type { ResolvedOptions } from '../config/options.ts';
import { ENDPOINTS } from '../endpoints.ts';
import { methodsByPath, refuseUnservedMethod } from '../http/allowed-methods.ts';
import { renderAuthMd } from './auth-md.ts';
import { buildOpenApiDocument } from './openapi/document.ts';

/** Public, and short enough that a changed deployment is seen within minutes; `ETag` makes revalidation cheap. */
export const DOCS_CACHE_CONTROL = 'public, max-age=300';

export interface DocsDeps {
  readonly options: ResolvedOptions;
}

interface RenderedDocument {
  readonly body: string;
  readonly type: string;
  readonly etag: string;
}

function rendered(body: string, type: string): RenderedDocument {
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
  return Object.freeze({ body, type, etag });
}

/** The documents this deployment serves, by path; throws ConfigurationError for a broken host extension. */
export function renderDocuments(options: ResolvedOptions): ReadonlyMap<string, RenderedDocument> {
  const documents = new Map<string, RenderedDocument>();
  const { openapi, authMd } = options.docs;
  if (openapi) {
    documents.set(ENDPOINTS.openapi.path, rendered(JSON.stringify(buildOpenApiDocument(options, openapi)), 'application/json; charset=utf-8'));
  }
  if (authMd) {
    documents.set(ENDPOINTS.authMd.path, rendered(renderAuthMd(options, authMd), 'text/markdown; charset=utf-8'));
  }
  return documents;
}

/**
 * Whether `If-None-Match` names `etag` (RFC 9110 §13.1.2: `*`, or a list compared weakly).
 * Not Koa's `ctx.fresh`, which also answers no to a request with `Cache-Control: no-cache`:
 * an origin server answers a conditional request whatever the request's cache directives, and
 * Node's `fetch` sends `no-cache` with every conditional request.
 */
function notModified(ifNoneMatch: string, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

export function createDocsRouter(deps: DocsDeps): Middleware {
  const documents = renderDocuments(deps.options);
  const methods = methodsByPath([ENDPOINTS.openapi, ENDPOINTS.authMd]);

  return async function docs(ctx: Context, next: Next) {
    const document = documents.get(ctx.path);
    if (!document) return next();
    if (refuseUnservedMethod(ctx, methods.get(ctx.path)!)) return;
    ctx.set('Cache-Control', DOCS_CACHE_CONTROL);
    ctx.set('ETag', document.etag);
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.status = 200;
    if (notModified(ctx.get('if-none-match'), document.etag)) {
      ctx.status = 304;
      return;
    }
    ctx.type = document.type;
    ctx.body = document.body;
  };
}
