/**
 * What registration takes as its body, over real HTTP on the demo host, in both variants: JSON
 * in UTF-8 only (a body in another charset was read as UTF-8 and its name stored corrupted,
 * "café" in Latin-1 as "caf\uFFFD"), and in Variant B a `scope` that is a string (an array,
 * even `["account:read"]`, passed the eligibility check unread).
 */
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

const CLIENT = { redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none' };
const UTF8_ONLY = {
  error: 'invalid_client_metadata',
  error_description: 'the request body must be UTF-8 JSON: leave out the charset of Content-Type, or make it utf-8',
};

async function register(app: RunningApp, body: Buffer | string, contentType: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const sent = typeof body === 'string' ? body : Uint8Array.from(body);
  const res = await fetch(`${app.baseUrl}/api/oauth/register`, { method: 'POST', headers: { 'content-type': contentType }, body: sent });
  return { status: res.status, body: await res.json() as Record<string, unknown> };
}

/** `{"client_name": "café", …}` encoded as Latin-1: one byte 0xE9 for the é */
const latin1 = (fields: object) => Buffer.from(JSON.stringify({ ...fields, client_name: 'café' }), 'latin1');

describe('Variant B (open)', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp({ auth: { registration: { variant: 'open', rateLimit: false } } });
  });
  afterAll(() => app.stop());

  it.each(['application/json; charset=latin1', 'application/json; charset=ISO-8859-1', 'application/json;charset="utf-16"'])('refuses %s: nothing is registered', async (contentType) => {
    const answer = await register(app, latin1(CLIENT), contentType);
    expect(answer).toEqual({ status: 400, body: UTF8_ONLY });
  });

  it.each(['application/json', 'application/json; charset=utf-8', 'application/json; charset="UTF-8"'])('takes %s and stores the name as sent', async (contentType) => {
    const answer = await register(app, JSON.stringify({ ...CLIENT, client_name: 'café' }), contentType);
    expect(answer.status).toBe(201);
    expect(answer.body.client_name).toBe('café');
  });

  it('refuses bytes that are not UTF-8 under a plain application/json (read as U+FFFD, they would be stored corrupted): nothing is registered', async () => {
    const answer = await register(app, latin1(CLIENT), 'application/json');
    expect(answer).toEqual({
      status: 400,
      body: { error: 'invalid_client_metadata', error_description: 'the client metadata must be UTF-8 text: it holds U+FFFD, what bytes that are not UTF-8 decode to' },
    });
    // in a list too
    const listed = Buffer.from(JSON.stringify({ ...CLIENT, contacts: ['José <jose@example.com>'] }), 'latin1');
    expect((await register(app, listed, 'application/json')).status).toBe(400);
  });

  it.each([[['account:read']], [['openid']], [42], [{ openid: true }]])('refuses a scope that is not a string: %j', async (scope) => {
    const answer = await register(app, JSON.stringify({ ...CLIENT, scope }), 'application/json');
    expect(answer).toEqual({ status: 400, body: { error: 'invalid_client_metadata', error_description: 'scope must be a string of space-separated scope names' } });
  });

  it('a string scope is checked as before', async () => {
    expect((await register(app, JSON.stringify({ ...CLIENT, scope: 'openid' }), 'application/json')).status).toBe(201);
    const member = await register(app, JSON.stringify({ ...CLIENT, scope: 'openid account:read' }), 'application/json');
    expect(member.status).toBe(400);
    expect(member.body.error_description).toMatch(/account:read is not available to registered clients/);
  });
});

describe('Variant A (restricted)', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(() => app.stop());

  it('refuses a body in another charset before reading it', async () => {
    expect(await register(app, latin1({ client_name: 'café' }), 'application/json; charset=latin1')).toEqual({ status: 400, body: UTF8_ONLY });
  });

  it('takes UTF-8 as before (an unknown vendor name is its own refusal)', async () => {
    const answer = await register(app, JSON.stringify({ client_name: 'No Such Vendor' }), 'application/json; charset=utf-8');
    expect(answer.status).toBe(400);
    expect(answer.body.error_description).not.toBe(UTF8_ONLY.error_description);
  });
});
