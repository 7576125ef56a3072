/**
 * Renders the library's pages for one response: the language (`ui_locales`, then
 * `Accept-Language`), the brand (the site's, checked, or the configured one), the template
 * (the host's or the library's) and the headers that go with them (CSP with the nonce and the
 * logo's origin).
 *
 * @module
 */
import type { Context } from 'koa';

import { BoundedMemo } from '../bounded-memo.ts';
import type { Logger, Site } from '../contracts.ts';
import { brandFor, logoSource, warnOnce } from './branding.ts';
import type { PageBrand } from './branding.ts';
import { createNonce, setPageHeaders } from './headers.ts';
import { chooseLocale, translatorFor } from './messages/index.ts';
import type { Locale, Translator } from './messages/index.ts';
import type { ResolvedPagesOptions } from './options.ts';
import { createKit, renderTemplate } from './templates.ts';
import type { ConsentPageData, LoginPageData, NoticePageData, TemplateKit } from './templates.ts';

export interface PageRequest {
  /** the request's `ui_locales` parameter, when there is one */
  readonly uiLocales?: unknown;
  /** the site the page is about, for its brand */
  readonly site?: Site | undefined;
  /** where the page's forms end up (the client's redirect URI), for `form-action` */
  readonly redirectUri?: string | undefined;
}

/** One response's page: its language, brand and kit, and writers that set the headers. */
export interface PageResponse {
  readonly translator: Translator;
  readonly brand: PageBrand;
  readonly kit: TemplateKit;
  login(status: number, data: LoginPageData): void;
  consent(status: number, data: ConsentPageData): void;
  notice(status: number, data: NoticePageData): void;
}

export interface PageRenderer {
  for(ctx: Context, request?: PageRequest): PageResponse;
}

/** Languages chosen, by `ui_locales` and `Accept-Language`: browsers send a handful of distinct headers. */
const LOCALE_CHOICES_KEPT = 256;
/** Longer pairs are chosen for each time, not kept: at most 256 × 512 characters are held. */
const LOCALE_KEY_MAX = 512;

export function createPageRenderer(pages: ResolvedPagesOptions, logger: Logger): PageRenderer {
  const warn = warnOnce((m) => logger.warn(m));
  const chosen = new BoundedMemo<string, Locale>(LOCALE_CHOICES_KEPT);
  const localeFor = (uiLocales: unknown, acceptLanguage: string): Locale => {
    const choose = () => chooseLocale(uiLocales, acceptLanguage, pages.locales, pages.locales[0]!);
    if (uiLocales !== undefined && typeof uiLocales !== 'string') return choose();
    // a header holds no line break, so the pair's key is unambiguous
    const key = `${uiLocales ?? ''}\n${acceptLanguage}`;
    return key.length > LOCALE_KEY_MAX ? choose() : chosen.get(key, choose);
  };
  return {
    for(ctx, request = {}) {
      const translator = translatorFor(localeFor(request.uiLocales, ctx.get('accept-language')));
      const brand = brandFor(request.site, pages.brand, warn);
      const nonce = createNonce();
      const kit = createKit(translator, brand, nonce);
      const logo = logoSource(brand);
      const write = (status: number, body: string) => {
        setPageHeaders(ctx, nonce, request.redirectUri, logo ? { images: [logo] } : {});
        ctx.set('Content-Language', translator.locale);
        ctx.status = status;
        ctx.body = body;
      };
      return {
        translator,
        brand,
        kit,
        login: (status, data) => write(status, renderTemplate(pages.templates, 'login', data, kit)),
        consent: (status, data) => write(status, renderTemplate(pages.templates, 'consent', data, kit)),
        notice: (status, data) => write(status, renderTemplate(pages.templates, 'notice', data, kit)),
      };
    },
  };
}
