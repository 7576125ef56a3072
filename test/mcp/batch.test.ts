/**
 * JSON-RPC batches on the 2025 revisions over HTTP: answered as batches in 2025-03-26 (and
 * without `MCP-Protocol-Version`, which means 2025-03-26), refused in 2025-06-18 and 2025-11-25
 * (which have none), and refused, not left hanging, when they cancel their own request. A
 * batch of calls refused for their token is challenged once, naming every scope it needs.
 */
import { ADMIN, MEMBER, obtainTokens, operator, STUDENT } from '../support/flows.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import { challengeParams, mcpUrl } from './support.ts';

let app: RunningApp;
beforeAll(async () => { app = await startApp(); });
afterAll(() => app.stop());

const whoami = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } };
const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
const cancel = (requestId: unknown) => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'changed my mind' } });

/** POSTs `body`; a hang fails here, well inside the test's own timeout, instead of at it. */
async function post(body: unknown, revision: string | undefined) {
  const res = await fetch(mcpUrl(app), {
    method: 'POST',
    headers: {
      'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(revision ? { 'mcp-protocol-version': revision } : {}),
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(5000),
  });
  return { status: res.status, body: await res.json() as Record<string, unknown> | Record<string, unknown>[] };
}

function mcpLogLines(from: number): string[] {
  return app.warnings.slice(from).filter((w) => w.includes('/mcp'));
}

describe('a batch that cancels its own request', () => {
  it.each([['2025-03-26'], ['2025-06-18'], ['no header (2025-03-26)']])('%s: 400 Invalid Request at once, not an answer that never comes', async (label) => {
    const revision = label.startsWith('no header') ? undefined : label;
    const before = app.warnings.length;
    const { status, body } = await post([whoami, cancel(1)], revision);
    expect(status).toBe(400);
    expect(body).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: expect.stringMatching(/^Invalid Request: /) }, id: null });
    // a client's mistake: no error line each
    expect(mcpLogLines(before)).toEqual([]);
  });

  it('names the cancelled request, also when the cancellation comes first (the SDK runs notification handlers after the batch\'s requests are registered)', async () => {
    const { status, body } = await post([cancel(1), whoami], '2025-03-26');
    expect(status).toBe(400);
    expect((body as { error: { message: string } }).error.message).toMatch(/cancels its own request 1 \(notifications\/cancelled\)/);
  });

  it('a cancellation naming no request of the batch changes nothing: the batch is answered', async () => {
    // "1" is not 1 to the SDK either (it looks handlers up by the id as sent)
    for (const other of [7, '1']) {
      const { status, body } = await post([whoami, cancel(other)], '2025-03-26');
      expect(status).toBe(200);
      expect(body).toMatchObject({ id: 1, result: { structuredContent: { authenticated: false } } });
    }
  });
});

describe('a batch that uses a request id twice', () => {
  const search = (id: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'search_courses', arguments: {} } });

  it.each([['2025-03-26'], ['no header (2025-03-26)']])('%s: 400 Invalid Request naming the id, not one of the two answers dropped', async (label) => {
    const revision = label.startsWith('no header') ? undefined : label;
    const before = app.warnings.length;
    for (const [batch, id] of [[[search(1), whoami], '1'], [[{ ...whoami, id: 7 }, search(7), { ...list, id: 8 }], '7'], [[search('a'), list, { ...whoami, id: 'a' }], '"a"']] as const) {
      const { status, body } = await post(batch, revision);
      expect(status).toBe(400);
      expect(body).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: expect.stringMatching(/^Invalid Request: /) }, id: null });
      expect((body as { error: { message: string } }).error.message).toContain(`request id ${id} more than once`);
    }
    expect(mcpLogLines(before)).toEqual([]);
  });

  it('1 and "1" are two ids (as to the SDK): both answered', async () => {
    const { status, body } = await post([search(1), { ...whoami, id: '1' }], '2025-03-26');
    expect(status).toBe(200);
    expect((body as { id: unknown }[]).map((a) => a.id).sort()).toEqual([1, '1']);
  });
});

describe('batches by revision', () => {
  it.each([['2025-03-26', '2025-03-26'], ['no header (2025-03-26)', undefined]])('%s: a batch is answered as a batch', async (_label, revision) => {
    const { status, body } = await post([whoami, list], revision);
    expect(status).toBe(200);
    const answers = body as { id: number; result: Record<string, unknown> }[];
    expect(answers.map((a) => a.id).sort()).toEqual([1, 2]);
    expect(answers.find((a) => a.id === 1)!.result).toMatchObject({ structuredContent: { authenticated: false } });
    expect(answers.find((a) => a.id === 2)!.result).toHaveProperty('tools');
  });

  it('at most 100 messages (the SDK\'s cap, README "Limits"): 100 anonymous calls are answered, 101 refused', async () => {
    const calls = (n: number) => Array.from({ length: n }, (_, i) => ({ ...whoami, id: i + 1 }));
    const hundred = await post(calls(100), '2025-03-26');
    expect(hundred.status).toBe(200);
    expect(hundred.body).toHaveLength(100);
    const over = await post(calls(101), '2025-03-26');
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
  });

  it.each([['2025-06-18'], ['2025-11-25']])('%s has no batches: 400 Invalid Request naming the revision; one message per POST is served', async (revision) => {
    const before = app.warnings.length;
    const { status, body } = await post([whoami, list], revision);
    expect(status).toBe(400);
    expect(body).toEqual({
      jsonrpc: '2.0', id: null,
      error: { code: -32600, message: `Invalid Request: protocol revision ${revision} has no JSON-RPC batches (only 2025-03-26 had them); send one message per POST` },
    });
    // even a batch of one
    expect((await post([list], revision)).status).toBe(400);
    expect(mcpLogLines(before)).toEqual([]);
    expect(await post(whoami, revision)).toMatchObject({ status: 200, body: { id: 1, result: { structuredContent: { authenticated: false } } } });
  });
});

