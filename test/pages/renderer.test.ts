/**
 * The page of one response: its language from `ui_locales` then `Accept-Language` (remembered
 * per header, so the choice must follow each request's own header), a fresh CSP nonce per
 * page, and the brand's stylesheet per accent colour.
 */
import type { Context } from 'koa';

import { brandStyle } from '../../lib/pages/branding.ts';
import { createNonce } from '../../lib/pages/headers.ts';
import { resolvePagesOptions } from '../../lib/pages/options.ts';
import { createPageRenderer } from '../../lib/pages/renderer.ts';

const quiet = { info() {}, warn() {}, error() {} };

/** Just what the renderer reads and writes of a Koa context. */
function fakeContext(acceptLanguage: string) {
  const headers: Record<string, string> = {};
  const ctx = {
    get: (name: string) => (name.toLowerCase() === 'accept-language' ? acceptLanguage : ''),
    set: (name: string, value: string) => { headers[name] = value; },
    status: 0,
    body: '',
    type: '',
  };
  return { ctx: ctx as unknown as Context, headers };
}

describe('the page renderer', () => {
  const renderer = createPageRenderer(resolvePagesOptions({ locales: ['en', 'de'] }), quiet);

  it('speaks each request\'s language, whatever the requests before it asked for', () => {
    const asked = ['de-DE,de;q=0.9', 'en-US,en;q=0.9', 'de-DE,de;q=0.9', 'fr;q=1, de;q=0.5', 'fr', 'en-US,en;q=0.9'];
    expect(asked.map((header) => renderer.for(fakeContext(header).ctx).translator.locale)).toEqual(['de', 'en', 'de', 'de', 'en', 'en']);
    // ui_locales first, also for a header seen before
    expect(renderer.for(fakeContext('de-DE,de;q=0.9').ctx, { uiLocales: 'en' }).translator.locale).toBe('en');
    expect(renderer.for(fakeContext('de-DE,de;q=0.9').ctx, { uiLocales: 'fr de' }).translator.locale).toBe('de');
    expect(renderer.for(fakeContext('en').ctx, { uiLocales: 'de' }).translator.locale).toBe('de');
  });

  it('chooses for a header too long to remember, each time', () => {
    const long = `${'x-private;q=0.1, '.repeat(60)}de;q=0.9`;
    expect(renderer.for(fakeContext(long).ctx).translator.locale).toBe('de');
    expect(renderer.for(fakeContext(long).ctx, { uiLocales: 'en' }).translator.locale).toBe('en');
  });

  it('still chooses right after forgetting what it remembered', () => {
    for (let i = 0; i < 600; i += 1) renderer.for(fakeContext(`x-${i}, de;q=0.${(i % 9) + 1}`).ctx);
    expect(renderer.for(fakeContext('en-GB').ctx).translator.locale).toBe('en');
    expect(renderer.for(fakeContext('de-CH').ctx).translator.locale).toBe('de');
  });

  it('gives every page its own nonce, the one its CSP allows', () => {
    const nonces = new Set<string>();
    for (let i = 0; i < 300; i += 1) {
      const { ctx, headers } = fakeContext('en');
      const page = renderer.for(ctx);
      page.notice(200, { title: 'T', message: 'M' });
      const csp = headers['Content-Security-Policy']!;
      expect(csp).toContain(`style-src 'nonce-${page.kit.nonce}'`);
      expect(String(ctx.body)).toContain(`<style nonce="${page.kit.nonce}">`);
      nonces.add(page.kit.nonce);
    }
    expect(nonces.size).toBe(300);
  });
});

describe('createNonce', () => {
  it('is 16 random bytes, never the same twice, across many reads of the random source', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 5000; i += 1) {
      const nonce = createNonce();
      expect(Buffer.from(nonce, 'base64')).toHaveLength(16);
      seen.add(nonce);
    }
    expect(seen.size).toBe(5000);
  });
});

describe('brandStyle', () => {
  it('is the accent\'s own, and the same when asked again', () => {
    const blue = brandStyle({ name: 'A', accentColor: '#2563eb' });
    const yellow = brandStyle({ name: 'B', accentColor: '#FDE047' });
    expect(blue).toContain('--accent:#2563eb;--on-accent:#ffffff');
    expect(yellow).toContain('--accent:#fde047;--on-accent:#000000');
    expect(brandStyle({ name: 'C', accentColor: '#2563EB' })).toBe(blue);
    expect(brandStyle({ name: 'D', accentColor: '#fde047' })).toBe(yellow);
  });
});
