/**
 * GET /auth.md: the spec document's shape, rendered from this deployment's configuration,
 * and enough on its own to complete a flow: the test drives a whole member flow using only
 * the requests the page shows.
 */
import { MAX_PAGE_SIZE } from '../../lib/member-data/pagination.ts';
import { Browser, signIn } from '../support/browser.ts';
import { ADMIN, buildAuthorizeUrl, MEMBER, obtainTokens, operator, postForm, STUDENT } from '../support/flows.ts';
import { pkcePair, randomState } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import { codeBlocks, codeSpans, filler, headings, parseCurl, sendCurl, tableUnder } from './support.ts';

let app: RunningApp;
let md: string;
beforeAll(async () => {
  app = await startApp();
  md = await (await fetch(`${app.baseUrl}/auth.md`)).text();
});
afterAll(() => app.stop());

it('has the sections of the spec document, in order', () => {
  const expected = [
    '# Learning-Platform Authorization and Account Access Interface',
    '## 1. What the service does',
    '## 2. Resources and their fields',
    '### 2.1 Scopes (complete list)',
    '### 2.2 Client identity',
    /^### 2\.3 ID token/,
    /^### 2\.4 Member record/,
    '## 3. States and transitions',
    '## 4. Endpoints',
    '### Authorization request parameters (`GET /oauth/authorize`)',
    '### Token request (`POST /api/oauth/token`, `application/x-www-form-urlencoded`)',
    '### Registration (`POST /api/oauth/register`)',
    '## 5. Authentication',
    '## 6. Events',
    '## 7. Errors',
    '## 8. Limits',
    '## 9. Versioning',
  ];
  const found = headings(md);
  let at = 0;
  for (const heading of expected) {
    const index = found.findIndex((h, i) => i >= at && (typeof heading === 'string' ? h === heading : heading.test(h)));
    expect([heading, index >= 0]).toEqual([heading, true]);
    at = index + 1;
  }
});

it('substitutes the real baseUrl and leaves no placeholder of the spec', () => {
  expect(md).not.toMatch(/\{base_url\}/);
  expect(md).toContain(`The service is reached at ${app.baseUrl}.`);
  expect(md).toContain(`${app.baseUrl}/oauth/authorize?response_type=code`);
});

it('shows no secret and no vendor platform name', () => {
  expect(md).not.toContain(app.operatorSecret);
  for (const key of app.auth.options.cookieKeys) expect(md).not.toContain(key);
  for (const key of app.auth.options.jwks.keys) expect(md).not.toContain(String((key as { d?: string }).d));
  // Variant A's vendor platforms are the host's business relations; the page does not list them
  expect(md).not.toMatch(/acme/i);
});

it('states the active variant, ID tokens and metadata documents as configured', () => {
  expect(md).toContain('this deployment runs **Variant A (restricted)**');
  expect(md).toContain('### 2.3 ID token (issued when `openid` is granted at the authorization-code exchange)');
  expect(md).toContain('Client ID Metadata Documents: **off**');
});

it('lists the errors of the spec and their statuses', () => {
  const rows = tableUnder(md, '## 7. Errors').rows;
  const status = Object.fromEntries(rows.map((r) => [codeSpans(r[0]!)[0], r[1]]));
  expect(status).toMatchObject({
    invalid_request: '400', invalid_grant: '400', invalid_client: '401', invalid_scope: '400',
    invalid_client_metadata: '400', invalid_token: '401', insufficient_scope: '403',
  });
});

it('gives the limits the spec leaves out, from the configuration', () => {
  const limits = Object.fromEntries(tableUnder(md, '## 8. Limits').rows.map((r) => [r[0], r[1]]));
  expect(limits).toMatchObject({
    'ID token lifetime': expect.stringMatching(/^10 minutes/),
    'Access token lifetime': '1 hour (3600 seconds)',
    'Refresh token lifetime': expect.stringMatching(/^14 days \(1209600 seconds\)/),
    'Authorization code lifetime': expect.stringMatching(/^1 minute \(60 seconds\)/),
    'Account API page size (`first`)': expect.stringContaining(`maximum ${MAX_PAGE_SIZE}`),
    'Account API query depth': '10 levels of fields; fragments nested in one another at most 100 levels',
    'Sign-in attempts': expect.stringMatching(/^after 5 failed sign-ins per account or 50 per client address, .* up to 15 minutes; .*`429` with `Retry-After`\. Forgotten 15 minutes after the wait that the last failure earned has ended$/),
    'Refreshes': expect.stringMatching(/^60 refreshes per grant at once, refilled at 60 per hour .*`429` `temporarily_unavailable` with `Retry-After`, the refresh token still usable$/),
    'Rate limits': 'none applied by this server beyond authorization requests, refreshes per grant and sign-in attempts',
  });
});

