/**
 * The admin area's page shell. The library's sign-in shell (interactions/html.ts) is a
 * narrow card; this one is wide enough for a table, with the same look and the same rule:
 * no external assets, one stylesheet allowed by the CSP nonce, no script at all.
 *
 * @module
 */
import { escapeHtml, html } from '../../../lib/index.ts';
import type { Html } from '../../../lib/index.ts';

export const ADMIN_HOME = '/admin';
export const SIGN_IN_ACTION = '/admin/sign-in';
export const SIGN_OUT_ACTION = '/admin/sign-out';

/** Who is signed in, for the header's sign-out form. */
export interface HeaderView {
  readonly email: string;
  readonly csrf: string;
}

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:#1f2937;background:#f3f4f6}
header{display:flex;align-items:center;justify-content:space-between;gap:16px;flex-wrap:wrap;padding:12px 24px;background:#fff;border-bottom:1px solid #e5e7eb}
header .brand{color:#4f46e5;font-weight:700}
header form{display:flex;align-items:center;gap:10px;margin:0;color:#4b5563;font-size:.9rem}
main{max-width:980px;margin:24px auto;padding:0 16px}
section{background:#fff;border-radius:12px;box-shadow:0 1px 3px rgba(0,0,0,.08);padding:24px;margin:0 0 20px}
h1{font-size:1.4rem;margin:0 0 4px}
h2{font-size:1.1rem;margin:0 0 12px}
p{margin:0 0 12px;color:#4b5563}
.crumbs{font-size:.85rem;color:#6b7280;margin:0 0 8px}
a{color:#4338ca}
label{display:block;font-weight:600;font-size:.9rem;margin:14px 0 6px}
input[type=email],input[type=password],input[type=text],textarea{width:100%;max-width:560px;padding:9px 11px;font:inherit;border:1px solid #d1d5db;border-radius:8px;background:#fff;color:inherit}
textarea{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.85rem}
input:focus,textarea:focus,button:focus{outline:3px solid #c7d2fe;outline-offset:1px}
fieldset{border:0;padding:0;margin:14px 0 0}
legend{font-weight:600;font-size:.9rem;margin-bottom:4px}
.choice{display:flex;gap:8px;align-items:flex-start;font-weight:400;margin:6px 0}
.choice code{font-size:.8rem;color:#6b7280}
button{appearance:none;padding:8px 14px;font:inherit;font-weight:600;border-radius:8px;border:1px solid transparent;cursor:pointer}
.primary{background:#4f46e5;color:#fff;margin-top:18px}
.secondary{background:#fff;color:#374151;border-color:#d1d5db}
.danger{background:#fff;color:#b91c1c;border-color:#fecaca}
.error{background:#fef2f2;color:#991b1b;border:1px solid #fecaca;border-radius:8px;padding:10px 12px;margin:0 0 16px}
.warning{background:#fffbeb;color:#92400e;border:1px solid #fde68a;border-radius:8px;padding:10px 12px;margin:0 0 16px}
.notice{background:#ecfdf5;color:#065f46;border:1px solid #a7f3d0;border-radius:8px;padding:10px 12px;margin:0 0 16px}
table{width:100%;border-collapse:collapse;font-size:.9rem}
th,td{text-align:left;vertical-align:top;padding:10px 8px;border-top:1px solid #e5e7eb}
th{font-size:.8rem;text-transform:uppercase;letter-spacing:.03em;color:#6b7280;border-top:0}
td ul{margin:0;padding:0;list-style:none}
td form{margin:0 0 6px}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.85rem;background:#f3f4f6;border-radius:4px;padding:1px 5px;word-break:break-all}
dl{display:grid;grid-template-columns:max-content 1fr;gap:6px 16px;margin:0 0 12px}
dt{font-weight:600}
dd{margin:0}
.secret code{font-size:1rem;background:#fef3c7}
ul.sites{list-style:none;padding:0;margin:0}
ul.sites li{padding:8px 0;border-top:1px solid #e5e7eb}
ul.sites li:first-child{border-top:0}
`;

export function layout(title: string, nonce: string, body: Html, header?: HeaderView): string {
  const account = header
    ? html`<form method="post" action="${SIGN_OUT_ACTION}"><input type="hidden" name="csrf" value="${header.csrf}"><span>${header.email}</span><button class="secondary" type="submit">Sign out</button></form>`
    : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)} · Courses admin</title>
<style nonce="${escapeHtml(nonce)}">${STYLE}</style>
</head>
<body>
${html`<header><span class="brand">Courses admin</span>${account}</header>`.html}
<main>
${body.html}
</main>
</body>
</html>`;
}
