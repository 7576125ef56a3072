/**
 * The staff view's pages: the clients with a trace, and one client's trace. Every value is
 * escaped by the `html` template; a client id (any string a request named, e.g. a metadata
 * document's URL) is only ever text or a query parameter, never a link target of its own.
 *
 * @module
 */
import { html } from '../../../lib/index.ts';
import type { TraceEntry, TracedClient } from '../../../lib/index.ts';
import { ADMIN_SHELL, STAFF_HOME, layout, stackedLabels } from './layout.ts';
import type { HeaderView } from './layout.ts';
import { outcomeBadge, staffConnectionTest, timeOf, traceList } from './trace-views.ts';

export const staffTracePath = (clientId: string) => `${STAFF_HOME}/trace?${new URLSearchParams({ client_id: clientId })}`;

const isDocument = (clientId: string) => /^https:\/\//i.test(clientId);

const COLUMNS = ['Client', 'Latest', 'When'] as const;
const TABLE_STYLE = `@media (max-width:720px){${stackedLabels('traced', COLUMNS)}}`;

export function staffListPage(view: { header: HeaderView; clients: readonly TracedClient[] }, nonce: string): string {
  return layout('All clients · Platform staff', nonce, html`
<section>
<p class="crumbs">Platform staff → All clients</p>
<h1>Clients with recent activity</h1>
<p>Every client that connected lately (vendor platforms, registered apps, metadata documents and the schools' own applications), the most recent first. Open one to see what happened, in plain words, and what to do.</p>
${view.clients.length === 0 ? html`<p class="empty">No client has any recorded activity yet.</p>` : html`
<table class="stack traced">
<thead><tr>${COLUMNS.map((label) => html`<th scope="col">${label}</th>`)}</tr></thead>
<tbody>${view.clients.map((c) => html`
<tr>
<td><a href="${staffTracePath(c.clientId)}"><code>${c.clientId}</code></a>${isDocument(c.clientId) ? html`<br><span class="meta">metadata document</span>` : ''}</td>
<td>${outcomeBadge(c.outcome)} <span class="latest-summary">${c.summary}</span></td>
<td>${timeOf(c.at)}</td>
</tr>`)}</tbody>
</table>`}
</section>`, view.header, ADMIN_SHELL, TABLE_STYLE);
}

export interface StaffTraceView {
  readonly header: HeaderView;
  readonly clientId: string;
  /** newest first */
  readonly trace: readonly TraceEntry[];
  readonly baseUrl: string;
}

export function staffTracePage(view: StaffTraceView, nonce: string): string {
  const { clientId } = view;
  return layout(`${clientId} · Platform staff`, nonce, html`
<section>
<p class="crumbs">Platform staff → <a href="${STAFF_HOME}">All clients</a></p>
<h1>Activity of a client</h1>
<dl>
<dt>Client ID</dt><dd><code>${clientId}</code></dd>
<dt>Kind</dt><dd>${isDocument(clientId) ? 'client ID metadata document' : 'a client known to this server'}</dd>
</dl>
</section>
<section aria-labelledby="activity">
<h2 id="activity">Recent activity</h2>
<p>Newest first. Quote the request id when you look the request up in the log.</p>
${traceList(view.trace, html`No recorded activity for this client id.`)}
</section>
<section aria-labelledby="test">
<h2 id="test">Test the connection</h2>
${staffConnectionTest(view.baseUrl, clientId)}
</section>`, view.header, ADMIN_SHELL);
}
