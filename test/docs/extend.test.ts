/**
 * Hosts extend /openapi.json with their own routes: describeBearerRoute() turns the
 * requireBearer() guard's scopes into a security requirement and the 401/403 challenge
 * answers; `extend` edits the finished document. Bad extensions fail at start-up.
 */
import { ADMIN_COURSES_PATH } from '../../examples/host/admin-api.ts';
import { validateOptions } from '../../lib/config/validate.ts';
import { describeBearerRoute } from '../../lib/docs/index.ts';
import type { OpenApiDocument, OpenApiOperation } from '../../lib/docs/index.ts';
import { ConfigurationError, createPlatformAuth } from '../../lib/index.ts';
import type { PlatformAuthOptions } from '../../lib/index.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import { describedResponse, openApiErrors, schemaChecker } from './support.ts';

const guard = { scopes: ['courses:read'], audiences: ['operator'] } as const;

describe('a host route declared with describeBearerRoute', () => {
  let app: RunningApp;
  let doc: OpenApiDocument;
  beforeAll(async () => {
    app = await startApp({
      auth: {
        docs: {
          openapi: {
            paths: [
              describeBearerRoute({ path: ADMIN_COURSES_PATH, method: 'GET', summary: 'List the site\'s courses', tags: ['Admin'], ...guard }),
              describeBearerRoute({ path: '/admin/api/courses/:slug', method: 'PATCH', summary: 'Change a course', scopes: ['courses:write'], audiences: ['operator'], responses: { 204: { description: 'changed' } } }),
            ],
            extend(document) {
              document.info.version = '2025.1';
              // host tags are listed already; extend adds what only the host knows
              document.tags.find((t) => t.name === 'Admin')!.description = 'The school\'s admin API';
            },
          },
        },
      },
    });
    doc = await (await fetch(`${app.baseUrl}/openapi.json`)).json();
  });
  afterAll(() => app.stop());

  const op = (path: string, method: string) => (doc.paths[path] as Record<string, OpenApiOperation>)[method]!;

  it('appears with its scopes, audience and challenge answers, and the document stays valid', async () => {
    expect(op(ADMIN_COURSES_PATH, 'get')).toMatchObject({
      summary: 'List the site\'s courses',
      tags: ['Admin'],
      security: [{ oauth2: ['courses:read'] }],
      'x-audiences': ['operator'],
      responses: {
        200: { description: 'OK' },
        401: { $ref: '#/components/responses/InvalidToken' },
        403: { $ref: '#/components/responses/InsufficientScope' },
      },
    });
    expect(op(ADMIN_COURSES_PATH, 'get').description).toContain('Requires a bearer access token with `courses:read` from operator clients.');
    expect(op('/admin/api/courses/{slug}', 'patch')).toMatchObject({
      parameters: [{ name: 'slug', in: 'path', required: true }],
      security: [{ oauth2: ['courses:write'] }],
      responses: { 204: { description: 'changed' } },
    });
    expect(doc.info.version).toBe('2025.1');
    expect(doc.tags.filter((t) => t.name === 'Admin')).toEqual([{ name: 'Admin', description: 'The school\'s admin API' }]);
    expect(await openApiErrors(doc)).toEqual([]);
  });

  it('the description matches what the guarded route answers', async () => {
    const none = await fetch(`${app.baseUrl}${ADMIN_COURSES_PATH}`);
    expect(none.status).toBe(401);
    // no credentials: no error code in the challenge (RFC 6750 §3.1), as the shared header's description says
    expect(none.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${app.baseUrl}/.well-known/oauth-protected-resource"`);
    expect((doc.components.headers['WWW-Authenticate'] as { description: string }).description).toContain('without an error code (RFC 6750 §3.1)');
    expect(await none.json()).toMatchObject({ error: 'invalid_token' });
  });

  it('its 400 for a token sent more than one way is documented, with the challenge', async () => {
    // refused before the token is read: any token shows it
    const twice = await fetch(`${app.baseUrl}${ADMIN_COURSES_PATH}?access_token=sent-twice`, { headers: { authorization: 'Bearer sent-twice' } });
    expect(twice.status).toBe(400);
    expect(twice.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_request", error_description="[^"]+", resource_metadata="/);
    const body = await twice.json();
    expect(body).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
    for (const [path, method] of [[ADMIN_COURSES_PATH, 'get'], ['/admin/api/courses/{slug}', 'patch']]) {
      const described = describedResponse(doc, path!, method!, 400)!;
      expect(described.description).toContain('`invalid_request`');
      expect(described.headers!['WWW-Authenticate']).toEqual({ $ref: '#/components/headers/WWW-Authenticate' });
      expect(schemaChecker(doc)(described.content!['application/json']!.schema, body)).toEqual([]);
    }
  });
});

describe('describeBearerRoute', () => {
  it('describes optional authorization as anonymous-or-token', () => {
    const paths = describeBearerRoute({ path: '/catalogue', method: 'GET', summary: 'Public catalogue', optional: true });
    const get = paths['/catalogue']!.get!;
    expect(get.security).toEqual([{}, { oauth2: [] }]);
    expect(get.responses).not.toHaveProperty('403');
    expect(get.responses['401']).toEqual({ $ref: '#/components/responses/InvalidToken' });
  });

  it('adds the guard\'s 400 unless the route gives its own', () => {
    const added = describeBearerRoute({ path: '/a', method: 'GET', summary: 'a' })['/a']!.get!;
    expect(added.responses['400']).toMatchObject({ content: { 'application/json': { schema: { $ref: '#/components/schemas/OAuthError' } } } });
    const own = { description: 'the route\'s own' };
    expect(describeBearerRoute({ path: '/a', method: 'POST', summary: 'a', responses: { 200: { description: 'OK' }, 400: own } })['/a']!.post!.responses['400']).toBe(own);
  });

  it.each([
    [{ path: 'admin', method: 'GET', summary: 's' }, /path must start with "\/"/],
    [{ path: '/a', method: 'FETCH', summary: 's' }, /method must be one of/],
    [{ path: '/a', method: 'GET', summary: '' }, /summary/],
    [{ path: '/a', method: 'GET', summary: 's', scopes: ['courses:admin'] }, /courses:admin.*not in the scope catalogue/],
    [{ path: '/a', method: 'GET', summary: 's', audiences: ['staff'] }, /audiences must be "member" or "operator"/],
  ])('refuses %j', (route, message) => {
    expect(() => describeBearerRoute(route as never)).toThrow(ConfigurationError);
    expect(() => describeBearerRoute(route as never)).toThrow(message);
  });
});

describe('bad docs options fail at start-up', () => {
  const accounts = { authenticate: async () => undefined, findById: async () => undefined };
  const base: PlatformAuthOptions = { baseUrl: 'http://localhost:3000', accounts, logger: { info() {}, warn() {}, error() {} } };

  async function refusal(docs: unknown, construct = false): Promise<string> {
    try {
      const options = { ...base, docs } as PlatformAuthOptions;
      if (construct) await createPlatformAuth(options);
      else await validateOptions(options);
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigurationError);
      return (err as Error).message;
    }
    throw new Error('expected the options to be refused');
  }

  it.each([
    ['not an object', 'yes', /^options\.docs must be an object/],
    ['an unknown key', { swagger: true }, /^options\.docs\.swagger is not a known option; use one of openapi, authMd/],
    ['openapi of the wrong type', { openapi: 'on' }, /^options\.docs\.openapi must be true, false or \{ paths\?, extend\? \}/],
    ['extend not a function', { openapi: { extend: {} } }, /^options\.docs\.openapi\.extend must be a function/],
    ['a path without a leading slash', { openapi: { paths: { admin: {} } } }, /must start with "\/"/],
    ['an operation that is not an object', { openapi: { paths: { '/admin': { get: 'list' } } } }, /\.get must be an OpenAPI operation object/],
    ['a misspelt method (the route would go undescribed)', { openapi: { paths: { '/admin': { gett: { summary: 'list' } } } } }, /^options\.docs\.openapi\.paths\["\/admin"\]\.gett is not a known path item field; use one of get, .*; did you mean "get"\?$/],
    ['the same route twice', { openapi: { paths: [describeBearerRoute({ path: '/a', method: 'GET', summary: 'a' }), describeBearerRoute({ path: '/a', method: 'GET', summary: 'b' })] } }, /GET \/a is described twice/],
    ['a bad limits row', { authMd: { limits: [{ item: 'x' }] } }, /^options\.docs\.authMd\.limits\[0\] must be \{ item: string, value: string \}/],
    ['an empty rateLimits', { authMd: { rateLimits: ' ' } }, /^options\.docs\.authMd\.rateLimits must be a non-empty sentence/],
  ])('%s', async (_name, docs, message) => {
    expect(await refusal(docs)).toMatch(message);
  });

  it('takes every field an OpenAPI 3.1 path item has, and x- extensions', async () => {
    const item = { summary: 's', description: 'd', parameters: [], servers: [], 'x-internal': true, get: { responses: { 200: { description: 'ok' } } } };
    const resolved = await validateOptions({ ...base, docs: { openapi: { paths: { '/admin/courses': item } } } } as PlatformAuthOptions);
    expect(resolved.docs.openapi && resolved.docs.openapi.paths['/admin/courses']).toEqual(item);
  });

  it('a host path that is a library endpoint', async () => {
    const docs = { openapi: { paths: { '/api/oauth/token': { post: { responses: { 200: { description: 'mine' } } } } } } };
    expect(await refusal(docs, true)).toMatch(/^options\.docs\.openapi\.paths: \/api\/oauth\/token is an endpoint of the library/);
  });

  it('an extend that throws', async () => {
    const docs = { openapi: { extend: () => { throw new Error('boom'); } } };
    expect(await refusal(docs, true)).toBe('options.docs.openapi.extend threw while editing the document: boom');
  });
});
