/**
 * lib/http/allowed-methods.ts over real HTTP, on the composed demo app: every path of the
 * endpoint table answers a method it does not list with 405, `Allow` and an `invalid_request`
 * JSON body (not Koa's plain-text 404), a plain OPTIONS where it lists OPTIONS with 204 and
 * `Allow`, and still reaches its endpoint with the methods it lists.
 */
import type { EndpointDefinition } from '../../lib/endpoints.ts';
import { allowedMethods } from '../../lib/http/allowed-methods.ts';
import { ENDPOINTS } from '../../lib/index.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];

/** each endpoint of the table (the two with answers of their own protocols left out), at a path of it */
function checkedPaths(table: readonly EndpointDefinition[]): [string, string, EndpointDefinition][] {
  return table
    .filter((e) => e.id !== 'accountApi' && e.id !== 'mcp')
    .map((e) => [e.id, e.path.replace(':uid', 'some-uid'), e]);
}

async function expectRefused(baseUrl: string, path: string, method: string, allow: string, use: string): Promise<void> {
  const res = await fetch(`${baseUrl}${path}`, { method, redirect: 'manual' });
  expect({ method, path, status: res.status }).toEqual({ method, path, status: 405 });
  expect(res.headers.get('allow')).toBe(allow);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.headers.get('x-request-id')).toEqual(expect.any(String));
  if (method !== 'HEAD') {
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({ error: 'invalid_request', error_description: `use ${use} ${path}` });
  }
}

describe.each([
  ['Variant A', {}],
  ['Variant B', { auth: { registration: { variant: 'open' as const } } }],
])('%s', (_variant, options) => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp(options);
  });
  afterAll(() => app.stop());

  const table = checkedPaths(Object.values(ENDPOINTS));

  it.each(table)('%s (%s): other methods are 405 with Allow; listed ones reach the endpoint', async (_id, path, endpoint) => {
    const { allow, header } = allowedMethods(endpoint);
    const use = endpoint.id === 'interaction' ? 'GET' : endpoint.methods.join(' or ');
    // the page of an interaction is GET; its forms (below) POST
    const allowed = endpoint.id === 'interaction' ? new Set(['GET', 'HEAD']) : allow;
    const allowHeader = endpoint.id === 'interaction' ? 'GET, HEAD' : header;
    for (const method of METHODS) {
      if (allowed.has(method)) {
        if (method === 'OPTIONS') continue; // below
        const res = await fetch(`${app.baseUrl}${path}`, { method, redirect: 'manual' });
        // the endpoint's own answer (a 400 or 401 for this empty request, a document), never the refusal
        const reached = res.status !== 404 && res.status !== 405 && res.status < 500;
        expect({ method, path, status: res.status, reached }).toEqual({ method, path, status: res.status, reached: true });
      } else {
        await expectRefused(app.baseUrl, path, method, allowHeader, use);
      }
    }
  });

  it.each(table.filter(([, , e]) => e.preflight))('%s (%s): a plain OPTIONS is 204 with Allow, a preflight is the CORS answer', async (_id, path, endpoint) => {
    const plain = await fetch(`${app.baseUrl}${path}`, { method: 'OPTIONS' });
    expect(plain.status).toBe(204);
    expect(plain.headers.get('allow')).toBe(allowedMethods(endpoint).header);
    const preflight = await fetch(`${app.baseUrl}${path}`, {
      method: 'OPTIONS', headers: { origin: 'http://localhost:5173', 'access-control-request-method': endpoint.methods[0]! },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toContain(endpoint.methods[0]!);
  });

  it('the forms of an interaction take POST only; the resume path of an authorization GET only', async () => {
    for (const action of ['login', 'confirm', 'abort']) {
      const path = `${ENDPOINTS.interaction.path.replace(':uid', 'some-uid')}/${action}`;
      for (const method of ['GET', 'HEAD', 'PUT', 'OPTIONS']) await expectRefused(app.baseUrl, path, method, 'POST', 'POST');
      // POST reaches the router: the interaction does not exist (its page says so), not a 405
      const posted = await fetch(`${app.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
      expect(posted.status).toBe(400);
      expect(posted.headers.get('content-type')).toMatch(/^text\/html/);
    }
    const resume = `${ENDPOINTS.authorization.path}/some-uid`;
    for (const method of ['POST', 'PUT', 'OPTIONS']) await expectRefused(app.baseUrl, resume, method, 'GET, HEAD', 'GET');
    expect((await fetch(`${app.baseUrl}${resume}`, { redirect: 'manual' })).status).toBe(400);
  });

  it('registration\'s 405 is readable from any origin, as its other answers (its CORS, both variants)', async () => {
    const res = await fetch(`${app.baseUrl}${ENDPOINTS.registration.path}`, { method: 'GET', headers: { origin: 'https://app.example' } });
    expect(res.status).toBe(405);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('paths outside the table are left to the host: an unknown action of an interaction is still a 404', async () => {
    const res = await fetch(`${app.baseUrl}${ENDPOINTS.interaction.path.replace(':uid', 'some-uid')}/other`, { method: 'PUT' });
    expect(res.status).toBe(404);
  });
});