describe('an agent reading only this page completes a flow', () => {
  const block = (test: (b: { intro: string; body: string }) => boolean) => {
    const found = codeBlocks(md).find(test);
    if (!found) throw new Error('the page has no such example');
    return found.body;
  };

  it('authorize, exchange, call UserInfo and the Account API, refresh, revoke', async () => {
    const { verifier, challenge } = pkcePair();
    const state = randomState();
    const nonce = randomState();
    const authorizeUrl = filler({ CLIENT_ID: MEMBER.clientId, CODE_CHALLENGE: challenge, STATE: state, NONCE: nonce })(
      block((b) => b.intro.startsWith('Send the user\'s browser to')),
    );
    const callback = new URL(await signIn(new Browser(app.baseUrl), authorizeUrl, STUDENT));
    expect(callback.searchParams.get('state')).toBe(state);
    expect(callback.searchParams.get('iss')).toBe(app.baseUrl);
    const code = callback.searchParams.get('code')!;

    const exchange = parseCurl(block((b) => b.intro === 'Exchange the code:'), filler({ CODE: code, CLIENT_ID: MEMBER.clientId, CODE_VERIFIER: verifier }));
    const tokenResponse = await sendCurl(exchange);
    expect(tokenResponse.status).toBe(200);
    // the headers the page names on the answer
    expect(codeBlocks(md).some((b) => b.intro === 'Answer (`200`, `Cache-Control: no-store`, `Pragma: no-cache`):')).toBe(true);
    expect([tokenResponse.headers.get('cache-control'), tokenResponse.headers.get('pragma')]).toEqual(['no-store', 'no-cache']);
    const tokens = await tokenResponse.json();
    const shown = JSON.parse(block((b) => b.intro.startsWith('Answer (`200`')));
    expect(Object.keys(tokens).sort()).toEqual(Object.keys(shown).sort());
    expect(tokens.expires_in).toBe(shown.expires_in);
    const idToken = JSON.parse(Buffer.from(tokens.id_token.split('.')[1], 'base64url').toString());
    expect(idToken).toMatchObject({ iss: app.baseUrl, aud: MEMBER.clientId, nonce });

    const withToken = filler({ ACCESS_TOKEN: tokens.access_token });
    const userinfo = await sendCurl(parseCurl(block((b) => b.body.includes('/api/oauth/userinfo')), withToken));
    expect(await userinfo.json()).toMatchObject({ sub: 'acc-student', email: 'student@example.com' });

    const account = await sendCurl(parseCurl(block((b) => b.body.includes('/account/graphql')), withToken));
    expect(account.status).toBe(200);
    const { viewer } = (await account.json()).data;
    expect(viewer.id).toBe('acc-student');
    expect(viewer.enrolledCourses.nodes.length).toBeGreaterThan(0);

    const mcp = await sendCurl(parseCurl(block((b) => b.body.includes('"method":"server/discover"')), withToken));
    expect(mcp.status).toBe(200);
    expect((await mcp.json()).result).toMatchObject({ supportedVersions: ['2026-07-28'], capabilities: { tools: {} } });

    const refresh = parseCurl(block((b) => b.intro.startsWith('Refresh')), filler({ REFRESH_TOKEN: tokens.refresh_token, CLIENT_ID: MEMBER.clientId }));
    const refreshed = await (await sendCurl(refresh)).json();
    expect(refreshed).toMatchObject({ access_token: expect.any(String), refresh_token: expect.any(String) });
    expect(refreshed).not.toHaveProperty('id_token');

    const revokeCommand = /`(curl -X POST [^`]*\/api\/oauth\/revoke[^`]*)`/.exec(md)![1]!;
    const revoke = await sendCurl(parseCurl(revokeCommand, filler({ REFRESH_TOKEN: refreshed.refresh_token, CLIENT_ID: MEMBER.clientId })));
    expect(revoke.status).toBe(200);
    const again = await sendCurl(parseCurl(block((b) => b.intro.startsWith('Refresh')), filler({ REFRESH_TOKEN: refreshed.refresh_token, CLIENT_ID: MEMBER.clientId })));
    expect((await again.json()).error).toBe('invalid_grant');
  });

  it('the Variant A registration example returns a vendor platform\'s client', async () => {
    const request = parseCurl(block((b) => b.body.includes('/api/oauth/register')), filler({ 'YOUR PLATFORM NAME': 'Acme LMS' }));
    const res = await sendCurl(request);
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ client_id: 'acme-lms' });
  });
});

