/**
 * What /openapi.json and /auth.md say about the answers that are rate limits (429
 * `temporarily_unavailable` with `Retry-After`) and about fetching Client ID Metadata
 * Documents: Variant B registration's 413 and 429, the metadata-document fetch budget's 429
 * at every endpoint that names a client, the refusal of special-use hosts. The numbers come
 * from the resolved options, and what the documents say is what the endpoints answer.
 */
import { readFileSync } from 'node:fs';

import { validateOptions } from '../../lib/config/validate.ts';
import { OPTION_DEFAULTS } from '../../lib/config/options.ts';
import { buildOpenApiDocument, renderAuthMd } from '../../lib/docs/index.ts';
import type { OpenApiDocument } from '../../lib/docs/index.ts';
import { duration, perPeriod } from '../../lib/docs/markdown.ts';
import { ENDPOINTS } from '../../lib/endpoints.ts';
import type { PlatformAuthOptions } from '../../lib/index.ts';
import { REGISTRATION_LIMITS } from '../../lib/policies/registration-limits.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import { codeSpans, fetchDocuments, markdownTables, openApiErrors, tableUnder } from './support.ts';
import type { Documents } from './support.ts';

interface DescribedResponse {
  readonly description: string;
  readonly headers?: Record<string, { $ref: string }>;
  readonly content?: Record<string, unknown>;
}

const RETRY_AFTER = { 'Retry-After': { $ref: '#/components/headers/Retry-After' } };
/** the endpoints whose requests name a client, so may fetch its metadata document */
const NAMING_A_CLIENT: readonly [path: string, method: string][] = [
  [ENDPOINTS.authorization.path, 'get'],
  [ENDPOINTS.token.path, 'post'],
  [ENDPOINTS.revocation.path, 'post'],
  [ENDPOINTS.introspection.path, 'post'],
];

function responses(doc: OpenApiDocument, path: string, method: string): Record<string, DescribedResponse> {
  return (doc.paths[path] as Record<string, { responses: Record<string, DescribedResponse> }>)[method]!.responses;
}

function errorRows(md: string): [code: string, status: string, condition: string][] {
  return tableUnder(md, '## 7. Errors').rows.map((r) => [codeSpans(r[0]!)[0]!, r[1]!, r[2]!]);
}

function limitRows(md: string): Record<string, string> {
  return Object.fromEntries(tableUnder(md, '## 8. Limits').rows.map((r) => [r[0]!, r[1]!]));
}

const accounts = { authenticate: async () => undefined, findById: async () => undefined };
const base: PlatformAuthOptions = { baseUrl: 'https://learn.example.com', accounts, logger: { info() {}, warn() {}, error() {} } };

async function render(extra: Partial<PlatformAuthOptions>): Promise<{ openapi: OpenApiDocument; authMd: string }> {
  const options = await validateOptions({ ...base, ...extra });
  const openapi = buildOpenApiDocument(options, options.docs.openapi || { paths: {}, extend: undefined });
  const authMd = renderAuthMd(options, options.docs.authMd || { rateLimits: undefined, limits: [] });
  expect(await openApiErrors(openapi)).toEqual([]);
  return { openapi, authMd };
}

