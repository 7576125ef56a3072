/**
 * The mounted routes and /openapi.json agree: every entry of the endpoint table that the app
 * serves (anything but 404 or 405 over real HTTP) is described, and everything described is served,
 * under the default configuration and with the optional parts turned off.
 */
import { ENDPOINTS } from '../../lib/index.ts';
import type { OpenApiDocument } from '../../lib/docs/index.ts';
import type { DemoOptions } from '../../examples/host/app.ts';
import { startApp } from '../support/start-app.ts';
import { operations } from './support.ts';

const toTemplate = (path: string) => path.replace(/:([A-Za-z_]+)/g, '{$1}');
const toUrl = (template: string) => template.replace(/\{[^}]+\}/g, 'no-such-uid');

const configurations: [string, DemoOptions, string[]][] = [
  ['the default configuration', {}, []],
  [
    'ID tokens, the Account API, MCP and /auth.md off, open registration',
    { auth: { idTokens: false, memberData: undefined, mcp: false, registration: { variant: 'open' }, docs: { authMd: false } } },
    [ENDPOINTS.jwks.path, ENDPOINTS.accountApi.path, ENDPOINTS.mcp.path, ENDPOINTS.authMd.path],
  ],
];

describe.each(configurations)('with %s', (_name, options, absent) => {
  let baseUrl: string;
  let stop: () => Promise<void>;
  let doc: OpenApiDocument;
  beforeAll(async () => {
    const app = await startApp(options);
    ({ baseUrl } = app);
    stop = () => app.stop();
    doc = await (await fetch(`${baseUrl}/openapi.json`)).json();
  });
  afterAll(() => stop());

  const request = (method: string, template: string) => fetch(`${baseUrl}${toUrl(template)}`, { method, redirect: 'manual' });

  it('every endpoint-table route the app serves is in /openapi.json', async () => {
    const served: string[] = [];
    const missing: string[] = [];
    for (const endpoint of Object.values(ENDPOINTS)) {
      const template = toTemplate(endpoint.path);
      for (const method of endpoint.methods) {
        const res = await request(method, template);
        // 405: the path is served, not with this method (lib/http/allowed-methods.ts)
        if (res.status === 404 || res.status === 405) continue;
        served.push(`${method} ${template}`);
        if (!doc.paths[template]?.[method.toLowerCase() as 'get']) missing.push(`${method} ${template} (answered ${res.status})`);
      }
    }
    expect(missing).toEqual([]);
    expect(served.length).toBeGreaterThan(10);
  });

  it('every operation in /openapi.json is served', async () => {
    const unserved: string[] = [];
    for (const [method, path] of operations(doc)) {
      const res = await request(method, path);
      // (405 counts as served here: /openapi.json describes the 405s of /mcp and /account/graphql)
      if (res.status === 404) unserved.push(`${method} ${path}`);
    }
    expect(unserved).toEqual([]);
  });

  it('leaves out exactly what is not mounted', async () => {
    for (const path of absent) {
      expect(doc.paths).not.toHaveProperty([path]);
      expect((await request('GET', path)).status).toBe(404);
    }
  });
});