describe('what the page says of spent refresh tokens and of revocation is what the server does', () => {
  const states = (page: string) => page.slice(page.indexOf('## 3. States and transitions'), page.indexOf('## 4.'));
  const refresh = (baseUrl: string, refreshToken: string) => postForm(`${baseUrl}/api/oauth/token`, {
    grant_type: 'refresh_token', refresh_token: refreshToken, client_id: MEMBER.clientId,
  });
  const SCOPE = { scope: 'openid account:read' };

  it('the grace: a rotated refresh token presented again at once by its client is served, as the page says', async () => {
    expect(states(md)).toContain('within 30 seconds of its rotation, the client it was issued to may present it again');
    const tokens = await obtainTokens(app.baseUrl, MEMBER, SCOPE, STUDENT);
    expect((await refresh(app.baseUrl, tokens.refresh_token)).status).toBe(200);
    expect((await refresh(app.baseUrl, tokens.refresh_token)).status).toBe(200);
  });

  it('without the grace (refreshTokenGrace: 0) the page names no exception, and a replay is refused', async () => {
    const strict = await startApp({ auth: { refreshTokenGrace: 0 } });
    try {
      const page = await (await fetch(`${strict.baseUrl}/auth.md`)).text();
      expect(states(page)).toContain('Using a spent refresh token again revokes the whole grant.');
      expect(states(page)).not.toMatch(/exception|of its rotation/);
      const tokens = await obtainTokens(strict.baseUrl, MEMBER, SCOPE, STUDENT);
      expect((await refresh(strict.baseUrl, tokens.refresh_token)).status).toBe(200);
      const replay = await refresh(strict.baseUrl, tokens.refresh_token);
      expect(replay.status).toBe(400);
      expect((await replay.json()).error).toBe('invalid_grant');
    } finally {
      await strict.stop();
    }
  });

  it('revoking an access token ends its grant, refresh token included', async () => {
    expect(states(md)).toContain('Revocation of an access token or of a refresh token ends the whole grant');
    expect(tableUnder(md, '## 4. Endpoints').rows.find((r) => r[1] === '`/api/oauth/revoke`')?.[3]).toContain('with its whole grant');
    const tokens = await obtainTokens(app.baseUrl, MEMBER, SCOPE, STUDENT);
    expect((await postForm(`${app.baseUrl}/api/oauth/revoke`, { token: tokens.access_token, client_id: MEMBER.clientId })).status).toBe(200);
    const refused = await refresh(app.baseUrl, tokens.refresh_token);
    expect(refused.status).toBe(400);
    expect((await refused.json()).error).toBe('invalid_grant');
  });

  it('a public client naming another client\'s token gets 200 and nothing is revoked; a confidential one gets invalid_request', async () => {
    expect(states(md)).toContain('a public client naming another client\'s token gets `200` and nothing is revoked');
    const op = operator(app.baseUrl, app.operatorSecret);
    const operatorTokens = await obtainTokens(app.baseUrl, op, { scope: 'openid courses:read' }, ADMIN);
    const byPublic = await postForm(`${app.baseUrl}/api/oauth/revoke`, { token: operatorTokens.refresh_token, client_id: MEMBER.clientId });
    expect(byPublic.status).toBe(200);
    const still = await postForm(`${app.baseUrl}/api/oauth/token`, {
      grant_type: 'refresh_token', refresh_token: operatorTokens.refresh_token, client_id: op.clientId, client_secret: app.operatorSecret,
    });
    expect(still.status).toBe(200);
    const memberTokens = await obtainTokens(app.baseUrl, MEMBER, SCOPE, STUDENT);
    const byConfidential = await postForm(`${app.baseUrl}/api/oauth/revoke`, { token: memberTokens.refresh_token, client_id: op.clientId, client_secret: app.operatorSecret });
    expect(byConfidential.status).toBe(400);
    expect((await byConfidential.json()).error).toBe('invalid_request');
  });
});

