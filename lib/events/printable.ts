/**
 * Strings a request chose (a `redirect_uri`, a `client_id` URL, an error description that
 * quotes a parameter) go into events, the per-client trace and, through them, into logs and
 * a staff page. Control characters in them are written as `\uXXXX`, so a CR/LF cannot start a
 * forged line in any of those; where a length is given, it is cut to it.
 *
 * @module
 */

/** C0 and C1 controls, DEL, and the Unicode line and paragraph separators. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
// the same, for replace(); a global regex's test() would move its lastIndex between calls
const CONTROLS = new RegExp(CONTROL.source, 'g');

const escaped = (char: string) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** `value` with its control characters escaped, cut to `max` characters first (if given). */
export function printable(value: string, max = Infinity): string {
  const cut = value.length > max ? value.slice(0, max) : value;
  return CONTROL.test(cut) ? cut.replace(CONTROLS, escaped) : cut;
}
