/**
 * The shape of a message catalogue: every key of the English one, plus the descriptions of
 * every scope in the scope catalogue. A language is complete or does not compile.
 *
 * @module
 */
import type { en } from './en.ts';

/** The key of a page string, e.g. `login.title`. */
export type MessageKey = Exclude<keyof typeof en, 'scopes'>;

export type MessageCatalogue = { readonly [K in MessageKey]: string } & {
  /** scope name → what the consent page says the client may do with it */
  readonly scopes: Readonly<Record<string, string>>;
};
