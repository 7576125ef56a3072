/**
 * The page shell of the demo host's own pages (the admin area, "Connected apps"). The
 * library's sign-in shell (lib/pages) is a narrow card; this one is wide enough for a table,
 * with the same look and the same rules: no external assets, one stylesheet allowed by the
 * CSP nonce, no script at all (confirmations are `<details>` steps, which need none).
 *
 * Accessibility: colours meet WCAG AA (text 4.5:1, input borders and focus rings 3:1 against
 * white), and nothing is wider than a 390 px screen: tables turn into one block per row
 * below 720 px, long values (client ids, URIs, secrets) wrap anywhere.
 *
 * @module
 */
import { escapeHtml, html } from '../../../lib/index.ts';
import type { Html } from '../../../lib/index.ts';

export const ADMIN_HOME = '/admin';
export const SIGN_IN_ACTION = '/admin/sign-in';
export const SIGN_OUT_ACTION = '/admin/sign-out';
/** the member page of the demo (examples/host/connected-apps.ts) */
export const CONNECTED_APPS_HOME = '/connected-apps';
/** the platform staff's view of every client's trace (./staff.ts) */
export const STAFF_HOME = '/admin/staff';

/** Who is signed in, for the header's sign-out form. */
export interface HeaderView {
  readonly email: string;
  readonly csrf: string;
  /** platform staff: the header links to the staff view */
  readonly staff?: boolean;
}

/** What differs between the areas that share this shell. */
export interface Shell {
  /** the name at the top left and at the end of every title */
  readonly brand: string;
  readonly signOutAction: string;
  /** links in the header, to the other areas */
  readonly links: readonly { readonly href: string; readonly label: string }[];
}

export const ADMIN_SHELL: Shell = {
  brand: 'Courses admin',
  signOutAction: SIGN_OUT_ACTION,
  links: [{ href: CONNECTED_APPS_HOME, label: 'Your connected apps' }],
};

/** Labels of the columns of a `table.stack`, shown before each cell once the table is stacked. */
export function stackedLabels(table: string, labels: readonly string[]): string {
  return labels.map((label, i) => `table.${table} td:nth-child(${i + 1})::before{content:${JSON.stringify(label)}}`).join('\n');
}

