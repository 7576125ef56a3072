/**
 * UserInfo takes its access token one way only (RFC 6750 §2): the Authorization header. A
 * POST that also carries `access_token` in a form body (§2.2), or in the query, or two
 * Authorization headers, is 400 `invalid_request`, whatever the tokens, and the body's token
 * is never used; a form body without one is read and changes nothing.
 */
import { request } from 'node:http';

import { MEMBER, STUDENT, obtainTokens } from '../support/flows.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

const PATH = '/api/oauth/userinfo';
const FORM = 'application/x-www-form-urlencoded';

let app: RunningApp;
let token: string;
let other: string;

beforeAll(async () => {
  app = await startApp();
  const scope = { scope: 'openid profile account:read', resource: app.baseUrl };
  token = (await obtainTokens(app.baseUrl, MEMBER, scope, STUDENT)).access_token;
  other = (await obtainTokens(app.baseUrl, MEMBER, scope, STUDENT)).access_token;
});

afterAll(async () => {
  await app.stop();
});

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly json: () => Record<string, unknown>;
}

/** A raw request: `headers` as a flat [name, value, …] list, so a name may repeat. */
function raw(method: string, path: string, headers: string[], body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const length = body === undefined ? [] : ['content-length', String(Buffer.byteLength(body))];
    const req = request({
      host: '127.0.0.1', port: app.port, method, path, headers: [...headers, ...length, 'host', `127.0.0.1:${app.port}`],
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { text += chunk; });
      res.on('end', () => resolve({ status: res.statusCode!, body: text, json: () => JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const bearer = (t: string) => ['authorization', `Bearer ${t}`];

function expectInvalidRequest(res: Answer): void {
  expect({ status: res.status, error: res.json().error }).toEqual({ status: 400, error: 'invalid_request' });
  expect(res.json().error_description).toMatch(/more than one/);
  expect(res.body).not.toContain('student@example.com');
}

describe('UserInfo: one way to send the access token', () => {
  it('the header alone, GET and POST: 200 with the claims', async () => {
    for (const method of ['GET', 'POST']) {
      const res = await raw(method, PATH, bearer(token), method === 'POST' ? '' : undefined);
      expect({ method, status: res.status }).toEqual({ method, status: 200 });
      expect(res.json()).toMatchObject({ sub: expect.any(String), org_id: 'demo-school' });
    }
  });

  it('a POST with the header and a form body without access_token: 200, the body changes nothing', async () => {
    const res = await raw('POST', PATH, [...bearer(token), 'content-type', FORM], 'scope=openid&x=1');
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ org_id: 'demo-school' });
  });

  it.each([
    ['the same token', () => token],
    ['another valid token', () => other],
    ['a made-up token', () => 'not-a-token'],
    ['an empty value', () => ''],
  ])('a POST with the header and access_token in a form body (%s): 400 invalid_request', async (_label, bodyToken) => {
    expectInvalidRequest(await raw('POST', PATH, [...bearer(token), 'content-type', FORM], new URLSearchParams({ access_token: bodyToken() }).toString()));
  });

  it('the form content type with a charset parameter is a form too', async () => {
    expectInvalidRequest(await raw('POST', PATH, [...bearer(token), 'content-type', `${FORM}; charset=UTF-8`], `access_token=${token}`));
  });

  it('a bad header token with a good body token: still 400 invalid_request, the body token is never tried', async () => {
    expectInvalidRequest(await raw('POST', PATH, [...bearer('not-a-token'), 'content-type', FORM], `access_token=${token}`));
  });

  it('the header and access_token in the query of a POST: 400 invalid_request', async () => {
    expectInvalidRequest(await raw('POST', `${PATH}?access_token=${token}`, bearer(token), ''));
  });

  it.each(['GET', 'POST'])('two Authorization headers (%s): 400 invalid_request', async (method) => {
    expectInvalidRequest(await raw(method, PATH, [...bearer(token), ...bearer(token)], ''));
  });

  it('a form body alone is not an accepted way: 401 asking for the header', async () => {
    const res = await raw('POST', PATH, ['content-type', FORM], `access_token=${token}`);
    expect(res.status).toBe(401);
    expect(res.json().error_description).toMatch(/Authorization: Bearer/);
  });

  it('a form body larger than a form of a few parameters: 413, not read', async () => {
    const res = await raw('POST', PATH, [...bearer(token), 'content-type', FORM], `x=${'a'.repeat(20_000)}`);
    expect(res.status).toBe(413);
    expect(res.json().error).toBe('invalid_request');
  });
});
