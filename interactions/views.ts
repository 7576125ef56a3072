/**
 * The sign-in and consent pages. Each returns a full HTML document (the notice page is
 * lib/pages/notice.ts, shared with the outage and error pages).
 *
 * @module
 */
import { html, page } from '../lib/pages/html.ts';
import type { Html } from '../lib/pages/html.ts';

export interface ClientView {
  readonly name: string;
  /** host (or custom scheme) the user will be sent back to */
  readonly redirectHost: string;
  /**
   * For clients described by a client ID metadata document: the host that published it,
   * the only part of a self-described client the server can vouch for.
   */
  readonly documentHost?: string;
}

export interface LoginView {
  readonly action: string;
  readonly csrf: string;
  readonly client: ClientView;
  readonly email?: string;
  readonly error?: string;
}

export function loginPage(view: LoginView, nonce: string): string {
  return page('Sign in', nonce, html`
<h1>Sign in</h1>
<p>to continue to <span class="client">${view.client.name}</span></p>
${view.error ? html`<div class="error" role="alert">${view.error}</div>` : ''}
<form method="post" action="${view.action}" autocomplete="on">
<input type="hidden" name="csrf" value="${view.csrf}">
<label for="email">Email</label>
<input id="email" name="email" type="email" required autocomplete="username" autofocus value="${view.email ?? ''}">
<label for="password">Password</label>
<input id="password" name="password" type="password" required autocomplete="current-password">
<button class="primary" type="submit">Sign in</button>
</form>`);
}

export interface ScopeView {
  readonly name: string;
  readonly description: string;
}

export interface ConsentView {
  readonly confirmAction: string;
  readonly abortAction: string;
  readonly csrf: string;
  readonly client: ClientView;
  readonly accountEmail: string;
  readonly scopes: readonly ScopeView[];
  /** offered when the account may act for several sites */
  readonly sites: readonly { id: string; name: string }[];
  readonly loopbackOnly: boolean;
}

export function consentPage(view: ConsentView, nonce: string): string {
  const siteChoice: Html | string = view.sites.length > 1
    ? html`<fieldset><legend>Act for which school?</legend>${view.sites.map((s, i) => html`
<label class="site"><input type="radio" name="org_id" value="${s.id}"${i === 0 ? html` checked` : ''}> ${s.name}</label>`)}</fieldset>`
    : view.sites.length === 1 ? html`<input type="hidden" name="org_id" value="${view.sites[0]!.id}"><p>School: <strong>${view.sites[0]!.name}</strong></p>` : '';
  return page('Allow access?', nonce, html`
<h1><span class="client">${view.client.name}</span> wants to access your account</h1>
<p>Signed in as <strong>${view.accountEmail}</strong>. After you decide you will return to <span class="host">${view.client.redirectHost}</span>.</p>
${view.client.documentHost ? html`<p class="publisher">This application describes itself at <span class="host">${view.client.documentHost}</span>; its name is its own claim.</p>` : ''}
${view.loopbackOnly ? html`<div class="warning" role="note">This application runs on your own device (it returns to a loopback address). Only continue if you started this sign-in yourself.</div>` : ''}
<p>It will be able to:</p>
<ul class="scopes">${view.scopes.map((s) => html`<li>${s.description}<code>${s.name}</code></li>`)}</ul>
<form method="post" action="${view.confirmAction}">
<input type="hidden" name="csrf" value="${view.csrf}">
${siteChoice}
<button class="primary" type="submit">Allow</button>
</form>
<form method="post" action="${view.abortAction}">
<input type="hidden" name="csrf" value="${view.csrf}">
<button class="secondary" type="submit">Deny</button>
</form>`);
}