const STYLE = `
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:#1f2937;background:#f3f4f6}
header{display:flex;align-items:center;justify-content:space-between;gap:8px 16px;flex-wrap:wrap;padding:12px 16px;background:#fff;border-bottom:1px solid #e5e7eb}
header .brand{color:#4338ca;font-weight:700}
header nav{display:flex;flex-wrap:wrap;align-items:center;gap:8px 16px;font-size:.9rem}
header form{display:flex;align-items:center;flex-wrap:wrap;gap:6px 10px;margin:0;color:#4b5563;font-size:.9rem;min-width:0}
header form span{overflow-wrap:anywhere}
main{max-width:980px;margin:24px auto;padding:0 12px}
section{background:#fff;border-radius:12px;box-shadow:0 1px 3px rgba(0,0,0,.08);padding:20px;margin:0 0 20px;min-width:0}
h1{font-size:1.4rem;line-height:1.3;margin:0 0 4px}
h2{font-size:1.1rem;margin:0 0 12px}
p{margin:0 0 12px;color:#4b5563}
.crumbs{font-size:.85rem;color:#4b5563;margin:0 0 8px}
a{color:#4338ca}
label{display:block;font-weight:600;font-size:.9rem;margin:14px 0 6px}
input[type=email],input[type=password],input[type=text],textarea{width:100%;max-width:560px;padding:9px 11px;font:inherit;border:1px solid #6b7280;border-radius:8px;background:#fff;color:inherit}
textarea{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.85rem}
input:focus-visible,textarea:focus-visible,button:focus-visible,summary:focus-visible,a:focus-visible{outline:3px solid #4f46e5;outline-offset:2px}
fieldset{border:0;padding:0;margin:14px 0 0;min-width:0}
legend{font-weight:600;font-size:.9rem;margin-bottom:4px}
.choice{display:flex;gap:8px;align-items:flex-start;font-weight:400;margin:6px 0}
.choice input{margin-top:4px;flex:none}
.choice code{font-size:.8rem;color:#374151}
button,summary.button{appearance:none;display:inline-block;padding:8px 14px;font:inherit;font-weight:600;line-height:1.4;border-radius:8px;border:1px solid transparent;cursor:pointer}
.primary{background:#4f46e5;color:#fff;margin-top:18px}
.primary:hover{background:#4338ca}
.secondary{background:#fff;color:#374151;border-color:#6b7280}
.danger{background:#fff;color:#b91c1c;border-color:#b91c1c}
button.danger-solid{background:#b91c1c;color:#fff}
details.confirm{margin:0 0 6px}
details.confirm summary{list-style:none}
details.confirm summary::-webkit-details-marker{display:none}
details.confirm[open] summary{background:#fef2f2}
.confirm-step{margin-top:8px;padding:10px 12px;border:1px solid #b91c1c;border-radius:8px;background:#fff;max-width:320px}
.confirm-step p{color:#1f2937;margin:0 0 8px}
.confirm-step form{margin:0}
.error{background:#fef2f2;color:#991b1b;border:1px solid #fecaca;border-radius:8px;padding:10px 12px;margin:0 0 16px}
.warning{background:#fffbeb;color:#92400e;border:1px solid #fde68a;border-radius:8px;padding:10px 12px;margin:0 0 16px}
.notice{background:#ecfdf5;color:#065f46;border:1px solid #a7f3d0;border-radius:8px;padding:10px 12px;margin:0 0 16px}
table{width:100%;border-collapse:collapse;font-size:.9rem}
th,td{text-align:left;vertical-align:top;padding:10px 8px;border-top:1px solid #e5e7eb}
th{font-size:.8rem;text-transform:uppercase;letter-spacing:.03em;color:#4b5563;border-top:0}
td ul{margin:0;padding:0;list-style:none}
td form{margin:0 0 6px}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.85rem;background:#f3f4f6;border-radius:4px;padding:1px 5px;overflow-wrap:anywhere;word-break:break-all}
dl{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:6px 16px;margin:0 0 12px}
dt{font-weight:600}
dd{margin:0;min-width:0}
.secret code{font-size:1rem;background:#fef3c7}
ul.sites,ul.apps{list-style:none;padding:0;margin:0}
ul.sites li{padding:8px 0;border-top:1px solid #e5e7eb}
ul.sites li:first-child{border-top:0}
ul.apps>li{padding:16px 0;border-top:1px solid #e5e7eb}
ul.apps>li:first-child{border-top:0;padding-top:0}
ul.apps h2{margin:0 0 2px}
ul.apps .meta{font-size:.9rem;margin:0 0 10px}
ul.scopes{margin:0;padding-left:1.1em}
.badge{display:inline-block;font-size:.8rem;font-weight:600;line-height:1.3;padding:1px 8px;border-radius:999px;border:1px solid}
.badge.ok{background:#ecfdf5;color:#065f46;border-color:#6ee7b7}
.badge.refused{background:#fffbeb;color:#92400e;border-color:#fcd34d}
.badge.error{background:#fef2f2;color:#991b1b;border-color:#fca5a5}
time{color:#4b5563;font-size:.85rem}
.latest{font-size:.85rem;margin:4px 0 0}
.latest-summary{color:#374151;overflow-wrap:anywhere}
.app-name{font-weight:600}
ol.trace{list-style:none;padding:0;margin:0}
ol.trace>li{padding:12px 0 12px 12px;border-top:1px solid #e5e7eb;border-left:4px solid #d1d5db}
ol.trace>li:first-child{border-top:0}
ol.trace>li.refused{border-left-color:#d97706}
ol.trace>li.error{border-left-color:#b91c1c}
ol.trace>li.ok{border-left-color:#059669}
ol.trace p{margin:0 0 4px;overflow-wrap:anywhere}
.entry-head{display:flex;flex-wrap:wrap;align-items:center;gap:4px 10px}
.summary{color:#1f2937}
.action{color:#1f2937}
.meta{font-size:.8rem;color:#4b5563}
.meta code{font-size:.75rem}
.empty{font-style:italic}
ol.steps{padding-left:1.3em;margin:0 0 12px}
ol.steps>li{margin:0 0 12px}
ol.steps p{margin:0 0 6px}
.long{overflow-wrap:anywhere;word-break:break-all;font-size:.85rem}
pre.cmd{margin:0;padding:10px 12px;background:#f3f4f6;border-radius:8px;white-space:pre-wrap;overflow-wrap:anywhere;word-break:break-all}
pre.cmd code{background:none;padding:0;font-size:.8rem;color:#1f2937}
ul.plain{list-style:none;margin:0;padding:0}
.visually-hidden{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
@media (max-width:720px){
  main{margin:16px auto;padding:0 8px}
  section{padding:16px}
  table.stack thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
  table.stack,table.stack tbody,table.stack tr,table.stack td{display:block;width:100%}
  table.stack tr{border-top:1px solid #e5e7eb;padding:8px 0}
  table.stack td{border:0;padding:4px 0}
  table.stack td::before{display:block;font-size:.75rem;font-weight:600;text-transform:uppercase;letter-spacing:.03em;color:#4b5563}
  dl{grid-template-columns:minmax(0,1fr);gap:2px}
  dd{margin-bottom:6px}
}
`;

export function layout(title: string, nonce: string, body: Html, header?: HeaderView, shell: Shell = ADMIN_SHELL, extraStyle = ''): string {
  const account = header
    ? html`<form method="post" action="${shell.signOutAction}"><input type="hidden" name="csrf" value="${header.csrf}"><span>${header.email}</span><button class="secondary" type="submit">Sign out</button></form>`
    : '';
  const all = header?.staff ? [...shell.links, { href: STAFF_HOME, label: 'All clients (staff)' }] : shell.links;
  const links = all.length > 0
    ? html`<nav aria-label="Other pages">${all.map((l) => html`<a href="${l.href}">${l.label}</a>`)}${account}</nav>`
    : account;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)} · ${escapeHtml(shell.brand)}</title>
<style nonce="${escapeHtml(nonce)}">${STYLE}${extraStyle}</style>
</head>
<body>
${html`<header><span class="brand">${shell.brand}</span>${links}</header>`.html}
<main>
${body.html}
</main>
</body>
</html>`;
}
