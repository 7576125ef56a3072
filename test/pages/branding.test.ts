/**
 * A site's brand is checked on every page: hex accent colours only (they are written into the
 * stylesheet), https logos only, and the text on the accent always readable (WCAG AA).
 */
import {
  accentAsText, brandFor, brandStyle, contrastRatio, isHexColor, isHttpsUrl, logoSource, textOn,
} from '../../lib/pages/branding.ts';
import { DEFAULT_BRAND } from '../../lib/pages/layout.ts';
import { resolvePagesOptions } from '../../lib/pages/options.ts';
import { ConfigurationError } from '../../lib/errors.ts';

it('accepts only hex colours as accent', () => {
  for (const ok of ['#fff', '#0A7E3B', '#abcdef']) expect(isHexColor(ok)).toBe(true);
  for (const bad of ['red', '#ff', '#abcd', '#12345g', '#fff;background:url(x)', '#fff}body{display:none', 'rgb(1,2,3)', ' #fff', 12]) {
    expect(isHexColor(bad)).toBe(false);
  }
});

it('accepts only https logo URLs without credentials', () => {
  expect(isHttpsUrl('https://cdn.example/logo.svg')).toBe(true);
  for (const bad of ['http://cdn.example/logo.svg', 'javascript:alert(1)', 'data:image/svg+xml,<svg/>', 'https://u:p@cdn.example/l.png', '//cdn.example/l.png', 'https://x.example/' + 'a'.repeat(2100)]) {
    expect(isHttpsUrl(bad)).toBe(false);
  }
});

describe('brandFor', () => {
  it('uses the site name, and its logo and accent when valid', () => {
    const warnings: string[] = [];
    const brand = brandFor({ id: 's', name: 'Demo School', branding: { logoUrl: 'https://cdn.example/s.png', accentColor: '#0A7' } }, DEFAULT_BRAND, (m) => warnings.push(m));
    expect(brand).toEqual({ name: 'Demo School', logoUrl: 'https://cdn.example/s.png', accentColor: '#00aa77' });
    expect(warnings).toEqual([]);
  });

  it('ignores and reports invalid values, keeping the fallback look', () => {
    const warnings: string[] = [];
    const brand = brandFor({ id: 's', name: 'Evil', branding: { logoUrl: 'http://x.example/l.png', accentColor: 'red;}body{display:none' } }, DEFAULT_BRAND, (m) => warnings.push(m));
    expect(brand).toEqual({ name: 'Evil', accentColor: DEFAULT_BRAND.accentColor });
    expect(brandStyle(brand)).not.toContain('display');
    expect(warnings).toHaveLength(2);
    expect(warnings.join('\n')).toMatch(/logoUrl.*https/);
    expect(warnings.join('\n')).toMatch(/accentColor.*hex/);
  });

  it('has no site: the fallback', () => {
    expect(brandFor(undefined, DEFAULT_BRAND, () => { throw new Error('no warning expected'); })).toBe(DEFAULT_BRAND);
  });
});

it('puts black or white text on any accent, at least 4.5:1', () => {
  for (const accent of ['#ffff00', '#4f46e5', '#777777', '#00ff00', '#000000', '#ffffff', '#767676', '#ff0000']) {
    expect(contrastRatio(accent, textOn(accent))).toBeGreaterThanOrEqual(4.5);
    expect(contrastRatio(accentAsText(accent), '#ffffff')).toBeGreaterThanOrEqual(4.5);
  }
  expect(textOn('#ffff00')).toBe('#000000');
  expect(textOn('#4f46e5')).toBe('#ffffff');
});

it('allows the logo by its origin only, so a path cannot add a CSP directive', () => {
  expect(logoSource({ name: 'S', accentColor: '#000000', logoUrl: 'https://cdn.example/a;script-src%20*/l.png' })).toBe('https://cdn.example');
  expect(logoSource(DEFAULT_BRAND)).toBeUndefined();
});

it('checks the configured brand at start-up', () => {
  expect(resolvePagesOptions({ brand: { name: 'Learn', accentColor: '#0a7' } }).brand).toEqual({ name: 'Learn', accentColor: '#00aa77' });
  expect(() => resolvePagesOptions({ brand: { accentColor: 'teal' } })).toThrow(ConfigurationError);
  expect(() => resolvePagesOptions({ brand: { accentColor: 'teal' } })).toThrow(/options\.pages\.brand\.accentColor must be a hex colour/);
  expect(() => resolvePagesOptions({ brand: { logoUrl: 'http://x.example/l.png' } })).toThrow(/options\.pages\.brand\.logoUrl must be an https URL/);
  expect(() => resolvePagesOptions({ locales: ['fr'] })).toThrow(/options\.pages\.locales contains "fr"/);
  expect(() => resolvePagesOptions({ templates: { login: 'x' } })).toThrow(/options\.pages\.templates\.login/);
  expect(() => resolvePagesOptions({ templates: { signup: () => ({ html: '' }) } })).toThrow(/signup/);
  expect(resolvePagesOptions(undefined).locales).toEqual(['en', 'de']);
});
