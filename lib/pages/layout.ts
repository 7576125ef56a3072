/**
 * The page shell shared by every server-rendered page: doctype, `<html lang>`, the one
 * stylesheet (allowed by the response's CSP nonce), the brand line and `<main>`. Pages are
 * self-contained: nothing loads but the stylesheet and, when a site sets one, its https logo.
 *
 * @module
 */
import { brandStyle } from './branding.ts';
import type { PageBrand } from './branding.ts';
import { html } from './html.ts';
import type { Html } from './html.ts';

/** The library's own look: its name and accent when no site brands the page. */
export const DEFAULT_BRAND: PageBrand = Object.freeze({ name: 'Courses', accentColor: '#4f46e5' });

const STYLE = `
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;padding:24px 16px;
  font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:#1f2937;background:#f3f4f6}
main{width:100%;max-width:420px;background:#fff;border-radius:12px;box-shadow:0 1px 3px rgba(0,0,0,.08),0 8px 24px rgba(0,0,0,.06);padding:32px 28px;border-top:4px solid var(--accent)}
.brand{display:flex;align-items:center;gap:10px;margin-bottom:20px;color:var(--accent-text);font-weight:700;letter-spacing:.01em;overflow-wrap:anywhere}
.brand svg,.brand img{width:28px;height:28px;flex:none;object-fit:contain}
h1{font-size:1.35rem;line-height:1.3;margin:0 0 8px;overflow-wrap:anywhere}
p{margin:0 0 16px;color:#4b5563;overflow-wrap:anywhere}
label{display:block;font-weight:600;font-size:.9rem;margin:16px 0 6px}
input[type=email],input[type=password]{width:100%;padding:11px 12px;font-size:1rem;border:1px solid #6b7280;border-radius:8px;background:#fff;color:inherit}
input:focus,button:focus,select:focus{outline:3px solid #c7d2fe;outline-offset:1px;border-color:#6366f1}
button{appearance:none;width:100%;padding:12px 16px;font-size:1rem;font-weight:600;border-radius:8px;border:1px solid transparent;cursor:pointer}
.primary{background:var(--accent);color:var(--on-accent);margin-top:24px}
.primary:hover{filter:brightness(.92)}
.secondary{background:#fff;color:#374151;border-color:#9ca3af;margin-top:10px}
.secondary:hover{background:#f9fafb}
.error{background:#fef2f2;color:#991b1b;border:1px solid #fecaca;border-radius:8px;padding:10px 12px;margin:16px 0 0}
.warning{background:#fffbeb;color:#92400e;border:1px solid #fde68a;border-radius:8px;padding:10px 12px;margin:0 0 16px}
.client{font-weight:700;color:#111827}
.host{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9rem;background:#f3f4f6;border-radius:4px;padding:1px 5px;overflow-wrap:anywhere}
.trust{display:flex;flex-wrap:wrap;gap:6px 10px;align-items:baseline;margin:0 0 16px;font-size:.9rem;color:#4b5563}
.badge{display:inline-block;border-radius:999px;padding:2px 10px;font-size:.8rem;font-weight:700;border:1px solid}
.badge.verified{background:#ecfdf5;color:#065f46;border-color:#a7f3d0}
.badge.unverified{background:#fffbeb;color:#92400e;border-color:#fcd34d}
ul.scopes{list-style:none;margin:0 0 8px;padding:0;border:1px solid #e5e7eb;border-radius:8px}
ul.scopes li{padding:10px 12px;border-top:1px solid #e5e7eb;overflow-wrap:anywhere}
ul.scopes li:first-child{border-top:0}
ul.scopes code{display:block;font-size:.8rem;color:#4b5563}
fieldset{border:0;padding:0;margin:16px 0 0;min-width:0}
legend{font-weight:600;font-size:.9rem;margin-bottom:6px}
.site{display:flex;gap:8px;align-items:center;padding:6px 0}
.muted{font-size:.85rem;color:#4b5563;margin-top:20px}
.support{font-size:.8rem;color:#4b5563;margin:20px 0 0;overflow-wrap:anywhere}
.support code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace}
@media (max-width:480px){body{padding:12px 8px}main{padding:24px 18px;border-radius:10px}}
`;

const MARK = html`<svg viewBox="0 0 24 24" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><path d="M22 10 12 5 2 10l10 5 10-5z"/><path d="M6 12v5c3 2 9 2 12 0v-5"/></svg>`;

export interface DocumentView {
  readonly title: string;
  /** the BCP 47 language of the page, `<html lang>` */
  readonly lang: string;
  /** the CSP nonce of this response (its `style-src`) */
  readonly nonce: string;
  readonly brand: PageBrand;
  /** the content of `<main>`, after the brand line */
  readonly body: Html;
  /** more CSS, appended to the library's (a replacement template's own rules) */
  readonly style?: string;
}

/** A whole HTML document around `body`. */
export function renderDocument(view: DocumentView): Html {
  const { brand } = view;
  const mark = brand.logoUrl ? html`<img src="${brand.logoUrl}" alt="" width="28" height="28">` : MARK;
  // the stylesheet is trusted text (the library's, the brand's checked colours, the host's template)
  if (view.style?.includes('</')) throw new TypeError('a page template\'s style must not contain "</" (it would end the <style> element)');
  const style = { html: `${STYLE}${brandStyle(brand)}\n${view.style ?? ''}` };
  return html`<!doctype html>
<html lang="${view.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${view.title}</title>
<style nonce="${view.nonce}">${style}</style>
</head>
<body>
<main>
<div class="brand">${mark}<span>${brand.name}</span></div>
${view.body}
</main>
</body>
</html>`;
}

/** The English page with the library's own brand: the notice pages, a host's simple pages. */
export function page(title: string, nonce: string, body: Html): string {
  return renderDocument({ title, lang: 'en', nonce, brand: DEFAULT_BRAND, body }).html;
}
