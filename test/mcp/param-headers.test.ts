/**
 * Host tools that mirror an argument in an `Mcp-Param-*` header (`x-mcp-header`, MCP
 * 2026-07-28, SEP-2243; lib/mcp/param-headers.ts): a browser page may send those headers (the
 * CORS preflight allows them), a call without them is refused 400 `-32020` before any token
 * is asked for (never sent through sign-in), and the copied rule gives the SDK's verdict.
 */
import { z } from 'zod';

import { MCP_REVISIONS } from '../../lib/constants.ts';
import { defineMcpTool } from '../../lib/mcp/index.ts';
import { scanParamHeaders } from '../../lib/mcp/param-headers.ts';
import { transportRejection } from '../../lib/mcp/standard-headers.ts';
import { createToolRegistry } from '../../lib/mcp/tools/registry.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import { mcpUrl } from './support.ts';

const PAGE = 'http://localhost:5173';
const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': MCP_REVISIONS.current, 'io.modelcontextprotocol/clientCapabilities': {} };

const regionArguments = z.object({
  region: z.string().meta({ 'x-mcp-header': 'Region' }),
  count: z.number().int().optional().meta({ 'x-mcp-header': 'Count' }),
  draft: z.boolean().optional().meta({ 'x-mcp-header': 'Draft' }),
});
const TOOLS = [
  defineMcpTool({
    name: 'region_report', description: 'echoes the region', audience: 'public', scopes: [], inputSchema: regionArguments,
    handler: ({ region }) => ({ region }),
  }),
  defineMcpTool({
    name: 'site_region_report', description: 'echoes the region, for operators', audience: 'operator', scopes: ['courses:read'], inputSchema: regionArguments,
    handler: ({ region }) => ({ region }),
  }),
];

let app: RunningApp;
beforeAll(async () => { app = await startApp({ auth: { mcp: { tools: TOOLS } } }); });
afterAll(() => app.stop());

const call = (name: string, args: Record<string, unknown>) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args, _meta: ENVELOPE } });
const standard = (name: string) => ({ 'mcp-protocol-version': MCP_REVISIONS.current, 'mcp-method': 'tools/call', 'mcp-name': name });
const b64 = (text: string) => `=?base64?${Buffer.from(text).toString('base64')}?=`;

