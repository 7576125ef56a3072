/**
 * Protected-resource metadata (RFC 9728) is served only where RFC 9728 §3.3 lets it name the
 * origin as its `resource`: at the root `/.well-known/oauth-protected-resource`. Every token is
 * bound to the origin, so there is no path-aware document (for `/mcp` or any other path); a
 * strict client that fetched one would have to discard it. (A challenge's link to the root
 * document is §3.3's second paragraph: test/mcp/discovery.test.ts.) README, MCP → Discovery.
 */
import { ENDPOINTS } from '../../lib/index.ts';
import type { DemoOptions } from '../../examples/host/app.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

const WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** Where a client may look for metadata: the root, and the path-aware form of every endpoint path. */
function candidateUrls(baseUrl: string): string[] {
  const paths = Object.values(ENDPOINTS).map((e) => e.path.replace(/\/:[^/]+/g, '/x'));
  const suffixes = ['', '/', ...paths, ...paths.map((p) => `${p}/`)];
  return [...new Set(suffixes)].map((suffix) => `${baseUrl}${WELL_KNOWN}${suffix}`);
}

/** RFC 9728 §3.3: the resource identifier the metadata at `url` must name (the well-known string taken out). */
function expectedResource(url: string): string {
  const parsed = new URL(url);
  parsed.pathname = parsed.pathname.replace(WELL_KNOWN, '') || '/';
  return parsed.href;
}

const deployments: [string, DemoOptions][] = [
  ['Variant A with /mcp', {}],
  ['Variant B with /mcp', { auth: { registration: { variant: 'open' } } }],
  ['without /mcp', { auth: { mcp: false } }],
];

describe.each(deployments)('%s', (_name, options) => {
  let app: RunningApp;
  beforeAll(async () => { app = await startApp(options); });
  afterAll(() => app.stop());

  it('every metadata URL answering 200 names the resource its URL stands for (RFC 9728 §3.3, first paragraph)', async () => {
    const answered: string[] = [];
    for (const url of candidateUrls(app.baseUrl)) {
      const res = await fetch(url);
      if (res.status !== 200) {
        await res.body?.cancel();
        continue;
      }
      answered.push(url);
      const { resource } = await res.json() as { resource: string };
      // compared as URLs: `https://host` and `https://host/` are the same identifier (RFC 3986 §6.2.3)
      expect([url, new URL(resource).href]).toEqual([url, expectedResource(url)]);
    }
    expect(answered).toContain(`${app.baseUrl}${WELL_KNOWN}`);
  });

  it('the root document names the origin, the one resource every token is bound to', async () => {
    const res = await fetch(`${app.baseUrl}${WELL_KNOWN}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(expect.objectContaining({ resource: app.baseUrl, authorization_servers: [app.baseUrl] }));
  });

  it('the path-aware URL of /mcp answers 404', async () => {
    const res = await fetch(`${app.baseUrl}${WELL_KNOWN}${ENDPOINTS.mcp.path}`);
    expect(res.status).toBe(404);
    await res.body?.cancel();
  });
});