describe('what the documents say is what the endpoints answer (Variant B, tight limits)', () => {
  let app: RunningApp;
  let docs: Documents;
  beforeAll(async () => {
    app = await startApp({
      auth: {
        registration: { variant: 'open', rateLimit: { perIp: 1, windowSeconds: 3600 } },
        authorizationRateLimit: { perIp: 3, windowSeconds: 60 },
        // every document fetch fails, without a network: each new URL still spends the budget
        clientIdMetadataDocuments: { fetch: async () => new Response('gone', { status: 404 }), fetchBudget: { perHost: 100, perCaller: 1, windowSeconds: 60 } },
      },
    });
    docs = await fetchDocuments(app.baseUrl);
  });
  afterAll(() => app.stop());

  const register = (body: string, headers: Record<string, string> = {}) => fetch(`${app.baseUrl}${ENDPOINTS.registration.path}`, {
    method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body,
  });

  it('registration: a body over the limit is 413, a registration over the rate 429 with Retry-After, and both are described', async () => {
    const described = responses(docs.openapi, ENDPOINTS.registration.path, 'post');
    const oversized = await register(JSON.stringify({ redirect_uris: ['http://127.0.0.1/cb'], client_name: 'x'.repeat(REGISTRATION_LIMITS.bodyBytes) }));
    expect(oversized.status).toBe(413);
    expect((await oversized.json()).error).toBe('invalid_request');
    expect(described['413']!.description).toContain('`invalid_request`');
    expect(described['413']!.description).toContain(String(REGISTRATION_LIMITS.bodyBytes));

    const metadata = JSON.stringify({ redirect_uris: ['http://127.0.0.1/cb'], token_endpoint_auth_method: 'none' });
    expect((await register(metadata)).status).toBe(201);
    const refused = await register(metadata);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await refused.json()).error).toBe('temporarily_unavailable');
    expect(described['429']).toMatchObject({ headers: RETRY_AFTER, content: { 'application/json': {} } });
    expect(described['429']!.description).toMatch(/^`temporarily_unavailable`: too many registrations from this client address \(1 at once, the bucket refilled over 1 hour\)/);
  });

  it('the token endpoint: a failed document fetch is 400 invalid_client, a fetch over budget 429 with Retry-After, both described', async () => {
    const token = (clientId: string) => fetch(`${app.baseUrl}${ENDPOINTS.token.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: 'x', code_verifier: 'v'.repeat(43), redirect_uri: 'http://127.0.0.1/cb', client_id: clientId }),
    });
    const failed = await token('https://tools.example/a.json');
    expect(failed.status).toBe(400);
    expect((await failed.json()).error).toBe('invalid_client');
    for (const [path, method] of NAMING_A_CLIENT) {
      expect([path, responses(docs.openapi, path, method)['400']!.description]).toEqual([path, expect.stringMatching(/`invalid_client`.*the fetch failed/)]);
    }
    expect(errorRows(docs.authMd)).toContainEqual(['invalid_client', '400', expect.stringContaining('or the fetch failed')]);
    expect(errorRows(docs.authMd)).toContainEqual(['invalid_client', '401', expect.not.stringContaining('Metadata Document')]);

    const overBudget = await token('https://tools.example/b.json');
    expect(overBudget.status).toBe(429);
    expect(Number(overBudget.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await overBudget.json()).error).toBe('temporarily_unavailable');
    for (const [path, method] of NAMING_A_CLIENT) {
      expect([path, responses(docs.openapi, path, method)['429']]).toEqual([path, expect.objectContaining({ headers: RETRY_AFTER })]);
    }
    expect(responses(docs.openapi, ENDPOINTS.authorization.path, 'get')['429']!.content).toHaveProperty(['text/html']);
    expect(responses(docs.openapi, ENDPOINTS.token.path, 'post')['429']!.content).toHaveProperty(['application/json']);
  });

  it('/auth.md lists 429 temporarily_unavailable for both limits, beside the 503 of a storage outage', () => {
    const rows = errorRows(docs.authMd).filter(([code]) => code === 'temporarily_unavailable');
    expect(rows.map(([, status]) => status)).toEqual(['429', '503']);
    expect(rows[0]![2]).toContain('too many registrations from one client address');
    expect(rows[0]![2]).toContain('too many Client ID Metadata Document fetches');
    const examples = (docs.openapi.components.schemas.OAuthError as { properties: { error: { examples: string[] } } }).properties.error.examples;
    expect(examples.filter((code) => code === 'temporarily_unavailable')).toHaveLength(1);
  });

  it('authorization: a request over the address\'s rate is a 429 page with Retry-After, as both documents say', async () => {
    const described = responses(docs.openapi, ENDPOINTS.authorization.path, 'get')['429']!;
    expect(described).toMatchObject({ headers: RETRY_AFTER, content: { 'text/html': {} } });
    expect(described.description).toContain('the client address has spent its budget of 3 authorization requests per client address at once, refilled at 3 per minute');
    expect(limitRows(docs.authMd)['Authorization requests']).toMatch(/^3 authorization requests per client address at once, refilled at 3 per minute /);
    expect(errorRows(docs.authMd).find(([code, status]) => code === 'temporarily_unavailable' && status === '429')![2])
      .toContain('too many authorization requests from one client address (an error page, not a redirect)');
    const url = `${app.baseUrl}${ENDPOINTS.authorization.path}?response_type=code&client_id=demo-member-app&scope=openid`;
    const statuses: number[] = [];
    let refused: Response | undefined;
    for (let i = 0; i < 5 && !refused; i += 1) {
      const answer = await fetch(url, { redirect: 'manual' });
      statuses.push(answer.status);
      if (answer.status === 429) refused = answer;
    }
    expect(statuses.filter((status) => status !== 429).length).toBeLessThanOrEqual(3);
    expect(refused!.headers.get('content-type')).toMatch(/^text\/html/);
    expect(Number(refused!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});

describe('the numbers follow the options', () => {
  it('defaults: from OPTION_DEFAULTS, in /auth.md (rules, limits) and /openapi.json', async () => {
    const { openapi, authMd } = await render({ registration: { variant: 'open' } });
    const d = OPTION_DEFAULTS.clientIdMetadataDocuments;
    const perHost = d.fetchBudget.perHost.default;
    const perCaller = d.fetchBudget.perCaller.default;
    const window = perPeriod(d.fetchBudget.windowSeconds.default);
    expect(authMd).toContain(`At most ${perHost} documents are fetched from one host and at most ${perCaller} fetches are triggered by one client address per ${window};`);
    expect(authMd).toContain(`remembered for ${d.failureCacheSeconds.default} seconds`);
    expect(authMd).toContain('is refused with `invalid_client` and nothing is sent to it');
    expect(limitRows(authMd)['Client ID Metadata Document fetches']).toBe(`at most ${perHost} per host and ${perCaller} per client address per ${window} (a cached document costs nothing); beyond, \`429\` \`temporarily_unavailable\` with \`Retry-After\``);
    expect(limitRows(authMd)['Rate limits']).toBe('none applied by this server beyond authorization requests, refreshes per grant, sign-in attempts, registrations (see Endpoints, Registration) and Client ID Metadata Document fetches');
    const refresh = OPTION_DEFAULTS.refreshTokenRateLimit;
    const refreshRule = `${refresh.perGrant.default} refreshes per grant at once, refilled at ${refresh.perGrant.default} per ${perPeriod(refresh.windowSeconds.default)}`;
    expect(limitRows(authMd).Refreshes).toBe(`${refreshRule} (a grant: one client's sign-in in one browser session); beyond, \`429\` \`temporarily_unavailable\` with \`Retry-After\`, the refresh token still usable`);
    expect(responses(openapi, ENDPOINTS.token.path, 'post')['429']!.description).toContain(`a \`refresh_token\` grant whose grant has spent its budget of ${refreshRule} (the refresh token is not rotated, and stays usable)`);
    expect(errorRows(authMd).find(([code, status]) => code === 'temporarily_unavailable' && status === '429')![2]).toContain('too many refreshes of one grant (the refresh token stays usable)');
    const authorization = OPTION_DEFAULTS.authorizationRateLimit;
    const authorizationRule = `${authorization.perIp.default} authorization requests per client address at once, refilled at ${authorization.perIp.default} per ${perPeriod(authorization.windowSeconds.default)}`;
    expect(limitRows(authMd)['Authorization requests']).toMatch(new RegExp(`^${authorizationRule} \\(a request over 2048 bytes counts once per started 2048 bytes of its URL\\); beyond, \`429\` with \`Retry-After\` \\(an error page, never a redirect\\)$`));
    const authorize429 = responses(openapi, ENDPOINTS.authorization.path, 'get')['429']!.description;
    expect(authorize429).toContain(`the client address has spent its budget of ${authorizationRule}`);
    expect(authorize429).toContain(`(${perHost} fetches per host, ${perCaller} per client address, per ${window})`);
    expect(responses(openapi, ENDPOINTS.token.path, 'post')['429']!.description).toContain(`(${perHost} fetches per host, ${perCaller} per client address, per ${window})`);
    const rate = OPTION_DEFAULTS.registration.rateLimit;
    expect(responses(openapi, ENDPOINTS.registration.path, 'post')['429']!.description)
      .toContain(`(${rate.perIp.default} at once, the bucket refilled over ${duration(rate.windowSeconds.default)})`);
  });

  it('given values', async () => {
    const { openapi, authMd } = await render({
      clientIdMetadataDocuments: { allowedHosts: ['app.example.com'], fetchBudget: { perHost: 7, perCaller: 3, windowSeconds: 120 }, failureCacheSeconds: 45 },
    });
    expect(authMd).toContain('At most 7 documents are fetched from one host and at most 3 fetches are triggered by one client address per 2 minutes');
    expect(authMd).toContain('remembered for 45 seconds');
    expect(limitRows(authMd)['Client ID Metadata Document fetches']).toMatch(/^at most 7 per host and 3 per client address per 2 minutes /);
    for (const [path, method] of NAMING_A_CLIENT) {
      expect(responses(openapi, path, method)['429']!.description).toContain('(7 fetches per host, 3 per client address, per 2 minutes)');
    }
    // Variant A registers nothing, so has neither its rate limit nor its 429
    expect(responses(openapi, ENDPOINTS.registration.path, 'post')).not.toHaveProperty('429');
    expect(errorRows(authMd).find(([code, status]) => code === 'temporarily_unavailable' && status === '429')![2]).not.toContain('registrations');
  });
});

