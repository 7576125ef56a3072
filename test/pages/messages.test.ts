/**
 * The message catalogue: every language complete (each string with its English original's
 * placeholders, every scope described), the language chosen from `ui_locales` then
 * `Accept-Language`, and translations escaped where they are markup.
 */
import { de } from '../../lib/pages/messages/de.ts';
import { en } from '../../lib/pages/messages/en.ts';
import { LOCALES, chooseLocale, createTranslator, translatorFor } from '../../lib/pages/messages/index.ts';
import type { MessageKey } from '../../lib/pages/messages/index.ts';
import { html } from '../../lib/pages/html.ts';
import { SCOPE_NAMES, findScope } from '../../lib/scopes/catalogue.ts';

const placeholders = (text: string) => [...text.matchAll(/\{([a-zA-Z]+)\}/g)].map((m) => m[1]).sort();
const keys = Object.keys(en).filter((k) => k !== 'scopes') as MessageKey[];

describe.each(Object.entries(LOCALES))('the %s catalogue', (_locale, catalogue) => {
  it('has every key of the English one, with the same placeholders, and no other', () => {
    expect(Object.keys(catalogue).sort()).toEqual(Object.keys(en).sort());
    for (const key of keys) {
      expect({ key, placeholders: placeholders(catalogue[key]) }).toEqual({ key, placeholders: placeholders(en[key]) });
      expect(catalogue[key].trim()).not.toBe('');
    }
  });

  it('describes exactly the scopes of the scope catalogue', () => {
    expect(Object.keys(catalogue.scopes).sort()).toEqual([...SCOPE_NAMES].sort());
    for (const name of SCOPE_NAMES) expect(catalogue.scopes[name]!.trim()).not.toBe('');
  });
});

it('is a real translation, not a copy of the English', () => {
  const same = keys.filter((k) => de[k] === en[k]);
  expect(same).toEqual([]);
  expect(en.scopes['courses:read']).toBe(findScope('courses:read')!.description);
  expect(de.scopes['courses:read']).toBe('Kurse lesen');
});

describe('chooseLocale', () => {
  const all = ['en', 'de'] as const;
  it('takes the first of ui_locales the catalogue has, by primary language', () => {
    expect(chooseLocale('fr-CA de-AT en', 'en', all, 'en')).toBe('de');
    expect(chooseLocale('en de', 'de', all, 'en')).toBe('en');
  });

  it('falls back to Accept-Language by weight, then to the default', () => {
    expect(chooseLocale(undefined, 'fr;q=1, de-DE;q=0.8, en;q=0.5', all, 'en')).toBe('de');
    expect(chooseLocale('fr', 'en;q=0.2, de;q=0.9', all, 'en')).toBe('de');
    expect(chooseLocale(undefined, 'fr, *;q=0.5, de;q=0', all, 'en')).toBe('en');
    expect(chooseLocale(undefined, undefined, all, 'de')).toBe('de');
  });

  it('reads the weight\'s name case-insensitively (RFC 9110 §12.4.2): Q=0.1 is a low weight, Q=0 a refusal', () => {
    expect(chooseLocale(undefined, 'de;Q=0.1, en;q=0.9', all, 'de')).toBe('en');
    expect(chooseLocale(undefined, 'de;Q=0, en;q=0.1', all, 'de')).toBe('en');
  });

  it('offers only the configured languages', () => {
    expect(chooseLocale('de', 'de', ['en'], 'en')).toBe('en');
  });
});

describe('the translator', () => {
  it('escapes the words and text parameters, and keeps markup built with html', () => {
    const { t, text } = createTranslator('en');
    expect(t('consent.headingSite', { site: '<School & Co>', client: html`<span class="client">${'A"pp'}</span>` }).html)
      .toBe('&lt;School &amp; Co&gt;: <span class="client">A&quot;pp</span> wants to access your account');
    expect(text('notice.throttled.minutes', { minutes: 3 })).toBe('about 3 minutes');
  });

  it('answers in German', () => {
    const { t, scope } = createTranslator('de');
    expect(t('login.heading').html).toBe('Anmelden');
    expect(scope('account:read')).toMatch(/^Ihr eigenes Konto/);
    expect(scope('unknown:scope')).toBe('unknown:scope');
  });

  it('is made once per language, and gives a message without parameters the same escaped markup each time', () => {
    expect(translatorFor('de')).toBe(translatorFor('de'));
    expect(translatorFor('en')).not.toBe(translatorFor('de'));
    const { t } = translatorFor('en');
    const first = t('login.heading');
    expect(first.html).toBe('Sign in');
    expect(t('login.heading')).toBe(first);
    // a message with a placeholder, asked for without parameters, keeps the placeholder (escaped words around it)
    expect(t('login.toContinue').html).toBe(en['login.toContinue']);
    expect(t('login.toContinue', { client: 'A & B' }).html).toBe(en['login.toContinue'].replace('{client}', 'A &amp; B'));
  });
});