it('the endpoint table\'s methods of the interaction page are answered at its path; the form sub-paths it names take the forms\' POST', async () => {
  const row = tableUnder(md, '## 4. Endpoints').rows.find((r) => codeSpans(r[1]!)[0] === '/oauth/interaction/{uid}')!;
  const listed = row[0]!.split(',').map((m) => m.trim());
  expect(listed).toContain('GET');
  // a live interaction, with its cookies
  const start = await fetch(buildAuthorizeUrl(app.baseUrl, MEMBER, { scope: 'openid account:read', challenge: pkcePair().challenge, state: randomState() }), { redirect: 'manual' });
  const page = start.headers.get('location')!;
  expect(page).toMatch(/^\/oauth\/interaction\/[^/]+$/);
  const cookie = start.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const send = (method: string, path: string) => fetch(`${app.baseUrl}${path}`, {
    method, redirect: 'manual', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, ...(method === 'POST' ? { body: 'a=b' } : {}),
  });
  for (const method of listed) expect([method, (await send(method, page)).status]).toEqual([method, 200]);
  // the table listed `GET, POST` here while a POST to the page is 405 (`Allow: GET, HEAD`)
  expect(listed).not.toContain('POST');
  const post = await send('POST', page);
  expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);

  const [, method, forms] = /the page's forms `([A-Z]+)` to (.*)$/.exec(row[2]!)!;
  const actions = codeSpans(forms!);
  expect(actions.map((path) => path.replace('/oauth/interaction/{uid}/', ''))).toEqual(['login', 'confirm', 'abort']);
  for (const path of actions) {
    const form = path.replace('/oauth/interaction/{uid}', page);
    // the form's own answer (no CSRF token: 403), never the refusal of the method
    expect([path, (await send(method!, form)).status]).not.toEqual([path, 405]);
    expect([path, (await send('GET', form)).headers.get('allow')]).toEqual([path, method]);
  }
});

describe('every error the authorization endpoint redirects with is in 7, and the ones without error_description are named', () => {
  const op = () => operator(app.baseUrl, app.operatorSecret);
  /** The error redirect `extra` gets for `client` (the member client unless named), from `browser` when given. */
  async function redirectOf(extra: Record<string, string>, options: { client?: { clientId: string; redirectUri: string }; scope?: string; browser?: Browser } = {}) {
    const state = randomState();
    const url = buildAuthorizeUrl(app.baseUrl, options.client ?? MEMBER, { scope: options.scope ?? 'openid account:read', challenge: pkcePair().challenge, state, extra });
    const res = options.browser ? await options.browser.request(url) : await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location')!);
    // a fragment for response types that would answer in one (`token`)
    const params = new URLSearchParams(location.hash ? location.hash.slice(1) : location.search);
    expect([params.get('state'), params.get('iss')]).toEqual([state, app.baseUrl]);
    return { error: params.get('error'), described: params.has('error_description') };
  }

  let signedIn: Browser;
  beforeAll(async () => {
    // a session and a grant for the member client (a native client), none for the operator's (a web client)
    signedIn = new Browser(app.baseUrl);
    await signIn(signedIn, buildAuthorizeUrl(app.baseUrl, MEMBER, { scope: 'openid account:read', challenge: pkcePair().challenge, state: randomState() }), STUDENT);
  });

  const cases: [string, () => ReturnType<typeof redirectOf>][] = [
    ['unsupported_response_type', () => redirectOf({ response_type: 'none' })],
    ['unsupported_response_type', () => redirectOf({ response_type: 'token' })],
    ['unsupported_response_mode', () => redirectOf({ response_mode: 'query.jwt' })],
    ['login_required', () => redirectOf({ prompt: 'none' })],
    ['interaction_required', () => redirectOf({ prompt: 'none' }, { browser: signedIn })],
    ['consent_required', () => redirectOf({ prompt: 'none' }, { browser: signedIn, client: op(), scope: 'openid courses:read' })],
    ['request_not_supported', () => redirectOf({ request: 'eyJhbGciOiJub25lIn0.e30.' })],
    ['request_uri_not_supported', () => redirectOf({ request_uri: 'urn:example:x' })],
    ['registration_not_supported', () => redirectOf({ registration: '{}' })],
  ];

  it.each(cases)('%s', async (expected, send) => {
    const { error, described } = await send();
    expect(error).toBe(expected);
    const row = tableUnder(md, '## 7. Errors').rows.find((r) => codeSpans(r[0]!)[0] === expected);
    expect(row?.[1]).toBe('redirect');
    const openapi = await (await fetch(`${app.baseUrl}/openapi.json`)).json();
    expect(openapi.components.schemas.OAuthError.properties.error.examples).toContain(expected);
    const intro = md.slice(md.indexOf('## 7. Errors'), md.indexOf('| Code |'));
    const undescribed = codeSpans(/where the server has words for it \(not for ([^)]*)\)/.exec(intro)?.[1] ?? '');
    expect([expected, undescribed.includes(expected)]).toEqual([expected, !described]);
  });
});

