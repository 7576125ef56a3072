/**
 * lib/served-endpoints.ts without HTTP: which endpoints a deployment mounts and who answers
 * each, for every switch of the resolved options.
 */
import { ENDPOINTS } from '../lib/endpoints.ts';
import type { EndpointId } from '../lib/endpoints.ts';
import { answeredBy, isServed, ownPathMatcher, providerEndpoints, servedEndpoints } from '../lib/served-endpoints.ts';
import type { ServingFacts } from '../lib/served-endpoints.ts';

const ALL_IDS = Object.keys(ENDPOINTS) as EndpointId[];

/** Everything on, registration open. */
const FULL: ServingFacts = {
  idTokens: true,
  memberData: {},
  registration: { variant: 'open' },
  mcp: { enabled: true },
  docs: { openapi: true, authMd: true },
};

/** Everything that can be off, off; registration restricted. */
const MINIMAL: ServingFacts = {
  idTokens: false,
  memberData: undefined,
  registration: { variant: 'restricted' },
  mcp: { enabled: false },
  docs: { openapi: false, authMd: false },
};

const ids = (list: readonly { id: string }[]) => list.map((e) => e.id);

describe('everything on, registration open', () => {
  it('serves every endpoint, in table order', () => {
    expect(ids(servedEndpoints(FULL))).toEqual(ALL_IDS);
    for (const id of ALL_IDS) expect(isServed(id, FULL)).toBe(true);
  });

  it('has each endpoint answered by its owner in the table', () => {
    for (const id of ALL_IDS) expect(answeredBy(id, FULL)).toBe(ENDPOINTS[id].owner);
  });

  it('lets the provider answer registration', () => {
    expect(answeredBy('registration', FULL)).toBe('provider');
    expect(ids(providerEndpoints(FULL))).toContain('registration');
  });
});

describe('switches', () => {
  it('idTokens off: no jwks, everything else unchanged', () => {
    const facts = { ...FULL, idTokens: false };
    expect(answeredBy('jwks', facts)).toBeUndefined();
    expect(isServed('jwks', facts)).toBe(false);
    expect(ids(servedEndpoints(facts))).toEqual(ALL_IDS.filter((id) => id !== 'jwks'));
    expect(ids(providerEndpoints(facts))).not.toContain('jwks');
  });

  it('registration restricted: still served, by the platform', () => {
    const facts: ServingFacts = { ...FULL, registration: { variant: 'restricted' } };
    expect(answeredBy('registration', facts)).toBe('platform');
    expect(isServed('registration', facts)).toBe(true);
    expect(ids(providerEndpoints(facts))).not.toContain('registration');
  });

  it('memberData absent: no Account API', () => {
    const facts = { ...FULL, memberData: undefined };
    expect(answeredBy('accountApi', facts)).toBeUndefined();
    expect(ids(servedEndpoints(facts))).toEqual(ALL_IDS.filter((id) => id !== 'accountApi'));
  });

  it('memberData present with any value: Account API served', () => {
    expect(answeredBy('accountApi', { ...FULL, memberData: null })).toBe('platform');
  });

  it('mcp disabled: no /mcp; the protected-resource metadata stays', () => {
    const facts = { ...FULL, mcp: { enabled: false } };
    expect(answeredBy('mcp', facts)).toBeUndefined();
    expect(isServed('protectedResourceMetadata', facts)).toBe(true);
    expect(ids(servedEndpoints(facts))).toEqual(ALL_IDS.filter((id) => id !== 'mcp'));
  });

  it('protected-resource metadata only at the root: no path-aware form for /mcp (RFC 9728 §3.3)', () => {
    const metadata = Object.values(ENDPOINTS).filter((e) => e.path.startsWith('/.well-known/oauth-protected-resource'));
    expect(metadata.map((e) => e.path)).toEqual(['/.well-known/oauth-protected-resource']);
  });

  it('docs off one by one', () => {
    const noOpenapi = { ...FULL, docs: { openapi: false, authMd: true } };
    expect(isServed('openapi', noOpenapi)).toBe(false);
    expect(isServed('authMd', noOpenapi)).toBe(true);
    const noAuthMd = { ...FULL, docs: { openapi: true, authMd: false } };
    expect(isServed('openapi', noAuthMd)).toBe(true);
    expect(isServed('authMd', noAuthMd)).toBe(false);
  });

  it('treats only false as docs off', () => {
    expect(isServed('openapi', { ...FULL, docs: { openapi: undefined, authMd: {} } })).toBe(true);
    expect(isServed('authMd', { ...FULL, docs: { openapi: undefined, authMd: {} } })).toBe(true);
  });
});

