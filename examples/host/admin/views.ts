/**
 * The admin area's pages. Each returns a full HTML document; every value is escaped by the
 * `html` template unless it is already `Html`.
 *
 * @module
 */
import { html } from '../../../lib/index.ts';
import type { MemberClient, TraceEntry } from '../../../lib/index.ts';
import { ADMIN_HOME, ADMIN_SHELL, SIGN_IN_ACTION, layout, stackedLabels } from './layout.ts';
import type { HeaderView } from './layout.ts';
import { memberConnectionTest, outcomeBadge, timeOf, traceList } from './trace-views.ts';

export interface SiteView {
  readonly id: string;
  readonly name: string;
}

export const appsPath = (site: string) => `/admin/sites/${encodeURIComponent(site)}/apps`;
/** An application's own page: its recent activity and the connection test. */
export const appPath = (site: string, clientId: string) => `${appsPath(site)}/${encodeURIComponent(clientId)}`;
export const clientPath = (site: string, clientId: string, action: 'rotate' | 'delete') =>
  `${appPath(site, clientId)}/${action}`;

export function signInPage(view: { csrf: string; email?: string; error?: string }, nonce: string): string {
  return layout('Sign in', nonce, html`
<section>
<p class="crumbs">Developers → OAuth applications</p>
<h1>Sign in to manage your school</h1>
<p>Site owners and administrators manage their school's OAuth applications here.</p>
${view.error ? html`<div class="error" role="alert">${view.error}</div>` : ''}
<form method="post" action="${SIGN_IN_ACTION}" autocomplete="on">
<input type="hidden" name="csrf" value="${view.csrf}">
<label for="email">Email</label>
<input id="email" name="email" type="email" required autocomplete="username" autofocus value="${view.email ?? ''}">
<label for="password">Password</label>
<input id="password" name="password" type="password" required autocomplete="current-password">
<button class="primary" type="submit">Sign in</button>
</form>
</section>`);
}

export function noticePage(view: { title: string; message: string; header?: HeaderView }, nonce: string): string {
  return layout(view.title, nonce, html`
<section>
<h1>${view.title}</h1>
<p>${view.message}</p>
<p><a href="${ADMIN_HOME}">Back to the admin area</a></p>
</section>`, view.header);
}

export function sitePickerPage(view: { sites: readonly SiteView[]; header: HeaderView }, nonce: string): string {
  return layout('Choose a school', nonce, html`
<section>
<p class="crumbs">Developers → OAuth applications</p>
<h1>Which school?</h1>
<p>You manage several schools. OAuth applications belong to one school each.</p>
<ul class="sites">${view.sites.map((s) => html`<li><a href="${appsPath(s.id)}">${s.name}</a> <code>${s.id}</code></li>`)}</ul>
</section>`, view.header);
}

export interface ScopeChoice {
  readonly name: string;
  readonly description: string;
}

export interface CreateFormValues {
  readonly name: string;
  readonly redirectUris: string;
  readonly type: 'public' | 'confidential';
  readonly scopes: readonly string[];
}

export interface AppsView {
  readonly site: SiteView;
  readonly header: HeaderView;
  /** whether the account manages other schools too (offers the way back to the picker) */
  readonly otherSites: boolean;
  readonly beta: boolean;
  readonly clients: readonly MemberClient[];
  /** each client's latest trace entry, when it has one */
  readonly latest: ReadonlyMap<string, TraceEntry>;
  readonly eligibleScopes: readonly ScopeChoice[];
  readonly form: CreateFormValues;
  readonly error?: string;
  readonly notice?: string;
  /** right after create or rotate: the one time the secret is shown */
  readonly issued?: { readonly client: MemberClient; readonly clientSecret?: string; readonly rotated: boolean };
}

const APP_COLUMNS = ['Name', 'Client ID', 'Type', 'Scopes', 'Redirect URIs', 'Actions'] as const;
const APP_TABLE_STYLE = `@media (max-width:720px){${stackedLabels('apps', APP_COLUMNS)}}`;
/** the latest activity's summary in the list, cut; the application's page has it whole */
const LATEST_CHARS = 160;

