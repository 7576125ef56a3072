/**
 * lib/events/printable.ts: strings a request chose reach events and the trace with their
 * control characters escaped, so a CR/LF cannot forge a line in a log or on a staff page.
 */
import type { PlatformAuthEvent } from '../../lib/index.ts';
import { printable } from '../../lib/events/printable.ts';
import { buildAuthorizeUrl, MEMBER } from '../support/flows.ts';
import { pkcePair } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';

describe('printable', () => {
  it('escapes C0 and C1 controls, DEL and the line separators, and leaves the rest', () => {
    expect(printable('a\r\nb\tc\u0000d\u007fe\u0085f\u2028g\u2029h')).toBe('a\\u000d\\u000ab\\u0009c\\u0000d\\u007fe\\u0085f\\u2028g\\u2029h');
    expect(printable('https://app.example/cb?x=ü é')).toBe('https://app.example/cb?x=ü é');
  });

  it('cuts before escaping, and gives the same answer call after call', () => {
    expect(printable('abc\n', 3)).toBe('abc');
    for (let i = 0; i < 3; i += 1) expect(printable('x\ny', 10)).toBe('x\\u000ay');
  });
});

it('a redirect_uri with CR/LF reaches the event and the trace escaped', async () => {
  const app = await startApp();
  try {
    const events: PlatformAuthEvent[] = [];
    app.auth.events.on('*', (event) => { events.push(event); });
    const forged = 'http://127.0.0.1:5000/\r\nFORGED line';
    const url = buildAuthorizeUrl(app.baseUrl, { ...MEMBER, redirectUri: forged }, { scope: 'openid', state: 's', challenge: pkcePair().challenge });
    expect((await fetch(url)).status).toBe(400);
    const failed = events.find((e) => e.name === 'authorization.failed') as (PlatformAuthEvent & { redirectUri?: string }) | undefined;
    expect(failed?.redirectUri).toBe('http://127.0.0.1:5000/\\u000d\\u000aFORGED line');
    const trace = await app.auth.clientTrace(MEMBER.clientId);
    const summary = trace.find((e) => e.event === 'authorization.failed')?.summary;
    expect(summary).toContain('\\u000d\\u000aFORGED line');
    expect(summary).not.toMatch(/[\r\n]/);
  } finally {
    await app.stop();
  }
});
