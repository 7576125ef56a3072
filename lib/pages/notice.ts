/**
 * The notice page: a title, a plain message and optionally a form back to the application.
 * Used for expired links, refusals, the storage-outage page and oidc-provider's error page.
 *
 * @module
 */
import type { Context } from 'koa';

import { setPageHeaders, createNonce } from './headers.ts';
import { html, page } from './html.ts';

export interface NoticeView {
  readonly title: string;
  readonly message: string;
  /** a form that returns the user to the application (with access_denied) */
  readonly abort?: { action: string; csrf: string; label: string };
}

export function noticePage(view: NoticeView, nonce: string): string {
  return page(view.title, nonce, html`
<h1>${view.title}</h1>
<p>${view.message}</p>
${view.abort ? html`<form method="post" action="${view.abort.action}">
<input type="hidden" name="csrf" value="${view.abort.csrf}">
<button class="secondary" type="submit">${view.abort.label}</button>
</form>` : ''}`);
}

/** Writes a notice page with its security headers: `status`, a fresh nonce unless given. */
export function writeNoticePage(ctx: Context, status: number, view: NoticeView, nonce = createNonce()): void {
  setPageHeaders(ctx, nonce);
  ctx.status = status;
  ctx.body = noticePage(view, nonce);
}