function issuedPanel(issued: NonNullable<AppsView['issued']>) {
  const { client, clientSecret, rotated } = issued;
  return html`
<section class="issued" role="status">
<h2>${rotated ? html`New secret for ${client.name}` : html`Created ${client.name}`}</h2>
<dl>
<dt>Client ID</dt><dd><code id="issued-client-id">${client.clientId}</code></dd>
${clientSecret ? html`<dt>Client secret</dt><dd class="secret"><code id="issued-client-secret">${clientSecret}</code></dd>` : ''}
</dl>
${clientSecret
    ? html`<p><strong>Copy the secret now.</strong> It is not stored anywhere it can be read back and will not be shown again; if it is lost, rotate it.${rotated ? ' The previous secret no longer works.' : ''}</p>`
    : html`<p>A public application has no secret: it proves itself with PKCE on every sign-in.</p>`}
</section>`;
}

/** The latest entry of a client's trace under its name, and the way to the whole of it. */
function latestLine(site: string, c: MemberClient, latest: TraceEntry | undefined) {
  const summary = latest && (latest.summary.length > LATEST_CHARS ? `${latest.summary.slice(0, LATEST_CHARS - 1)}…` : latest.summary);
  return html`<p class="latest">${latest
    ? html`${outcomeBadge(latest.outcome)} ${timeOf(latest.at)}<br><span class="latest-summary">${summary}</span>`
    : 'No activity yet.'}</p>
<p class="latest"><a href="${appPath(site, c.clientId)}">Activity and connection test<span class="visually-hidden"> of ${c.name}</span></a></p>`;
}

function clientRow(site: string, csrf: string, c: MemberClient, latest: TraceEntry | undefined) {
  return html`
<tr>
<td><span class="app-name">${c.name}</span>${latestLine(site, c, latest)}</td>
<td><code>${c.clientId}</code></td>
<td>${c.type}</td>
<td><ul>${c.scopes.map((s) => html`<li><code>${s}</code></li>`)}</ul></td>
<td><ul>${c.redirectUris.map((u) => html`<li><code>${u}</code></li>`)}</ul></td>
<td>
${c.type === 'confidential' ? html`<form method="post" action="${clientPath(site, c.clientId, 'rotate')}">
<input type="hidden" name="csrf" value="${csrf}">
<button class="secondary" type="submit">Rotate secret</button>
</form>` : ''}
${deleteStep(site, csrf, c)}
</td>
</tr>`;
}

/**
 * Delete asks first, without script (the CSP allows none): the button only opens a
 * `<details>` step that says what deleting does, and the form is inside it.
 */
export function deleteStep(site: string, csrf: string, c: Pick<MemberClient, 'clientId' | 'name'>) {
  return html`<details class="confirm">
<summary class="button danger">Delete…</summary>
<div class="confirm-step">
<p>Delete <strong>${c.name}</strong>? Every member signed in to it is signed out of it at once, and it cannot be undone.</p>
<form method="post" action="${clientPath(site, c.clientId, 'delete')}">
<input type="hidden" name="csrf" value="${csrf}">
<button class="danger-solid" type="submit">Delete ${c.name}</button>
</form>
</div>
</details>`;
}

