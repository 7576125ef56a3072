/**
 * A school's brand on the pages: its name, an https logo and an accent colour. Values from
 * the host's SiteStore arrive at request time, so they are checked here, every time: an accent
 * colour is a hex colour or is ignored (it is written into the stylesheet, so nothing else may
 * reach it), a logo is an https URL or is ignored. The text on the accent colour is black or
 * white, whichever contrasts more (at least 4.6:1 for any colour, WCAG AA).
 *
 * @module
 */
import { BoundedMemo } from '../bounded-memo.ts';
import type { Site } from '../contracts.ts';

/** The brand a page shows; `accentColor` is a checked `#rrggbb`. */
export interface PageBrand {
  readonly name: string;
  /** an https URL; absent: the library's mark */
  readonly logoUrl?: string;
  readonly accentColor: string;
}

const HEX = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;

/** Whether `value` is a CSS hex colour `#rgb` or `#rrggbb` (the only accent colours accepted). */
export function isHexColor(value: unknown): value is string {
  return typeof value === 'string' && HEX.test(value);
}

/** Whether `value` is an absolute https URL without credentials, short enough for a page. */
export function isHttpsUrl(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > 2048) return false;
  const url = URL.parse(value);
  return url !== null && url.protocol === 'https:' && !url.username && !url.password && url.hostname !== '';
}

/** `#abc` → `#aabbcc`, lower case. */
export function normaliseHex(color: string): string {
  const hex = color.slice(1).toLowerCase();
  return `#${hex.length === 3 ? [...hex].map((c) => c + c).join('') : hex}`;
}

function luminance(color: string): number {
  const hex = normaliseHex(color).slice(1);
  const [r, g, b] = [0, 2, 4].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

/** The WCAG contrast ratio of two hex colours. */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

/** The text colour for a surface of `accent`: black or white, whichever contrasts more. */
export function textOn(accent: string): string {
  return contrastRatio(accent, '#ffffff') >= contrastRatio(accent, '#000000') ? '#ffffff' : '#000000';
}

/** The accent as a text colour on white when it is readable there (4.5:1), else the body text colour. */
export function accentAsText(accent: string): string {
  return contrastRatio(accent, '#ffffff') >= 4.5 ? normaliseHex(accent) : '#1f2937';
}

/** What to say about a rejected value (the logger says it once per site and value). */
export type BrandWarning = (message: string) => void;

/**
 * The brand for a page about `site`: its name, and its logo and accent colour when they are
 * valid; `fallback` for what the site does not set, or when there is no site.
 */
export function brandFor(site: Site | undefined, fallback: PageBrand, warn: BrandWarning): PageBrand {
  if (!site) return fallback;
  const { logoUrl, accentColor } = site.branding ?? {};
  if (logoUrl !== undefined && !isHttpsUrl(logoUrl)) {
    warn(`platform-auth: site ${JSON.stringify(site.id)} has a branding.logoUrl that is not an https URL; it is ignored`);
  }
  if (accentColor !== undefined && !isHexColor(accentColor)) {
    warn(`platform-auth: site ${JSON.stringify(site.id)} has a branding.accentColor that is not a hex colour (#rrggbb); it is ignored`);
  }
  const logo = isHttpsUrl(logoUrl) ? logoUrl : undefined;
  return {
    name: site.name || fallback.name,
    accentColor: isHexColor(accentColor) ? normaliseHex(accentColor) : fallback.accentColor,
    ...(logo ? { logoUrl: logo } : {}),
  };
}

/** The CSP source that lets the page load the brand's logo: its origin (never a path, which could carry `;`). */
export function logoSource(brand: PageBrand): string | undefined {
  return brand.logoUrl ? new URL(brand.logoUrl).origin : undefined;
}

/** Stylesheet lines by accent colour: one per site's colour, computed once (contrast takes powers). */
const brandStyles = new BoundedMemo<string, string>(1024);

/** The stylesheet lines that apply the brand (only checked hex colours reach them). */
export function brandStyle(brand: PageBrand): string {
  const accent = normaliseHex(brand.accentColor);
  return brandStyles.get(accent, () => `:root{--accent:${accent};--on-accent:${textOn(accent)};--accent-text:${accentAsText(accent)}}`);
}

/** Warns once per message: a site's bad value would otherwise be logged on every page view. */
export function warnOnce(log: (message: string) => void, limit = 1000): BrandWarning {
  const said = new Set<string>();
  return (message) => {
    if (said.has(message) || said.size >= limit) return;
    said.add(message);
    log(message);
  };
}
