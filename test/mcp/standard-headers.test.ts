/**
 * lib/mcp/standard-headers.ts copies the SDK's transport checks (not exported by it) so that
 * /mcp can ask them before refusing a call for its token. Its verdicts must stay the SDK's:
 * each case is sent to the running endpoint for a public tool, where no token is needed and the
 * SDK's own checks answer, and compared with this module's answer for the same request.
 */
import { MCP_REVISIONS } from '../../lib/constants.ts';
import { transportRejection } from '../../lib/mcp/standard-headers.ts';
import { ADMIN, obtainTokens, operator } from '../support/flows.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import { mcpUrl } from './support.ts';

let app: RunningApp;
beforeAll(async () => { app = await startApp(); });
afterAll(() => app.stop());

const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': MCP_REVISIONS.current, 'io.modelcontextprotocol/clientCapabilities': {} };
const call = (name: string) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {}, _meta: ENVELOPE } });
const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'probe', version: '1' } } };
const legacyCall = (name: string) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } });
const withRevision = (message: ReturnType<typeof call>, revision: string) => ({ ...message, params: { ...message.params, _meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': revision } } });
const b64 = (text: string) => `=?base64?${Buffer.from(text).toString('base64')}?=`;

const CASES: [string, Record<string, string>, unknown][] = [
  ['every header right', { 'mcp-protocol-version': MCP_REVISIONS.current, 'mcp-method': 'tools/call', 'mcp-name': 'whoami' }, call('whoami')],
  ['the name in Base64', { 'mcp-protocol-version': MCP_REVISIONS.current, 'mcp-method': 'tools/call', 'mcp-name': b64('whoami') }, call('whoami')],
  ['the name with spaces around it', { 'mcp-protocol-version': MCP_REVISIONS.current, 'mcp-method': 'tools/call', 'mcp-name': ' whoami\t' }, call('whoami')],
  ['no MCP-Protocol-Version', { 'mcp-method': 'tools/call', 'mcp-name': 'whoami' }, call('whoami')],
  ['no Mcp-Method', { 'mcp-protocol-version': MCP_REVISIONS.current, 'mcp-name': 'whoami' }, call('whoami')],
  ['Mcp-Method naming another method', { 'mcp-protocol-version': MCP_REVISIONS.current, 'mcp-method': 'tools/list', 'mcp-name': 'whoami' }, call('whoami')],
  ['no Mcp-Name', { 'mcp-protocol-version': MCP_REVISIONS.current, 'mcp-method': 'tools/call' }, call('whoami')],
  ['Mcp-Name naming another tool', { 'mcp-protocol-version': MCP_REVISIONS.current, 'mcp-method': 'tools/call', 'mcp-name': 'search_courses' }, call('whoami')],
  ['another tool in Base64', { 'mcp-protocol-version': MCP_REVISIONS.current, 'mcp-method': 'tools/call', 'mcp-name': b64('whoamI') }, call('whoami')],
  ['Base64 that is not canonical', { 'mcp-protocol-version': MCP_REVISIONS.current, 'mcp-method': 'tools/call', 'mcp-name': '=?base64?d2hvYW1p?=' }, call('whoami')],
  ['Base64 that is not UTF-8', { 'mcp-protocol-version': MCP_REVISIONS.current, 'mcp-method': 'tools/call', 'mcp-name': '=?base64?/w==?=' }, call('whoami')],
  ['a header naming another revision', { 'mcp-protocol-version': '2025-11-25', 'mcp-method': 'tools/call', 'mcp-name': 'whoami' }, call('whoami')],
  ['a method without a name (tools/list), no Mcp-Name', { 'mcp-protocol-version': MCP_REVISIONS.current, 'mcp-method': 'tools/list' }, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: ENVELOPE } }],
  ['an envelope and header naming a revision not served', { 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'tools/call', 'mcp-name': 'whoami' }, withRevision(call('whoami'), '2099-01-01')],
  ['an envelope naming a revision not served, no header', { 'mcp-method': 'tools/call', 'mcp-name': 'whoami' }, withRevision(call('whoami'), '2099-01-01')],
  ['2025: every header right', { 'mcp-protocol-version': '2025-11-25' }, legacyCall('whoami')],
  ['2025: no MCP-Protocol-Version', {}, legacyCall('whoami')],
  ['2025: a revision not served', { 'mcp-protocol-version': '1999-01-01' }, legacyCall('whoami')],
  ['2025: a 2024 revision (the SDK\'s own list has it, this endpoint does not serve it)', { 'mcp-protocol-version': '2024-11-05' }, legacyCall('whoami')],
  ['2025: Accept without text/event-stream', { 'mcp-protocol-version': '2025-11-25', accept: 'application/json' }, legacyCall('whoami')],
  ['2025: Accept text/html', { 'mcp-protocol-version': '2025-11-25', accept: 'text/html' }, legacyCall('whoami')],
  ['2025-03-26: a batch holding a message that is not JSON-RPC', {}, [legacyCall('whoami'), { jsonrpc: '2.0', id: 2 }]],
  ['2025: a batch naming a revision not served', { 'mcp-protocol-version': '2024-11-05' }, [legacyCall('whoami')]],
  ['2025-03-26: a batch of 101 messages', {}, Array.from({ length: 101 }, (_, i) => ({ ...legacyCall('whoami'), id: i + 1 }))],
  ['2025-03-26: a batch of 100 messages', {}, Array.from({ length: 100 }, (_, i) => ({ ...legacyCall('whoami'), id: i + 1 }))],
  ['2025-03-26: initialize in a batch', {}, [INITIALIZE, { ...legacyCall('whoami'), id: 2 }]],
  ['2025: initialize alone, any revision header', { 'mcp-protocol-version': '1999-01-01' }, INITIALIZE],
  ['2025: initialize with empty params (no initialization to the SDK), a revision not served', { 'mcp-protocol-version': '1999-01-01' }, { ...INITIALIZE, params: {} }],
  ['2025-03-26: a batch of initialize with empty params and a call', {}, [{ ...INITIALIZE, params: {} }, { ...legacyCall('whoami'), id: 2 }]],
  ['2025-03-26: a batch of an initialize notification and a call', {}, [{ jsonrpc: '2.0', method: 'initialize', params: INITIALIZE.params }, { ...legacyCall('whoami'), id: 2 }]],
];

it.each(CASES)('%s: the same verdict as the SDK\'s', async (_label, headers, body) => {
  const res = await fetch(mcpUrl(app), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
  const answer = await res.json() as { id: unknown; error?: { code: number; message: string; data?: unknown } };
  const sdk = res.status >= 400 ? { status: res.status, ...answer.error, id: answer.id } : undefined;
  const ours = transportRejection({
    protocolVersion: headers['mcp-protocol-version'], method: headers['mcp-method'], name: headers['mcp-name'], accept: headers.accept ?? 'application/json, text/event-stream',
  }, body);
  expect(ours && { status: ours.status, code: ours.code, message: ours.message, ...(ours.data === undefined ? {} : { data: ours.data }), id: ours.id ?? null }).toEqual(sdk);
});

/**
 * Not the SDK's rule: on the 2025 revisions it reads neither `Mcp-Method` nor `Mcp-Name`. A
 * gateway in front may route or apply its policy by them, so /mcp asks them to agree with the
 * body when sent (lib/mcp/standard-headers.ts, `legacyHeaderRejection`), as on 2026-07-28.
 */
describe('2025-era requests that send Mcp-Method or Mcp-Name anyway', () => {
  const post = (headers: Record<string, string>, body: unknown, token?: string) => fetch(mcpUrl(app), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: JSON.stringify(body),
  });
  const refusal = (body: string) => ({ code: -32020, message: `Bad Request: the request headers and body disagree: ${body}` });
  let operatorToken: string;
  beforeAll(async () => {
    operatorToken = (await obtainTokens(app.baseUrl, operator(app.baseUrl, app.operatorSecret), { scope: 'openid courses:read students:read' }, ADMIN)).access_token;
  });

  it.each([
    ['no MCP-Protocol-Version', {}],
    ['MCP-Protocol-Version 2025-11-25', { 'mcp-protocol-version': '2025-11-25' }],
  ])('%s, headers naming whoami, the body another tool: 400 -32020, the tool not run', async (_label, version) => {
    const res = await post({ ...version, 'mcp-method': 'tools/call', 'mcp-name': 'whoami' }, legacyCall('list_site_students'), operatorToken);
    expect(res.status).toBe(400);
    const answer = await res.json();
    expect(answer).toMatchObject({ id: 1, error: refusal('the body carries params.name="list_site_students" but the Mcp-Name header names "whoami"') });
    expect(JSON.stringify(answer)).not.toContain('acc-student');
  });

  it('Mcp-Method naming another method: 400 -32020', async () => {
    const res = await post({ 'mcp-method': 'tools/list' }, legacyCall('list_site_students'), operatorToken);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: refusal('the body names method tools/call but the Mcp-Method header names tools/list') });
  });

  it('without a token too, before the sign-in challenge', async () => {
    const res = await post({ 'mcp-method': 'tools/call', 'mcp-name': 'whoami' }, legacyCall('list_site_students'));
    expect(res.status).toBe(400);
    expect(res.headers.get('www-authenticate')).toBeNull();
    await res.body?.cancel();
  });

  it('a 2025-03-26 batch: every message is held to them', async () => {
    const res = await post({ 'mcp-method': 'tools/call', 'mcp-name': 'whoami' }, [legacyCall('whoami'), { ...legacyCall('list_site_students'), id: 2 }], operatorToken);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ id: null, error: refusal('the body carries params.name="list_site_students" but the Mcp-Name header names "whoami"') });
  });

  it('headers that agree (plain or Base64) are served as before', async () => {
    for (const name of ['list_site_students', b64('list_site_students')]) {
      const res = await post({ 'mcp-protocol-version': '2025-11-25', 'mcp-method': 'tools/call', 'mcp-name': name }, legacyCall('list_site_students'), operatorToken);
      expect(res.status).toBe(200);
      expect((await res.json()).result.isError).toBeFalsy();
    }
  });
});
