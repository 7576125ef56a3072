/**
 * oidc-provider's `renderError`: the page a person sees when an authorization request cannot
 * be sent back to the client (unknown client, a redirect_uri it did not register, a broken
 * link, a sign-in that expired). It says what happened and what to do in plain words, in the
 * request's language; the error code and its technical description are small print for
 * support, never the headline.
 *
 * Only where a person is: oidc-provider calls `renderError` on every route whose request
 * prefers HTML, and a form posted from a browser straight to the token endpoint (or a client
 * that sends a browser's `Accept`) would get this page where RFC 6749 §5.2 (and RFC 7009,
 * 7662, 7591) want the JSON error. The routes a browser is sent to ({@link PAGE_ROUTES}) get
 * the page; every other answers JSON, as the provider does for any other `Accept`.
 *
 * @module
 */
import type { Context } from 'koa';
import type { KoaContextWithOIDC, ErrorOut } from 'oidc-provider';

import type { Logger } from '../contracts.ts';
import { documentRefusalWords } from '../policies/metadata-documents.ts';
import type { MessageKey } from './messages/index.ts';
import type { ResolvedPagesOptions } from './options.ts';
import { PAGES_DEFAULTS } from './options.ts';
import { createPageRenderer } from './renderer.ts';
import type { PageRenderer } from './renderer.ts';

/** What the person is told, per error code: what happened (the message) and what to do (the hint). */
function wordsFor(out: ErrorOut, status: number): { title: MessageKey; message: MessageKey; hint: MessageKey } {
  const error = out.error;
  const description = out.error_description ?? '';
  if (status >= 500 || error === 'server_error' || error === 'temporarily_unavailable') {
    return { title: 'error.server.title', message: 'error.server.message', hint: 'error.whatToDoServer' };
  }
  const words = (message: MessageKey) => ({ title: 'error.title' as const, message, hint: 'error.whatToDo' as const });
  if (error === 'invalid_redirect_uri' || /redirect_uri/.test(description)) return words('error.redirect.message');
  if (error === 'invalid_client' || error === 'unauthorized_client') return words('error.client.message');
  if (error === 'invalid_scope') return words('error.scope.message');
  if (error === 'session_not_found' || /expired|not found/i.test(description)) return words('error.expired.message');
  return words('error.request.message');
}

/** The support code: the error and its description, as oidc-provider states them (public text, no secret). */
function supportCode(out: ErrorOut): string {
  return out.error_description ? `${out.error}: ${out.error_description}` : out.error;
}

/** oidc-provider's routes a browser navigates to: the authorization endpoint and its resume. */
export const PAGE_ROUTES: ReadonlySet<string> = new Set(['authorization', 'resume']);

/** A `renderError` for oidc-provider, in the configured look and languages. */
export function createProviderErrorRenderer(pages: ResolvedPagesOptions, logger: Logger) {
  const renderer: PageRenderer = createPageRenderer(pages, logger);
  return async function renderProviderError(ctx: KoaContextWithOIDC, out: ErrorOut, _error: Error): Promise<void> {
    // the token, revocation, introspection and registration endpoints: the JSON error whatever
    // the Accept, as oidc-provider's handler writes it (its headers, a challenge included, stay)
    if (!PAGE_ROUTES.has(ctx.oidc?.route as string)) {
      ctx.body = out;
      return;
    }
    // the request's own ui_locales: the provider's parsed parameters when it got that far
    const uiLocales = ctx.oidc?.params?.ui_locales ?? (ctx as unknown as Context).query?.ui_locales;
    const page = renderer.for(ctx as unknown as Context, { uiLocales });
    const { text } = page.translator;
    const words = wordsFor(out, ctx.status);
    // a client named by a metadata-document URL and not found: the provider's words for its document, as its author needs them
    const documentClient = !ctx.oidc?.client && /^https:\/\//i.test(String(ctx.oidc?.params?.client_id ?? ''));
    const shown = documentClient && out.error_description ? { ...out, error_description: documentRefusalWords(out.error_description) } : out;
    // the status is the provider's, already set
    page.notice(ctx.status, {
      title: text(words.title),
      message: text(words.message),
      hint: text(words.hint),
      code: supportCode(shown),
    });
  };
}

/** The English page with the library's look, for callers without options. */
export const renderProviderError = createProviderErrorRenderer(
  { brand: PAGES_DEFAULTS.brand, locales: ['en'], templates: {} },
  { info() {}, warn() {}, error() {} },
);