describe('everything off, registration restricted', () => {
  const ALWAYS: EndpointId[] = [
    'protectedResourceMetadata', 'authorizationServerMetadata', 'openidConfiguration', 'authorization',
    'token', 'userinfo', 'revocation', 'introspection', 'registration', 'interaction',
  ];

  it('serves the core endpoints only, in table order', () => {
    expect(ids(servedEndpoints(MINIMAL))).toEqual(ALL_IDS.filter((id) => ALWAYS.includes(id)));
  });

  it('has the provider answer discovery, authorization, token, revocation and introspection only', () => {
    expect(ids(providerEndpoints(MINIMAL))).toEqual([
      'authorizationServerMetadata', 'openidConfiguration', 'authorization', 'token', 'revocation', 'introspection',
    ]);
  });
});

describe('providerEndpoints', () => {
  const combos: ServingFacts[] = [];
  for (const idTokens of [true, false]) {
    for (const variant of ['open', 'restricted'] as const) {
      for (const mcp of [true, false]) {
        for (const docs of [true, false]) {
          combos.push({
            idTokens, memberData: docs ? {} : undefined, registration: { variant },
            mcp: { enabled: mcp }, docs: { openapi: docs, authMd: docs },
          });
        }
      }
    }
  }

  it.each(combos.map((facts) => [JSON.stringify(facts), facts] as const))('never includes a platform-owned endpoint (%s)', (_label, facts) => {
    const provided = providerEndpoints(facts);
    expect(provided.length).toBeGreaterThan(0);
    for (const e of provided) {
      expect(e.owner).toBe('provider');
      expect(e.providerRoute).toEqual(expect.any(String));
      expect(answeredBy(e.id as EndpointId, facts)).toBe('provider');
    }
    const served = ids(servedEndpoints(facts));
    for (const id of ids(provided)) expect(served).toContain(id);
  });

  it('never lists userinfo, which the platform answers', () => {
    for (const facts of [FULL, MINIMAL]) expect(ids(providerEndpoints(facts))).not.toContain('userinfo');
  });
});

describe('ownPathMatcher (the host\'s own routes skip the library\'s routers when it says no)', () => {
  it('owns every served path, the interaction pages and the provider\'s resume path', () => {
    const owns = ownPathMatcher(FULL);
    for (const { path } of servedEndpoints(FULL)) expect(owns(path.replace('/:uid', '/abc'))).toBe(true);
    expect(owns('/oauth/interaction/abc/login')).toBe(true);
    expect(owns('/oauth/authorize/abc')).toBe(true);
  });

  it('owns a served path exactly: not with a trailing slash, not in another case', () => {
    const owns = ownPathMatcher(FULL);
    for (const path of ['/.well-known/oauth-protected-resource/', '/api/oauth/userinfo/', '/api/oauth/token/', '/mcp/', '/API/OAUTH/USERINFO']) {
      expect([path, owns(path)]).toEqual([path, false]);
    }
  });

  it('owns no host path, no look-alike and nothing switched off', () => {
    const owns = ownPathMatcher(FULL);
    for (const path of ['/', '/admin', '/admin/api/courses', '/mcpx', '/auth.mdx', '/oauth/interaction', '/oauth/authorizex', '/api/oauth']) {
      expect([path, owns(path)]).toEqual([path, false]);
    }
    const minimal = ownPathMatcher(MINIMAL);
    for (const path of ['/mcp', '/account/graphql', '/openapi.json', '/auth.md', '/api/oauth/jwks']) {
      expect([path, minimal(path)]).toEqual([path, false]);
    }
    expect(minimal('/api/oauth/token')).toBe(true);
  });
});
