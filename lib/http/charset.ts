/**
 * Whether a JSON `Content-Type` says UTF-8 or no charset at all: JSON bodies are read as UTF-8
 * (JSON exchanged between systems is UTF-8, RFC 8259 §8.1), so a body in another charset
 * would be misread, and what is stored from it corrupted (a Latin-1 `é` became U+FFFD). The
 * charset's name is case-insensitive and may be quoted (RFC 9110 §8.3.2, §5.6.6); only
 * `utf-8` names UTF-8 here. Used by `/mcp`, the Account API and registration.
 *
 * @module
 */

/** `true` when `contentType` has no charset parameter, or only `charset=utf-8`. */
export function isUtf8Charset(contentType: string | null | undefined): boolean {
  for (const parameter of (contentType ?? '').split(';').slice(1)) {
    const at = parameter.indexOf('=');
    if (at === -1 || parameter.slice(0, at).trim().toLowerCase() !== 'charset') continue;
    const value = parameter.slice(at + 1).trim();
    const unquoted = value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
    if (unquoted.toLowerCase() !== 'utf-8') return false;
  }
  return true;
}

/** What an OAuth endpoint that takes JSON says to a body in another charset. */
export const UTF8_JSON_ONLY = 'the request body must be UTF-8 JSON: leave out the charset of Content-Type, or make it utf-8';