it('takes the host\'s limits and the configured lifetimes and caps', async () => {
  const custom = await startApp({
    auth: {
      ttl: { accessToken: 900, refreshToken: 30 * 86400, authorizationCode: 120, grant: 30 * 86400 },
      accountApi: { maxPageSize: 50, maxDepth: 6 },
      docs: { authMd: { rateLimits: '600 requests per minute per IP address; 429 with Retry-After beyond', limits: [{ item: 'Request body (proxy)', value: '1 MiB' }] } },
    },
  });
  try {
    const page = await (await fetch(`${custom.baseUrl}/auth.md`)).text();
    const limits = Object.fromEntries(tableUnder(page, '## 8. Limits').rows.map((r) => [r[0], r[1]]));
    expect(limits).toMatchObject({
      'Access token lifetime': '15 minutes (900 seconds)',
      'Refresh token lifetime': expect.stringMatching(/^30 days/),
      'Authorization code lifetime': expect.stringMatching(/^2 minutes \(120 seconds\)/),
      'Account API page size (`first`)': expect.stringContaining('default 20, maximum 50'),
      'Account API query depth': '6 levels of fields; fragments nested in one another at most 100 levels',
      'Rate limits': '600 requests per minute per IP address; 429 with Retry-After beyond',
      'Request body (proxy)': '1 MiB',
    });
    const openapi = await (await fetch(`${custom.baseUrl}/openapi.json`)).json();
    expect(openapi.components.schemas.TokenResponse.properties.expires_in.examples).toEqual([900]);
  } finally {
    await custom.stop();
  }
});

describe('a client registered as the page shows (Variant B) completes a flow with the operator scopes it names', () => {
  let open: RunningApp;
  let page: string;
  beforeAll(async () => {
    open = await startApp({ auth: { registration: { variant: 'open' } } });
    page = await (await fetch(`${open.baseUrl}/auth.md`)).text();
  });
  afterAll(() => open.stop());

  it('register, then the authorization URL with the operator example scope: a code, not invalid_scope', async () => {
    const register = codeBlocks(page).find((b) => b.body.includes('/api/oauth/register'))!.body;
    const registered = await (await sendCurl(parseCurl(register))).json() as { client_id: string };
    expect(registered.client_id).toEqual(expect.any(String));
    // the sentence after the member example names what an operator client asks for instead
    const operatorScope = /for example `scope=([^`]+)`: .* are member clients' only/.exec(page)?.[1];
    expect(operatorScope).toBeDefined();
    const template = codeBlocks(page).find((b) => b.intro.startsWith('Send the user\'s browser to'))!.body;
    const url = filler({ CLIENT_ID: encodeURIComponent(registered.client_id), CODE_CHALLENGE: pkcePair().challenge, STATE: randomState(), NONCE: randomState() })(template)
      .replace(/scope=[^&]+/, `scope=${operatorScope}`);
    const callback = new URL(await signIn(new Browser(open.baseUrl), url, ADMIN));
    expect(callback.searchParams.get('error')).toBeNull();
    expect(callback.searchParams.get('code')).toEqual(expect.any(String));
    // and the member example as it stands is refused for it, as the sentence says
    const asShown = filler({ CLIENT_ID: encodeURIComponent(registered.client_id), CODE_CHALLENGE: pkcePair().challenge, STATE: randomState(), NONCE: randomState() })(template);
    const refused = new URL(await signIn(new Browser(open.baseUrl), asShown, ADMIN));
    expect(refused.searchParams.get('error')).toBe('invalid_scope');
  });
});
