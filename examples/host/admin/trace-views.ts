/**
 * A client's trace and a connection test, as the admin area's pages show them: for a site
 * operator on a member client's page (`auth.memberClients.trace`), and for the platform's
 * staff on any client's (`auth.clientTrace`). The words of each entry (what happened, what to
 * do) are the library's; this only lays them out, newest first, each with its outcome in
 * words (never by colour alone), its time and the request id to quote to support.
 *
 * @module
 */
import { createHash, randomBytes } from 'node:crypto';

import { ENDPOINTS, html } from '../../../lib/index.ts';
import type { Html, TraceEntry, TraceOutcome } from '../../../lib/index.ts';

export const OUTCOME_LABELS: Readonly<Record<TraceOutcome, string>> = {
  ok: 'Worked',
  refused: 'Refused',
  error: 'Server error',
};

export function outcomeBadge(outcome: TraceOutcome): Html {
  return html`<span class="badge ${outcome}">${OUTCOME_LABELS[outcome]}</span>`;
}

/** `2025-05-01 09:30:12 UTC`: the same for every reader, and what the log's timestamps say. */
export function formatTime(iso: string): string {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : `${at.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

export function timeOf(iso: string): Html {
  return html`<time datetime="${iso}">${formatTime(iso)}</time>`;
}

/** The entries, newest first as the library returns them; `empty` when there are none. */
export function traceList(entries: readonly TraceEntry[], empty: Html): Html {
  if (entries.length === 0) return html`<p class="empty">${empty}</p>`;
  return html`<ol class="trace">${entries.map((entry) => html`
<li class="entry ${entry.outcome}">
<p class="entry-head">${outcomeBadge(entry.outcome)} ${timeOf(entry.at)}</p>
<p class="summary">${entry.summary}</p>
${entry.action ? html`<p class="action"><strong>What to do:</strong> ${entry.action}</p>` : ''}
<p class="meta">Event <code>${entry.event}</code>${entry.reason ? html` · reason <code>${entry.reason}</code>` : ''}${entry.requestId ? html` · request id <code>${entry.requestId}</code>` : ''}</p>
</li>`)}</ol>`;
}

/** A value inside single quotes for a POSIX shell. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** What the connection test of a member client needs to know of it. */
export interface TestedClient {
  readonly clientId: string;
  readonly redirectUris: readonly string[];
  readonly scopes: readonly string[];
  readonly type: 'public' | 'confidential';
}

/** A PKCE pair for one test sign-in (made per page view; the page is never cached). */
export function testPkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The authorization request the connection test starts: the client's first redirect URI and all its scopes. */
export function testAuthorizationUrl(baseUrl: string, client: TestedClient, challenge: string): string {
  const url = new URL(ENDPOINTS.authorization.path, baseUrl);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: client.redirectUris[0] ?? '',
    scope: client.scopes.join(' '),
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'connection-test',
    resource: baseUrl,
  }).toString();
  return url.href;
}

/** The two documents every client reads first: what fails here fails before any sign-in. */
function metadataChecks(baseUrl: string): Html {
  const discovery = new URL(ENDPOINTS.authorizationServerMetadata.path, baseUrl).href;
  const resource = new URL(ENDPOINTS.protectedResourceMetadata.path, baseUrl).href;
  return html`<li><p>Check that the app can read this server's metadata (both answer JSON):</p>
<pre class="cmd"><code>curl -sS ${shellQuote(discovery)}
curl -sS ${shellQuote(resource)}</code></pre></li>`;
}

/**
 * The steps a developer can run to see where a member client's connection fails: the
 * metadata, a sign-in in the browser, the code exchange. Each step lands in the trace below
 * it, with what to do when it fails.
 *
 * The URLs go to curl as `--data-urlencode`: `-d` sends its value as is, so a redirect URI
 * with a query (`&`), a `+` or a `%xx` would arrive as another URI and the code be refused.
 */
export function memberConnectionTest(baseUrl: string, client: TestedClient): Html {
  const { verifier, challenge } = testPkce();
  const authorize = testAuthorizationUrl(baseUrl, client, challenge);
  const token = new URL(ENDPOINTS.token.path, baseUrl).href;
  const secret = client.type === 'confidential' ? html` \\
  -d client_secret=YOUR_CLIENT_SECRET` : '';
  return html`<ol class="steps">
${metadataChecks(baseUrl)}
<li><p>Sign in as a member of the school with this authorization URL, in a browser. The browser ends at the app's redirect URI with <code>code=…</code> in the address bar (for an app on the member's device, nothing may be listening there; the address is what counts).</p>
<p class="long"><a href="${authorize}" rel="noopener">${authorize}</a></p></li>
<li><p>Exchange that code within a minute (the code verifier of this test is in the command):</p>
<pre class="cmd"><code>curl -sS ${shellQuote(token)} \\
  -d grant_type=authorization_code \\
  -d client_id=${shellQuote(client.clientId)} \\
  --data-urlencode redirect_uri=${shellQuote(client.redirectUris[0] ?? '')} \\
  -d code_verifier=${verifier} \\
  --data-urlencode resource=${shellQuote(baseUrl)}${secret} \\
  -d code=THE_CODE_FROM_THE_ADDRESS_BAR</code></pre></li>
</ol>
<p>Reload this page afterwards: each step shows up under “Recent activity”, and a failed one says what to change.</p>`;
}

/** The connection test for any client as the staff sees it: the metadata, and a metadata document's own URL. */
export function staffConnectionTest(baseUrl: string, clientId: string): Html {
  const document = /^https:\/\//i.test(clientId);
  return html`<ol class="steps">
${metadataChecks(baseUrl)}
${document ? html`<li><p>This client is a client ID metadata document. Check that its URL answers 200 with a JSON object of at most 5 KB whose <code>client_id</code> is exactly this URL:</p>
<pre class="cmd"><code>curl -sS -D - ${shellQuote(clientId)}</code></pre></li>` : ''}
</ol>`;
}
