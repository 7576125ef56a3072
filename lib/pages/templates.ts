/**
 * The page templates: the data each page gets, the kit a template writes with, and the
 * library's own templates. A host replaces any of them wholesale with `options.pages.templates`
 * (README "Replacing templates"); whichever template runs, the library keeps the guarantees:
 *
 * - the response's headers (strict CSP with a fresh nonce, no framing, `no-store`) are set by
 *   the library, so a template can add no script and load nothing but its nonce'd stylesheet;
 * - a template returns `Html`, which only the `html` tag (or `kit.t`) makes: every value
 *   interpolated into it is escaped unless it is markup the library built;
 * - form actions and CSRF tokens come in the data, and every POST is checked by the library.
 *
 * @example
 * ```ts
 * const templates: PageTemplates = {
 *   login: (data, { html, t, layout, csrfField }) => layout({
 *     title: t('login.title').html,
 *     body: html`<h1>${data.client.name}</h1>
 *       <form method="post" action="${data.action}">${csrfField(data.csrf)} … </form>`,
 *   }),
 * };
 * ```
 *
 * @module
 */
import type { PageBrand } from './branding.ts';
import { html } from './html.ts';
import type { Html } from './html.ts';
import { renderDocument } from './layout.ts';
import type { Locale, Translator } from './messages/index.ts';

/** A site (school) as the pages name it. */
export interface SiteView {
  readonly id: string;
  readonly name: string;
}

/**
 * Who vouches for a client: `member` (created by the school for its members), `vendor` (a
 * partner platform this service lists), `service` (set up in the service's configuration),
 * `reviewed` (a metadata-document client a school operator reviewed), `unverified` (it
 * registered itself, or describes itself in a metadata document nobody reviewed).
 */
export type ClientTrustKind = 'member' | 'vendor' | 'service' | 'reviewed' | 'unverified';

export interface ClientTrust {
  readonly kind: ClientTrustKind;
  /** `false` only for `unverified` */
  readonly verified: boolean;
  /** the short label ("Created by Demo School", "Unverified"), in the page's language */
  readonly label: string;
  /** one sentence on where the client comes from, in the page's language; hosts are marked up */
  readonly detail: Html;
}

export interface ClientView {
  readonly id: string;
  /** the client's own name: for an unverified client, its own claim */
  readonly name: string;
  /** host (or custom scheme) the user will be sent back to */
  readonly redirectHost: string;
  /** for clients described by a client ID metadata document: the host that published it */
  readonly documentHost?: string;
  readonly trust: ClientTrust;
}

export interface LoginPageData {
  /** where the form posts `email`, `password` and `csrf` */
  readonly action: string;
  /** where the Cancel form posts `csrf`: the client gets `access_denied` */
  readonly cancelAction: string;
  readonly csrf: string;
  readonly client: ClientView;
  /** the email typed last time (after a failed attempt) */
  readonly email: string;
  /** what went wrong last time, in the page's language */
  readonly error?: string;
  /** the client asked for a fresh sign-in (`prompt=login`, `max_age`) */
  readonly again: boolean;
}

export interface ConsentPageData {
  /** where Allow posts `csrf` (and `org_id` when `sites` has several) */
  readonly confirmAction: string;
  /** where Deny posts `csrf` */
  readonly abortAction: string;
  readonly csrf: string;
  readonly client: ClientView;
  /** the site the consent is for, when there is one: a member client's, or an operator's only site */
  readonly site?: SiteView;
  /** the sites an operator chooses from (`org_id`), when there are several */
  readonly sites: readonly SiteView[];
  readonly account: { readonly email: string; readonly name: string };
  /** what the client asks for; never empty */
  readonly scopes: readonly { readonly name: string; readonly description: string }[];
  /** every redirect URI of the client is on a loopback address (a native app on this device) */
  readonly loopbackOnly: boolean;
}

export interface NoticePageData {
  /** what happened, in a few words */
  readonly title: string;
  readonly message: string;
  /** what to do about it */
  readonly hint?: string;
  /** the technical code, for support: small print, never the headline */
  readonly code?: string;
  /** a form that returns the user to the application (with `access_denied`) */
  readonly abort?: { readonly action: string; readonly csrf: string; readonly label: string };
}

/** What a template writes with, for one response. */
export interface TemplateKit {
  /** the escaping tagged template */
  readonly html: typeof html;
  /** a page string as markup (see README "Branding & languages" for the keys) */
  readonly t: Translator['t'];
  /** a page string as plain text */
  readonly text: Translator['text'];
  readonly locale: Locale;
  readonly brand: PageBrand;
  /** this response's CSP nonce, for a template's own `<style nonce>` */
  readonly nonce: string;
  /** the hidden CSRF field a form must carry */
  csrfField(token: string): Html;
  /** The library's document around `body`: `<html lang>`, the nonce'd stylesheet (plus `style`), the brand line. */
  layout(view: { title: string; body: Html; style?: string }): Html;
}

export type PageTemplate<D> = (data: D, kit: TemplateKit) => Html;

/** Replacements for the library's pages; each left out keeps the library's. */
export interface PageTemplates {
  /** the sign-in page */
  readonly login?: PageTemplate<LoginPageData>;
  /** the consent page */
  readonly consent?: PageTemplate<ConsentPageData>;
  /** every notice: refusals, expired pages, error pages */
  readonly notice?: PageTemplate<NoticePageData>;
}

