/**
 * HTML escaping and the page shell shared by every server-rendered page.
 * Pages are self-contained: no external assets, one inline stylesheet allowed by a nonce.
 *
 * @module
 */

const ESCAPES: Record<string, string> = {
  '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;',
};

/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"'`]/g, (c) => ESCAPES[c]!);
}

/** A pre-escaped HTML fragment. */
export interface Html {
  readonly html: string;
}

/** Tagged template that escapes every interpolated value unless it is already `Html`. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1]!;
  });
  return { html: out };
}

function render(value: unknown): string {
  if (value === undefined || value === null || value === false) return '';
  if (Array.isArray(value)) return value.map(render).join('');
  if (typeof value === 'object' && 'html' in (value as object)) return (value as Html).html;
  return escapeHtml(value);
}

const STYLE = `
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;padding:24px 16px;
  font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:#1f2937;background:#f3f4f6}
main{width:100%;max-width:420px;background:#fff;border-radius:12px;box-shadow:0 1px 3px rgba(0,0,0,.08),0 8px 24px rgba(0,0,0,.06);padding:32px 28px}
.brand{display:flex;align-items:center;gap:10px;margin-bottom:20px;color:#4f46e5;font-weight:700;letter-spacing:.01em}
.brand svg{width:28px;height:28px}
h1{font-size:1.35rem;line-height:1.3;margin:0 0 8px}
p{margin:0 0 16px;color:#4b5563}
label{display:block;font-weight:600;font-size:.9rem;margin:16px 0 6px}
input[type=email],input[type=password]{width:100%;padding:11px 12px;font-size:1rem;border:1px solid #d1d5db;border-radius:8px;background:#fff;color:inherit}
input:focus,button:focus,select:focus{outline:3px solid #c7d2fe;outline-offset:1px;border-color:#6366f1}
button{appearance:none;width:100%;padding:12px 16px;font-size:1rem;font-weight:600;border-radius:8px;border:1px solid transparent;cursor:pointer}
.primary{background:#4f46e5;color:#fff;margin-top:24px}
.primary:hover{background:#4338ca}
.secondary{background:#fff;color:#374151;border-color:#d1d5db;margin-top:10px}
.secondary:hover{background:#f9fafb}
.error{background:#fef2f2;color:#991b1b;border:1px solid #fecaca;border-radius:8px;padding:10px 12px;margin:16px 0 0}
.warning{background:#fffbeb;color:#92400e;border:1px solid #fde68a;border-radius:8px;padding:10px 12px;margin:0 0 16px}
.client{font-weight:700;color:#111827}
.host{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9rem;background:#f3f4f6;border-radius:4px;padding:1px 5px}
ul.scopes{list-style:none;margin:0 0 8px;padding:0;border:1px solid #e5e7eb;border-radius:8px}
ul.scopes li{padding:10px 12px;border-top:1px solid #e5e7eb}
ul.scopes li:first-child{border-top:0}
ul.scopes code{display:block;font-size:.8rem;color:#6b7280}
fieldset{border:0;padding:0;margin:16px 0 0}
legend{font-weight:600;font-size:.9rem;margin-bottom:6px}
.site{display:flex;gap:8px;align-items:center;padding:6px 0}
.muted{font-size:.85rem;color:#6b7280;margin-top:20px}
@media (max-width:480px){main{padding:24px 18px;border-radius:10px}}
`;

const LOGO = '<svg viewBox="0 0 24 24" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><path d="M22 10 12 5 2 10l10 5 10-5z"/><path d="M6 12v5c3 2 9 2 12 0v-5"/></svg>';

export function page(title: string, nonce: string, body: Html): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style nonce="${escapeHtml(nonce)}">${STYLE}</style>
</head>
<body>
<main>
<div class="brand">${LOGO}<span>Courses</span></div>
${body.html}
</main>
</body>
</html>`;
}
