/**
 * Page helpers for server-rendered HTML, the ones the library's own pages use and a host's
 * pages may share (the demo's admin page does): escaping templates, the strict CSP with a
 * per-response nonce, CSRF tokens and the notice page.
 *
 * @example
 * ```ts
 * const nonce = createNonce();
 * setPageHeaders(ctx, nonce);
 * ctx.body = noticePage({ title: 'Saved', message: `Your app ${name} was created.` }, nonce);
 * ```
 *
 * @module
 */
export { escapeHtml, html } from './html.ts';
export { page } from './layout.ts';
export type { Html } from './html.ts';
export { createNonce, setPageHeaders } from './headers.ts';
export { CsrfTokens } from './csrf.ts';
export { noticePage, writeNoticePage } from './notice.ts';
export type { NoticeView } from './notice.ts';