export type PageName = keyof PageTemplates;

export function createKit(translator: Translator, brand: PageBrand, nonce: string): TemplateKit {
  return Object.freeze({
    html,
    t: translator.t,
    text: translator.text,
    locale: translator.locale,
    brand,
    nonce,
    csrfField: (token: string) => html`<input type="hidden" name="csrf" value="${token}">`,
    layout: ({ title, body, style }: { title: string; body: Html; style?: string }) => renderDocument({
      title, body, nonce, brand, lang: translator.locale, ...(style !== undefined ? { style } : {}),
    }),
  });
}

function loginTemplate(data: LoginPageData, { html, t, text, layout, csrfField }: TemplateKit): Html {
  const client = html`<span class="client">${data.client.name}</span>`;
  return layout({
    title: text('login.title'),
    body: html`
<h1>${t('login.heading')}</h1>
<p>${t('login.toContinue', { client })}</p>
${data.again ? html`<p>${t('login.again', { client })}</p>` : ''}
${data.error ? html`<div class="error" role="alert">${data.error}</div>` : ''}
<form method="post" action="${data.action}" autocomplete="on">
${csrfField(data.csrf)}
<label for="email">${t('login.email')}</label>
<input id="email" name="email" type="email" required autocomplete="username" autofocus value="${data.email}">
<label for="password">${t('login.password')}</label>
<input id="password" name="password" type="password" required autocomplete="current-password">
<button class="primary" type="submit">${t('login.submit')}</button>
</form>
<form method="post" action="${data.cancelAction}">
${csrfField(data.csrf)}
<button class="secondary" type="submit">${t('login.cancel')}</button>
</form>`,
  });
}

function consentTemplate(data: ConsentPageData, { html, t, text, layout, csrfField }: TemplateKit): Html {
  const client = html`<span class="client">${data.client.name}</span>`;
  const { trust } = data.client;
  const siteChoice = data.sites.length > 1
    ? html`<fieldset><legend>${t('consent.chooseSite')}</legend>${data.sites.map((s, i) => html`
<label class="site"><input type="radio" name="org_id" value="${s.id}"${i === 0 ? html` checked` : ''}> ${s.name}</label>`)}</fieldset>`
    : data.site ? html`<input type="hidden" name="org_id" value="${data.site.id}">` : '';
  return layout({
    title: text('consent.title'),
    body: html`
<h1>${data.site ? t('consent.headingSite', { site: data.site.name, client }) : t('consent.heading', { client })}</h1>
<p class="trust"><span class="badge ${trust.verified ? 'verified' : 'unverified'}">${trust.label}</span> <span>${trust.detail}</span></p>
<p>${t('consent.signedInAs', { email: html`<strong>${data.account.email}</strong>` })} ${t('consent.returnTo', { host: html`<span class="host">${data.client.redirectHost}</span>` })}</p>
${data.loopbackOnly ? html`<div class="warning" role="note">${t('consent.loopback')}</div>` : ''}
<p>${t('consent.canDo')}</p>
<ul class="scopes">${data.scopes.map((s) => html`<li>${s.description}<code>${s.name}</code></li>`)}</ul>
<form method="post" action="${data.confirmAction}">
${csrfField(data.csrf)}
${siteChoice}
<button class="primary" type="submit">${t('consent.allow')}</button>
</form>
<form method="post" action="${data.abortAction}">
${csrfField(data.csrf)}
<button class="secondary" type="submit">${t('consent.deny')}</button>
</form>`,
  });
}

function noticeTemplate(data: NoticePageData, { html, t, layout, csrfField }: TemplateKit): Html {
  return layout({
    title: data.title,
    body: html`
<h1>${data.title}</h1>
<p>${data.message}</p>
${data.hint ? html`<p>${data.hint}</p>` : ''}
${data.abort ? html`<form method="post" action="${data.abort.action}">
${csrfField(data.abort.csrf)}
<button class="secondary" type="submit">${data.abort.label}</button>
</form>` : ''}
${data.code ? html`<p class="support">${t('notice.supportCode', { code: html`<code>${data.code}</code>` })}</p>` : ''}`,
  });
}

/** The library's own pages. */
export const DEFAULT_TEMPLATES = Object.freeze({
  login: loginTemplate,
  consent: consentTemplate,
  notice: noticeTemplate,
}) satisfies Required<PageTemplates>;

interface TemplateData {
  login: LoginPageData;
  consent: ConsentPageData;
  notice: NoticePageData;
}

/** Runs the host's template for `name`, or the library's; refuses anything but `Html` (a string would bypass escaping). */
export function renderTemplate<N extends PageName>(templates: PageTemplates, name: N, data: TemplateData[N], kit: TemplateKit): string {
  const template = (templates[name] ?? DEFAULT_TEMPLATES[name]) as PageTemplate<TemplateData[N]>;
  const out: unknown = template(data, kit);
  if (!out || typeof out !== 'object' || typeof (out as Html).html !== 'string') {
    throw new TypeError(`options.pages.templates.${name} must return Html, made with the kit's html tag or layout(); got ${typeof out}`);
  }
  return (out as Html).html;
}
