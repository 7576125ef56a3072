/**
 * A wait in words on a 429 page (the sign-in throttle's, the authorization rate's), coarse on
 * purpose: the same for every caller at a given moment, so the words reveal nothing about an
 * account or an address.
 *
 * @module
 */
import type { Translator } from './messages/index.ts';

export function waitWords(translator: Translator, seconds: number): string {
  return seconds <= 60
    ? translator.text('notice.throttled.minute')
    : translator.text('notice.throttled.minutes', { minutes: Math.ceil(seconds / 60) });
}