function post(headers: Record<string, string>, body: unknown) {
  return fetch(mcpUrl(app), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
}

describe('a browser page', () => {
  it('may send the Mcp-Param-* headers the tools declare: the preflight allows them', async () => {
    const res = await fetch(mcpUrl(app), {
      method: 'OPTIONS',
      headers: {
        origin: PAGE, 'access-control-request-method': 'POST',
        'access-control-request-headers': 'mcp-method,mcp-name,mcp-param-count,mcp-param-draft,mcp-param-region,mcp-protocol-version',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(PAGE);
    const allowed = (res.headers.get('access-control-allow-headers') ?? '').split(',').map((name) => name.trim().toLowerCase());
    expect(allowed).toEqual(expect.arrayContaining(['mcp-param-region', 'mcp-param-count', 'mcp-param-draft', 'mcp-method', 'mcp-name']));
  });
});

describe('a call without the header its tool declares', () => {
  it('of a tool that needs a token, sent without one: 400 -32020, never the sign-in challenge', async () => {
    const res = await post(standard('site_region_report'), call('site_region_report', { region: 'eu' }));
    expect(res.status).toBe(400);
    expect(res.headers.get('www-authenticate')).toBeNull();
    expect(await res.json()).toEqual({
      jsonrpc: '2.0', id: 1,
      error: {
        code: -32020,
        message: 'Bad Request: the request headers and body disagree: the body carries region="eu" but the Mcp-Param-Region header is absent',
        data: { mismatch: { header: 'Mcp-Param-Region', body: 'the body carries region="eu" but the Mcp-Param-Region header is absent' } },
      },
    });
  });

  it('with the header, the same call gets the challenge naming the tool\'s scopes', async () => {
    const res = await post({ ...standard('site_region_report'), 'mcp-param-region': 'eu' }, call('site_region_report', { region: 'eu' }));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('scope="courses:read"');
    await res.body?.cancel();
  });
});

const CASES: [string, Record<string, string>, Record<string, unknown>][] = [
  ['every header right', { 'mcp-param-region': 'eu', 'mcp-param-count': '3', 'mcp-param-draft': 'true' }, { region: 'eu', count: 3, draft: true }],
  ['no Mcp-Param-Region', {}, { region: 'eu' }],
  ['Mcp-Param-Region naming another region', { 'mcp-param-region': 'us' }, { region: 'eu' }],
  ['Mcp-Param-Region in Base64', { 'mcp-param-region': b64('eu') }, { region: 'eu' }],
  ['Mcp-Param-Region in Base64 that is not canonical', { 'mcp-param-region': '=?base64?ZX?=' }, { region: 'eu' }],
  ['an integer written 3.0 (compared as a number)', { 'mcp-param-region': 'eu', 'mcp-param-count': '3.0' }, { region: 'eu', count: 3 }],
  ['an integer that disagrees', { 'mcp-param-region': 'eu', 'mcp-param-count': '4' }, { region: 'eu', count: 3 }],
  ['a boolean spelt True', { 'mcp-param-region': 'eu', 'mcp-param-draft': 'True' }, { region: 'eu', draft: true }],
  ['an optional argument left out, its header sent anyway', { 'mcp-param-region': 'eu', 'mcp-param-count': '9' }, { region: 'eu' }],
  ['an empty header for an empty argument', { 'mcp-param-region': '' }, { region: '' }],
];

it.each(CASES)('%s: the same verdict as the SDK\'s', async (_label, params, args) => {
  const headers = { ...standard('region_report'), ...params };
  const res = await post(headers, call('region_report', args));
  const answer = await res.json() as { id: unknown; error?: { code: number; message: string; data?: unknown } };
  const sdk = res.status >= 400 ? { status: res.status, ...answer.error, id: answer.id } : undefined;
  const registry = createToolRegistry(TOOLS);
  const ours = transportRejection({
    protocolVersion: headers['mcp-protocol-version'], method: headers['mcp-method'], name: headers['mcp-name'], get: (name) => (headers as Record<string, string>)[name.toLowerCase()],
  }, call('region_report', args), (tool) => registry.get(tool)?.paramHeaders);
  expect(ours && { status: ours.status, code: ours.code, message: ours.message, ...(ours.data === undefined ? {} : { data: ours.data }), id: ours.id ?? null }).toEqual(sdk);
});

describe('scanParamHeaders, as the SDK scans', () => {
  const jsonSchema = (schema: z.ZodType) => z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input' });

  it('finds declarations at any depth of properties', () => {
    const schema = z.object({ where: z.object({ region: z.string().meta({ 'x-mcp-header': 'Region' }) }) });
    expect(scanParamHeaders(jsonSchema(schema))).toEqual([{ path: ['where', 'region'], headerName: 'Region', type: 'string' }]);
  });

  it('finds none in a schema with a declaration it forbids (under items; not a token; twice): clients leave such a tool out', () => {
    expect(scanParamHeaders(jsonSchema(z.object({ a: z.string().meta({ 'x-mcp-header': 'A' }), list: z.array(z.string().meta({ 'x-mcp-header': 'B' })) })))).toEqual([]);
    expect(scanParamHeaders(jsonSchema(z.object({ a: z.string().meta({ 'x-mcp-header': 'Not A Token' }) })))).toEqual([]);
    expect(scanParamHeaders(jsonSchema(z.object({ a: z.string().meta({ 'x-mcp-header': 'A' }), b: z.string().meta({ 'x-mcp-header': 'a' }) })))).toEqual([]);
  });

  it('keeps a number-typed one (invalid, yet the SDK still checks its header)', () => {
    expect(scanParamHeaders(jsonSchema(z.object({ n: z.number().meta({ 'x-mcp-header': 'N' }) })))).toEqual([{ path: ['n'], headerName: 'N', type: 'number' }]);
  });
});
