/**
 * `options.pages` (the look, languages and templates of the library's pages) and
 * `options.signIn` (who signs people in: the library's page, the host's session, the host's
 * own sign-in page): what they accept, their defaults, and the one place they are checked.
 *
 * @module
 */
import type { Context } from 'koa';

import { checkFunction, checkKnownKeys, checkObject, checkStringList, fail, isPlainObject, mustBe, show } from '../config/check.ts';
import type { HostSignIn, SignInRequest } from '../contracts.ts';
import { isHexColor, isHttpsUrl, normaliseHex } from './branding.ts';
import type { PageBrand } from './branding.ts';
import { DEFAULT_BRAND } from './layout.ts';
import { LOCALES, isLocale } from './messages/index.ts';
import type { Locale } from './messages/index.ts';
import type { PageName, PageTemplates } from './templates.ts';

/** The defaults of `options.pages`, written once: the validator reads them, the TSDoc points here. */
export const PAGES_DEFAULTS = Object.freeze({
  brand: DEFAULT_BRAND,
  locales: Object.freeze(Object.keys(LOCALES)) as readonly Locale[],
});

/** The look of the pages no site brands (operator sign-in before the site is known, error pages). */
export interface BrandOptions {
  /**
   * The name beside the logo.
   * @default {@link PAGES_DEFAULTS}.brand.name
   */
  name?: string;
  /**
   * An `https:` URL of the logo.
   * @default the library's mark (an inline drawing)
   */
  logoUrl?: string;
  /**
   * The accent colour (buttons, the top border, the name), `#rrggbb` or `#rgb`.
   * @default {@link PAGES_DEFAULTS}.brand.accentColor
   */
  accentColor?: string;
}

/** The library's pages: sign-in, consent and notices (refusals, expired pages, error pages). */
export interface PagesOptions {
  /** The look when no site brands the page; each site's own comes from `sites` (`Site.branding`). */
  brand?: BrandOptions;
  /**
   * The languages the pages may be shown in (built in: `en`, `de`), the first being the one
   * used when neither `ui_locales` nor `Accept-Language` names another.
   * @default {@link PAGES_DEFAULTS}.locales
   */
  locales?: Locale[];
  /**
   * Replacements for the page templates (`login`, `consent`, `notice`), each a function
   * `(data, kit) => Html` that must build its markup with `kit.html` (values escaped) and may
   * use `kit.layout`; the library still sets the CSP, the CSRF tokens and the escaping.
   * README "Replacing templates".
   * @default the library's templates
   */
  templates?: PageTemplates;
}

export interface ResolvedPagesOptions {
  readonly brand: PageBrand;
  readonly locales: readonly Locale[];
  readonly templates: PageTemplates;
}

/**
 * The host's session, read for a sign-in the library is waiting for: the account signed in to
 * the host in this browser (`ctx` is the request's Koa context, with its cookies), or
 * `undefined`. Not asked when the client wants a fresh sign-in (`request.fresh`).
 */
export type HostSessionResolver = (ctx: Context, request: SignInRequest) => Promise<HostSignIn | undefined> | HostSignIn | undefined;

/**
 * Who signs people in. By default the library's email + password page, checked with
 * `accounts.authenticate`. A host with its own accounts, sessions, SSO or MFA uses its
 * session, its own sign-in page, or both (README "Sign-in options").
 */
export interface SignInOptions {
  /**
   * The account already signed in to the host in this browser, if any: such a person goes
   * straight to consent. Asked on every sign-in the library waits for, unless the client wants
   * a fresh one (`prompt=login`); a session older than the request's `max_age` is not used.
   * @default none: only the library's own sign-in session counts
   */
  session?: HostSessionResolver;
  /**
   * The host's own sign-in page, shown instead of the library's: a path (`/login`) or a URL on
   * `baseUrl`'s origin. The library redirects there with `return_to` (its page for this
   * sign-in) and, when the client sent them, `prompt=login`, `max_age`, `login_hint` and
   * `ui_locales`; the host signs the person in and calls
   * `auth.interactions.finishSignIn(ctx, accountId)`.
   * @default none: the library's sign-in page
   */
  loginUrl?: string;
  /**
   * The `acr` values (authentication context classes) the host's sign-ins may carry
   * (`HostSignIn.acr`, from `signIn.session` or `finishSignIn`), published as discovery's
   * `acr_values_supported`; the ID token carries the sign-in's `acr`. A sign-in with another
   * `acr` is refused as a host's mistake, like a bad `authTime`.
   * @default none: a host's sign-in carries no `acr`
   */
  acrValues?: readonly string[];
}

