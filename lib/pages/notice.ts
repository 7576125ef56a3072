/**
 * The notice page: a title, a plain message and optionally what to do, a form back to the
 * application and a code for support. Used for expired links, refusals, the storage-outage
 * page and oidc-provider's error page. These two functions render it in English with the
 * library's own look; the interaction pages render it in the request's language and the
 * site's brand (./renderer.ts).
 *
 * @module
 */
import type { Context } from 'koa';

import { setPageHeaders, createNonce } from './headers.ts';
import { DEFAULT_BRAND } from './layout.ts';
import { DEFAULT_LOCALE, translatorFor } from './messages/index.ts';
import { DEFAULT_TEMPLATES, createKit } from './templates.ts';
import type { NoticePageData } from './templates.ts';

export type NoticeView = NoticePageData;

export function noticePage(view: NoticeView, nonce: string): string {
  return DEFAULT_TEMPLATES.notice(view, createKit(translatorFor(DEFAULT_LOCALE), DEFAULT_BRAND, nonce)).html;
}

/** Writes a notice page with its security headers: `status`, a fresh nonce unless given. */
export function writeNoticePage(ctx: Context, status: number, view: NoticeView, nonce = createNonce()): void {
  setPageHeaders(ctx, nonce);
  ctx.status = status;
  ctx.body = noticePage(view, nonce);
}
