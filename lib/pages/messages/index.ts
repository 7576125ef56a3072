/**
 * The message catalogue: the page strings in every language the pages speak, the choice of
 * language for a request (`ui_locales` first, then `Accept-Language`), and the translator
 * the templates use.
 *
 * @module
 */
import { BoundedMemo } from '../../bounded-memo.ts';
import { escapeHtml } from '../html.ts';
import type { Html } from '../html.ts';
import { de } from './de.ts';
import { en } from './en.ts';
import type { MessageCatalogue, MessageKey } from './types.ts';

export type { MessageCatalogue, MessageKey } from './types.ts';

/** The languages of the built-in catalogue, the first being the fallback. */
export const LOCALES = Object.freeze({ en, de } as const satisfies Record<string, MessageCatalogue>);

export type Locale = keyof typeof LOCALES;

export const DEFAULT_LOCALE: Locale = 'en';

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && Object.hasOwn(LOCALES, value);
}

/** The primary language subtag of a BCP 47 tag, lower-cased (`de-AT` → `de`). */
function language(tag: string): string {
  return tag.trim().split('-')[0]!.toLowerCase();
}

/**
 * `Accept-Language` ranges by preference (RFC 9110 §12.5.4); `q=0` and `*` dropped. The
 * weight's name is case-insensitive (§12.4.2): `Q=0.1` is a weight too.
 */
function acceptedLanguages(header: string): string[] {
  return header.split(',')
    .map((part, index) => {
      const [range = '', ...params] = part.split(';');
      const q = params.map((p) => p.trim()).find((p) => /^q=/i.test(p));
      const weight = q ? Number(q.slice(2)) : 1;
      return { range: range.trim(), weight: Number.isFinite(weight) ? weight : 0, index };
    })
    .filter((r) => r.range && r.range !== '*' && r.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.index - b.index)
    .map((r) => r.range);
}

/**
 * The language of a page: the first of the request's `ui_locales` (OpenID Connect Core §3.1.2.1,
 * space-separated, by preference) the catalogue has, then the first of `Accept-Language`,
 * then `fallback`. Matching is by primary language: `de-CH` gets `de`.
 */
export function chooseLocale(
  uiLocales: unknown, acceptLanguage: string | undefined, available: readonly Locale[], fallback: Locale,
): Locale {
  const wanted = [
    ...(typeof uiLocales === 'string' ? uiLocales.split(' ').filter(Boolean) : []),
    ...acceptedLanguages(acceptLanguage ?? ''),
  ];
  for (const tag of wanted) {
    const found = available.find((l) => l === language(tag));
    if (found) return found;
  }
  return fallback;
}

/** A value for a `{name}` placeholder: text (escaped) or markup the caller built with `html`. */
export type MessageParam = string | number | Html;

/** Translates into one language; `t` gives markup, `text` plain text (for `<title>`). */
export interface Translator {
  readonly locale: Locale;
  /** The message as markup: its words escaped, each `{name}` replaced by `params.name` (escaped unless `Html`). */
  t(key: MessageKey, params?: Readonly<Record<string, MessageParam>>): Html;
  /** The message as plain text, `{name}` replaced by the text of `params.name`. */
  text(key: MessageKey, params?: Readonly<Record<string, string | number>>): string;
  /** What a scope lets the client do, in this language; the scope's name when unknown. */
  scope(name: string): string;
}

const PLACEHOLDER = /\{([a-zA-Z]+)\}/g;

export function createTranslator(locale: Locale): Translator {
  const catalogue: MessageCatalogue = LOCALES[locale];
  // a message without placeholders is the same markup every time: escaped once
  const plain = new BoundedMemo<MessageKey, Html>(Object.keys(catalogue).length);
  return Object.freeze({
    locale,
    t(key: MessageKey, params?: Readonly<Record<string, MessageParam>>): Html {
      if (params === undefined) return plain.get(key, () => Object.freeze(translate(catalogue[key], {})));
      return translate(catalogue[key], params);
    },
    text(key: MessageKey, params: Readonly<Record<string, string | number>> = {}): string {
      return catalogue[key].replace(PLACEHOLDER, (whole, name: string) => String(params[name] ?? whole));
    },
    scope(name: string): string {
      return catalogue.scopes[name] ?? name;
    },
  });
}

const translators = new BoundedMemo<Locale, Translator>(Object.keys(LOCALES).length);

/** The translator of `locale`, made once: translators hold nothing of a request. */
export function translatorFor(locale: Locale): Translator {
  return translators.get(locale, () => createTranslator(locale));
}

/** `template` as markup: its words escaped, each `{name}` replaced by `params.name` (escaped unless `Html`). */
function translate(template: string, params: Readonly<Record<string, MessageParam>>): Html {
  let out = '';
  let last = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    out += escapeHtml(template.slice(last, match.index));
    const value = params[match[1]!];
    out += typeof value === 'object' ? value.html : escapeHtml(value ?? match[0]);
    last = match.index + match[0].length;
  }
  return { html: out + escapeHtml(template.slice(last)) };
}