export interface ResolvedSignInOptions {
  readonly session: HostSessionResolver | undefined;
  /** absolute, on baseUrl's origin */
  readonly loginUrl: string | undefined;
  readonly acrValues: readonly string[];
}

const PAGE_NAMES: readonly PageName[] = ['login', 'consent', 'notice'];

function checkBrand(value: unknown): PageBrand {
  const name = 'options.pages.brand';
  const given = checkObject<BrandOptions>(name, value, 'an object like { name, logoUrl, accentColor }') ?? {};
  checkKnownKeys(name, given, ['name', 'logoUrl', 'accentColor']);
  const fallback = PAGES_DEFAULTS.brand;
  if (given.name !== undefined && (typeof given.name !== 'string' || !given.name.trim())) mustBe(`${name}.name`, 'a non-empty string', given.name);
  if (given.logoUrl !== undefined && !isHttpsUrl(given.logoUrl)) mustBe(`${name}.logoUrl`, 'an https URL without credentials', given.logoUrl);
  if (given.accentColor !== undefined && !isHexColor(given.accentColor)) mustBe(`${name}.accentColor`, 'a hex colour like "#4f46e5" (#rrggbb or #rgb)', given.accentColor);
  return Object.freeze({
    name: given.name?.trim() ?? fallback.name,
    accentColor: normaliseHex(given.accentColor ?? fallback.accentColor),
    ...(given.logoUrl !== undefined ? { logoUrl: given.logoUrl } : {}),
  });
}

function checkLocales(value: unknown): readonly Locale[] {
  const name = 'options.pages.locales';
  if (value === undefined) return PAGES_DEFAULTS.locales;
  const known = Object.keys(LOCALES).map((l) => JSON.stringify(l)).join(', ');
  if (!Array.isArray(value) || value.length === 0) mustBe(name, `a non-empty array of languages from ${known}`, value);
  for (const locale of value) {
    if (!isLocale(locale)) fail(`${name} contains ${show(locale)}, which has no message catalogue; the pages speak ${known}`);
  }
  return Object.freeze([...new Set(value as Locale[])]);
}

function checkTemplates(value: unknown): PageTemplates {
  const name = 'options.pages.templates';
  const given = checkObject<PageTemplates>(name, value, 'an object like { login, consent, notice } of template functions') ?? {};
  checkKnownKeys(name, given, PAGE_NAMES, 'template');
  for (const page of PAGE_NAMES) checkFunction(`${name}.${page}`, given[page], '(data, kit) => Html');
  return Object.freeze({ ...given });
}

export function resolvePagesOptions(value: unknown): ResolvedPagesOptions {
  const given = checkObject<PagesOptions>('options.pages', value, 'an object like { brand, locales, templates }') ?? {};
  checkKnownKeys('options.pages', given, ['brand', 'locales', 'templates']);
  return Object.freeze({
    brand: checkBrand(given.brand),
    locales: checkLocales(given.locales),
    templates: checkTemplates(given.templates),
  });
}

/** `loginUrl` as an absolute URL on `baseUrl`'s origin (the finishing cookie is sent only there). */
function checkLoginUrl(value: unknown, baseUrl: string): string | undefined {
  const name = 'options.signIn.loginUrl';
  if (value === undefined) return undefined;
  const hint = `a path such as "/login" or a URL on ${baseUrl}`;
  // a path, or an absolute URL whose origin is baseUrl's however it is spelt (case, default port)
  if (typeof value !== 'string' || (!value.startsWith('/') && !URL.canParse(value)) || value.startsWith('//')) mustBe(name, hint, value);
  const url = URL.parse(value, baseUrl);
  if (!url || url.origin !== baseUrl || url.hash) mustBe(name, `${hint}, without a fragment`, value);
  return url.href;
}

export function resolveSignInOptions(value: unknown, baseUrl: string): ResolvedSignInOptions {
  const given = checkObject<SignInOptions>('options.signIn', value, 'an object like { session, loginUrl }') ?? {};
  if (!isPlainObject(given)) mustBe('options.signIn', 'an object', value);
  checkKnownKeys('options.signIn', given, ['session', 'loginUrl', 'acrValues']);
  return Object.freeze({
    session: checkFunction<HostSessionResolver>('options.signIn.session', given.session, '(ctx, request) => HostSignIn | undefined'),
    loginUrl: checkLoginUrl(given.loginUrl, baseUrl),
    acrValues: Object.freeze([...new Set(checkStringList('options.signIn.acrValues', given.acrValues, []))]),
  });
}
