/**
 * A bearer token sent more than one way (issue #16, RFC 6750 §2) is 400 `invalid_request` at
 * the library's protected routes: two `Authorization` headers (raw HTTP, since fetch joins
 * them), or the header plus `access_token` in the query. The 400 carries the Bearer challenge
 * with `resource_metadata`, as every refusal of these routes does (RFC 6750 §3.1).
 */
import { request } from 'node:http';

import { eventually } from '../support/eventually.ts';
import { MEMBER, STUDENT, obtainTokens } from '../support/flows.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

let app: RunningApp;
let token: string;

beforeAll(async () => {
  app = await startApp();
  token = (await obtainTokens(app.baseUrl, MEMBER, { scope: 'openid account:read', resource: app.baseUrl }, STUDENT)).access_token;
});

afterAll(async () => {
  await app.stop();
});

/** A raw request: `headers` as a flat [name, value, …] list, so a name may repeat. */
function raw(method: string, path: string, headers: string[]): Promise<{ status: number; body: string; challenge: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: app.port, method, path, headers: [...headers, 'host', `127.0.0.1:${app.port}`] }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { body += chunk; });
      res.on('end', () => resolve({ status: res.statusCode!, body, challenge: res.headers['www-authenticate'] }));
    });
    req.on('error', reject);
    req.end();
  });
}

const SENT_TWICE_CHALLENGE = /^Bearer error="invalid_request", error_description="[^"]+", resource_metadata="http:\/\/[^"]+\/\.well-known\/oauth-protected-resource"$/;

describe('one bearer token per request', () => {
  it('one Authorization header: 200', async () => {
    expect((await raw('GET', '/api/oauth/userinfo', ['authorization', `Bearer ${token}`])).status).toBe(200);
  });

  it.each(['GET', 'POST'])('two Authorization headers at UserInfo %s: 400 invalid_request', async (method) => {
    const res = await raw(method, '/api/oauth/userinfo', ['authorization', `Bearer ${token}`, 'authorization', `Bearer ${token}`, 'content-length', '0']);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'invalid_request' });
    expect(res.challenge).toMatch(SENT_TWICE_CHALLENGE);
  });

  it('two Authorization headers at the Account API: 400 invalid_request', async () => {
    const res = await raw('POST', '/account/graphql', ['authorization', `Bearer ${token}`, 'authorization', 'Bearer other', 'content-length', '0']);
    expect(res.status).toBe(400);
    expect(res.body).toContain('invalid_request');
    expect(res.challenge).toMatch(SENT_TWICE_CHALLENGE);
  });

  it.each([['POST', '/account/graphql'], ['POST', '/mcp'], ['GET', '/admin/api/courses']])('the header and access_token in the query at %s %s: 400 with the challenge', async (method, path) => {
    const res = await raw(method, `${path}?access_token=${token}`, ['authorization', `Bearer ${token}`, 'content-type', 'application/json', 'accept', 'application/json, text/event-stream', 'content-length', '0']);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'invalid_request' });
    expect(res.challenge).toMatch(SENT_TWICE_CHALLENGE);
  });

  it('the header and access_token in the query: 400 invalid_request', async () => {
    const res = await raw('GET', `/api/oauth/userinfo?access_token=${token}`, ['authorization', `Bearer ${token}`]);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'invalid_request' });
    expect(res.challenge).toMatch(SENT_TWICE_CHALLENGE);
  });

  it('is reported as access.refused with reason malformed (lib/events/types.ts)', async () => {
    const heard: { reason?: string; status?: number; endpoint?: string }[] = [];
    const stop = app.auth.events.on('access.refused', (e) => { heard.push(e); });
    try {
      const res = await raw('GET', `/api/oauth/userinfo?access_token=${token}`, ['authorization', `Bearer ${token}`]);
      expect(res.status).toBe(400);
      await eventually(async () => heard.length, (n) => n > 0);
      expect(heard).toEqual([expect.objectContaining({ reason: 'malformed', status: 400, endpoint: 'userinfo' })]);
    } finally {
      stop();
    }
  });
});