describe('a batch whose calls need different scopes (MCP authorization: all scopes in a single challenge)', () => {
  const calls = [
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_site_courses', arguments: {} } },
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_site_students', arguments: {} } },
  ];
  const postWith = (token?: string) => fetch(mcpUrl(app), {
    method: 'POST',
    headers: {
      'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-03-26',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(calls),
  });
  const scopesOf = (res: Response) => (challengeParams(res.headers.get('www-authenticate')).scope ?? '').split(' ').sort();
  const tokenWith = async (scope: string) => (await obtainTokens(app.baseUrl, operator(app.baseUrl, app.operatorSecret), { scope }, ADMIN)).access_token;

  it('403: a token with neither scope is told both', async () => {
    const res = await postWith(await tokenWith('openid'));
    expect(res.status).toBe(403);
    expect(challengeParams(res.headers.get('www-authenticate')).error).toBe('insufficient_scope');
    expect(scopesOf(res)).toEqual(['courses:read', 'students:read']);
  });

  it('403: a token with one of them is told both, as the request needs both', async () => {
    const res = await postWith(await tokenWith('openid courses:read'));
    expect(res.status).toBe(403);
    expect(scopesOf(res)).toEqual(['courses:read', 'students:read']);
  });

  it('401: an anonymous batch is told both', async () => {
    const res = await postWith();
    expect(res.status).toBe(401);
    expect(scopesOf(res)).toEqual(['courses:read', 'students:read']);
  });

  it('stepping up once with what the 403 named is enough to be served', async () => {
    const first = await postWith(await tokenWith('openid'));
    const named = challengeParams(first.headers.get('www-authenticate')).scope;
    expect((await postWith(await tokenWith(`openid ${named}`))).status).toBe(200);
  });
});

describe('a batch calling member tools and operator tools: no one token may call both', () => {
  const mixed = [
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_my_orders', arguments: {} } },
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_site_courses', arguments: {} } },
  ];
  const postWith = (token?: string) => fetch(mcpUrl(app), {
    method: 'POST',
    headers: {
      'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-03-26',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(mixed),
  });

  it('400 Invalid Request naming both audiences\' tools, anonymous or with either client\'s token; no challenge to an authorization no client can be granted', async () => {
    const member = (await obtainTokens(app.baseUrl, MEMBER, { scope: 'openid account:read', resource: app.baseUrl }, STUDENT)).access_token;
    const op = (await obtainTokens(app.baseUrl, operator(app.baseUrl, app.operatorSecret), { scope: 'openid courses:read' }, ADMIN)).access_token;
    for (const token of [undefined, member, op]) {
      const res = await postWith(token);
      expect({ status: res.status, challenge: res.headers.get('www-authenticate') }).toEqual({ status: 400, challenge: null });
      expect(await res.json()).toEqual({
        jsonrpc: '2.0', id: null,
        error: { code: -32600, message: 'Invalid Request: the batch calls tools for member clients (list_my_orders) and tools for operator clients (list_site_courses); no one token may call both: send them in separate requests, each with its own client\'s token' },
      });
    }
  });

  it('the scopes a single-audience challenge names can be granted: an anonymous member batch is told account:read alone', async () => {
    const res = await fetch(mcpUrl(app), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-03-26' },
      body: JSON.stringify([mixed[0], { ...mixed[0], id: 3, params: { name: 'get_my_progress', arguments: { course: 'music-theory' } } }]),
    });
    expect(res.status).toBe(401);
    expect(challengeParams(res.headers.get('www-authenticate')).scope).toBe('account:read');
  });
});

describe('a batch the transport refuses is refused before its protected calls are challenged', () => {
  const memberCall = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'list_my_orders', arguments: {} } });
  it.each([
    ['naming a revision not served', [memberCall(1)], '1999-01-01', 400],
    ['of 101 messages', Array.from({ length: 101 }, (_, i) => memberCall(i + 1)), undefined, 400],
    ['with initialize in it', [{ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'probe', version: '1' } } }, memberCall(1)], undefined, 400],
  ] as const)('%s: 400, no challenge', async (_label, batch, revision, status) => {
    const res = await fetch(mcpUrl(app), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(revision ? { 'mcp-protocol-version': revision } : {}) },
      body: JSON.stringify(batch),
    });
    expect({ status: res.status, challenge: res.headers.get('www-authenticate') }).toEqual({ status, challenge: null });
  });
});
