/**
 * The pages of "Connected apps" (examples/host/connected-apps.ts): sign-in, and the apps the
 * member has authorized with a disconnect step each. The admin area's shell and styles.
 *
 * @module
 */
import { findScope, html } from '../../lib/index.ts';
import type { ConnectedApp } from '../../lib/index.ts';
import { ADMIN_HOME, CONNECTED_APPS_HOME, layout } from './admin/layout.ts';
import type { HeaderView, Shell } from './admin/layout.ts';

export const MEMBER_SIGN_IN_ACTION = `${CONNECTED_APPS_HOME}/sign-in`;
export const MEMBER_SIGN_OUT_ACTION = `${CONNECTED_APPS_HOME}/sign-out`;
export const REVOKE_ACTION = `${CONNECTED_APPS_HOME}/revoke`;

export const MEMBER_SHELL: Shell = {
  brand: 'Courses',
  signOutAction: MEMBER_SIGN_OUT_ACTION,
  links: [{ href: ADMIN_HOME, label: 'School admin' }],
};

const DATE = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });

/** A moment for people, with the machine-readable value beside it. */
function when(epochSeconds: number) {
  const date = new Date(epochSeconds * 1000);
  return html`<time datetime="${date.toISOString()}">${DATE.format(date)} UTC</time>`;
}

export function memberSignInPage(view: { csrf: string; email?: string; error?: string }, nonce: string): string {
  return layout('Sign in', nonce, html`
<section>
<p class="crumbs">Your account → Connected apps</p>
<h1>Sign in to see your connected apps</h1>
<p>See which apps you have allowed to use your account, and disconnect the ones you no longer use.</p>
${view.error ? html`<div class="error" role="alert">${view.error}</div>` : ''}
<form method="post" action="${MEMBER_SIGN_IN_ACTION}" autocomplete="on">
<input type="hidden" name="csrf" value="${view.csrf}">
<label for="email">Email</label>
<input id="email" name="email" type="email" required autocomplete="username" value="${view.email ?? ''}">
<label for="password">Password</label>
<input id="password" name="password" type="password" required autocomplete="current-password">
<button class="primary" type="submit">Sign in</button>
</form>
</section>`, undefined, MEMBER_SHELL);
}

export function memberNoticePage(view: { title: string; message: string; header?: HeaderView }, nonce: string): string {
  return layout(view.title, nonce, html`
<section>
<h1>${view.title}</h1>
<p>${view.message}</p>
<p><a href="${CONNECTED_APPS_HOME}">Back to your connected apps</a></p>
</section>`, view.header, MEMBER_SHELL);
}

export interface ConnectedAppsView {
  readonly header: HeaderView;
  readonly apps: readonly ConnectedApp[];
  readonly notice?: string;
}

function scopeList(scopes: readonly string[]) {
  return html`<ul class="scopes">${scopes.map((s) => html`<li>${findScope(s)?.description ?? s} <code>${s}</code></li>`)}</ul>`;
}

/**
 * Disconnect asks first, without script: the button opens a `<details>` step that says what
 * happens, and the form (CSRF token, client id) is inside it.
 */
function disconnectStep(csrf: string, app: ConnectedApp) {
  return html`<details class="confirm">
<summary class="button danger">Disconnect…</summary>
<div class="confirm-step">
<p>Disconnect <strong>${app.name}</strong>? It loses access to your account at once, and has to ask you again to reconnect.</p>
<form method="post" action="${REVOKE_ACTION}">
<input type="hidden" name="csrf" value="${csrf}">
<input type="hidden" name="client_id" value="${app.clientId}">
<button class="danger-solid" type="submit">Disconnect ${app.name}</button>
</form>
</div>
</details>`;
}

function appItem(csrf: string, app: ConnectedApp) {
  const sites = app.sites.map((s) => s.name).join(', ');
  return html`<li class="app" data-client-id="${app.clientId}">
<h2>${app.name}</h2>
<p class="meta">${sites ? html`For <strong>${sites}</strong> · ` : ''}<code>${app.clientId}</code></p>
<dl>
<dt>Can</dt><dd>${scopeList(app.scopes)}</dd>
<dt>Connected</dt><dd>${when(app.firstUsedAt)}</dd>
<dt>Last used</dt><dd>${when(app.lastUsedAt)}</dd>
</dl>
${disconnectStep(csrf, app)}
</li>`;
}

export function appsListPage(view: ConnectedAppsView, nonce: string): string {
  return layout('Connected apps', nonce, html`
<section>
<p class="crumbs">Your account → Connected apps</p>
<h1>Connected apps</h1>
<p>These apps can use your account because you allowed them to. Disconnecting one ends its access at once, on every device.</p>
${view.notice ? html`<div class="notice" role="status">${view.notice}</div>` : ''}
</section>
<section>
${view.apps.length === 0
    ? html`<p>No apps are connected to your account.</p>`
    : html`<ul class="apps">${view.apps.map((app) => appItem(view.header.csrf, app))}</ul>`}
</section>`, view.header, MEMBER_SHELL);
}
