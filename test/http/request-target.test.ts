/**
 * lib/http/request-target.ts over real HTTP: request lines Node accepts and Koa cannot read a
 * path from get a 400 `invalid_request` with a request id, not a 500, before any router runs.
 */
import { rawRequest } from '../support/raw-request.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

let app: RunningApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.stop());

it.each([
  ['another scheme, no path', 'foo://evil.example'],
  ['another scheme, a query and no path', 'foo://evil.example?x=1'],
  ['an address Koa\'s parser throws on', 'http://[::1/api/oauth/token'],
])('%s (%s): 400 invalid_request JSON', async (_what, target) => {
  const answer = await rawRequest({ port: app.port, target });
  expect(answer.status).toBe(400);
  expect(JSON.parse(answer.body)).toEqual({ error: 'invalid_request', error_description: 'the request target is not a path this server can read' });
  expect(answer.headers['x-request-id']).toEqual(expect.any(String));
  expect(answer.headers['cache-control']).toBe('no-store');
});

it('a readable target in absolute form still reaches its route', async () => {
  const answer = await rawRequest({ port: app.port, target: 'http://evil.example/.well-known/oauth-protected-resource' });
  expect(answer.status).toBe(200);
  expect(JSON.parse(answer.body).resource).toBe(app.baseUrl);
});
