/**
 * HTML escaping: the `html` tagged template every page is written with. The page shell is
 * ./layout.ts.
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