function createForm(view: AppsView) {
  const { form, site, header } = view;
  const picked = new Set(form.scopes);
  return html`
<form method="post" action="${appsPath(site.id)}">
<input type="hidden" name="csrf" value="${header.csrf}">
<label for="name">Name (shown to members on the consent page)</label>
<input id="name" name="name" type="text" required maxlength="100" value="${form.name}">
<label for="redirect_uris">Redirect URIs, one per line (https, or http on 127.0.0.1 / [::1] / localhost for apps on the member's device)</label>
<textarea id="redirect_uris" name="redirect_uris" rows="3" required>${form.redirectUris}</textarea>
<fieldset><legend>Type</legend>
<label class="choice"><input type="radio" name="type" value="confidential"${form.type === 'confidential' ? html` checked` : ''}> <span>Confidential: runs on a server and keeps a client secret</span></label>
<label class="choice"><input type="radio" name="type" value="public"${form.type === 'public' ? html` checked` : ''}> <span>Public: runs on the member's device or in a browser; PKCE only, no secret</span></label>
</fieldset>
<fieldset><legend>Scopes the application may request</legend>
${view.eligibleScopes.map((s) => html`<label class="choice"><input type="checkbox" name="scope" value="${s.name}"${picked.has(s.name) ? html` checked` : ''}> <span>${s.description} <code>${s.name}</code></span></label>`)}
</fieldset>
<button class="primary" type="submit">Create application</button>
</form>`;
}

export function appsPage(view: AppsView, nonce: string): string {
  const { site, header } = view;
  return layout(`OAuth applications · ${site.name}`, nonce, html`
<section>
<p class="crumbs">Developers → OAuth applications${view.otherSites ? html` · <a href="${ADMIN_HOME}">switch school</a>` : ''}</p>
<h1>OAuth applications of ${site.name}</h1>
<p>Applications created here let your members sign in and use their own account data at ${site.name}, with the scopes you pick.</p>
${view.beta ? '' : html`<div class="warning" role="note">The “MCP connections” beta is not enabled for ${site.name}, so new OAuth applications cannot be created here yet.</div>`}
${view.error ? html`<div class="error" role="alert">${view.error}</div>` : ''}
${view.notice ? html`<div class="notice" role="status">${view.notice}</div>` : ''}
</section>
${view.issued ? issuedPanel(view.issued) : ''}
<section>
<h2>Applications</h2>
${view.clients.length === 0 ? html`<p>No OAuth applications yet.</p>` : html`
<table class="stack apps">
<thead><tr>${APP_COLUMNS.map((label) => html`<th scope="col">${label}</th>`)}</tr></thead>
<tbody>${view.clients.map((c) => clientRow(site.id, header.csrf, c, view.latest.get(c.clientId)))}</tbody>
</table>`}
</section>
${view.beta ? html`<section>
<h2>New application</h2>
${createForm(view)}
</section>` : ''}`, header, ADMIN_SHELL, APP_TABLE_STYLE);
}

export interface AppView {
  readonly site: SiteView;
  readonly header: HeaderView;
  readonly client: MemberClient;
  /** newest first */
  readonly trace: readonly TraceEntry[];
  /** the issuer, for the connection test's URLs */
  readonly baseUrl: string;
}

/** One application: what it is, a connection test, and its recent activity, newest first. */
export function appPage(view: AppView, nonce: string): string {
  const { site, client, header } = view;
  return layout(`${client.name} · OAuth applications · ${site.name}`, nonce, html`
<section>
<p class="crumbs">Developers → <a href="${appsPath(site.id)}">OAuth applications</a> → ${client.name}</p>
<h1>${client.name}</h1>
<dl>
<dt>Client ID</dt><dd><code>${client.clientId}</code></dd>
<dt>Type</dt><dd>${client.type}</dd>
<dt>Redirect URIs</dt><dd><ul class="plain">${client.redirectUris.map((u) => html`<li><code>${u}</code></li>`)}</ul></dd>
<dt>Scopes</dt><dd><ul class="plain">${client.scopes.map((s) => html`<li><code>${s}</code></li>`)}</ul></dd>
</dl>
</section>
<section aria-labelledby="activity">
<h2 id="activity">Recent activity</h2>
<p>What happened when this application connected, newest first, with what to do when something failed. Quote the request id to support.</p>
${traceList(view.trace, html`No activity yet. Run the connection test below, then reload this page.`)}
</section>
<section aria-labelledby="test">
<h2 id="test">Test the connection</h2>
${memberConnectionTest(view.baseUrl, client)}
</section>`, header, ADMIN_SHELL);
}
