/**
 * A bearer token sent more than one way (issue #16, RFC 6750 §2) is 400 `invalid_request` at
 * the library's protected routes: two `Authorization` headers (raw HTTP, since fetch joins
 * them), or the header plus `access_token` in the query.
 */
import { request } from 'node:http';

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
function raw(method: string, path: string, headers: string[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: app.port, method, path, headers: [...headers, 'host', `127.0.0.1:${app.port}`] }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { body += chunk; });
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('one bearer token per request', () => {
  it('one Authorization header: 200', async () => {
    expect((await raw('GET', '/api/oauth/userinfo', ['authorization', `Bearer ${token}`])).status).toBe(200);
  });

  it.each(['GET', 'POST'])('two Authorization headers at UserInfo %s: 400 invalid_request', async (method) => {
    const res = await raw(method, '/api/oauth/userinfo', ['authorization', `Bearer ${token}`, 'authorization', `Bearer ${token}`, 'content-length', '0']);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'invalid_request' });
  });

  it('two Authorization headers at the Account API: 400 invalid_request', async () => {
    const res = await raw('POST', '/account/graphql', ['authorization', `Bearer ${token}`, 'authorization', 'Bearer other', 'content-length', '0']);
    expect(res.status).toBe(400);
    expect(res.body).toContain('invalid_request');
  });

  it('the header and access_token in the query: 400 invalid_request', async () => {
    const res = await raw('GET', `/api/oauth/userinfo?access_token=${token}`, ['authorization', `Bearer ${token}`]);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'invalid_request' });
  });
});