describe('no 429 where nothing is limited', () => {
  it('fetchBudget: false: no fetch 429, the refusal of special-use hosts still stated', async () => {
    const { openapi, authMd } = await render({
      registration: { variant: 'open', rateLimit: false }, clientIdMetadataDocuments: { fetchBudget: false }, authorizationRateLimit: false,
      refreshTokenRateLimit: false,
    });
    for (const [path, method] of NAMING_A_CLIENT) expect([path, responses(openapi, path, method)]).toEqual([path, expect.not.objectContaining({ 429: expect.anything() })]);
    expect(responses(openapi, ENDPOINTS.registration.path, 'post')).not.toHaveProperty('429');
    expect(responses(openapi, ENDPOINTS.registration.path, 'post')).toHaveProperty('413');
    expect(authMd).toContain('is refused with `invalid_client` and nothing is sent to it');
    expect(authMd).not.toContain('documents are fetched from one host');
    expect(limitRows(authMd)).not.toHaveProperty('Client ID Metadata Document fetches');
    expect(limitRows(authMd)).not.toHaveProperty('Refreshes');
    expect(errorRows(authMd).filter(([, status]) => status === '429')).toEqual([]);
  });

  it('metadata documents off (the default): nothing about fetching them', async () => {
    const { openapi, authMd } = await render({});
    for (const [path, method] of NAMING_A_CLIENT) {
      const described = responses(openapi, path, method);
      // the authorization endpoint's 429 is its own rate, the token endpoint's the refresh rate, both on by default
      if (path === ENDPOINTS.authorization.path || path === ENDPOINTS.token.path) expect(described['429']!.description).not.toContain('Metadata Document');
      else expect(described).not.toHaveProperty('429');
    }
    expect(authMd).not.toContain('fetches the document');
    expect(limitRows(authMd)).not.toHaveProperty('Client ID Metadata Document fetches');
    expect(responses(openapi, ENDPOINTS.token.path, 'post')['400']).toEqual({ $ref: '#/components/responses/OAuthError' });
    expect(errorRows(authMd).filter(([code]) => code === 'invalid_client').map(([, status]) => status)).toEqual(['401']);
  });
});

describe('what the README says /auth.md names without docs.authMd.rateLimits', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const optionsRow = markdownTables(readme).flatMap((t) => t.rows).find((r) => r[0] === '`docs.authMd.rateLimits`')!;
  const sentence = readme.slice(readme.indexOf('Without `rateLimits`')).split('\n\n')[0]!.replaceAll('\n', ' ');

  /** the limits the Rate limits row names, each without its parenthesis */
  function namedLimits(row: string): string[] {
    const listed = row.replace(/^none applied by this server( beyond )?/, '').replace(/ \([^)]*\)/g, '');
    return listed ? listed.split(/, | and /) : [];
  }

  it.each([
    ['Variant A', {}],
    ['Variant B', { registration: { variant: 'open' as const } }],
  ])('%s with default limits: the options table\'s default and the Docs section name each limit the page names', async (_, extra) => {
    const { authMd } = await render(extra);
    const limits = namedLimits(limitRows(authMd)['Rate limits']!);
    expect(limits.length).toBeGreaterThan(0);
    for (const text of [optionsRow[2]!, sentence]) {
      expect([text, limits.filter((limit) => !text.includes(limit))]).toEqual([text, []]);
      expect(text).not.toMatch(/no rate limits/);
    }
  });
});
