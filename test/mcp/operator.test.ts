/**
 * Host tools (`options.mcp.tools`): the demo's operator tools gated by audience and scope,
 * the step-up answer for a missing scope, and what happens when a host tool fails.
 */
import { McpServer } from '@modelcontextprotocol/server';
import { jest } from '@jest/globals';
import { z } from 'zod';

import { McpToolError, UNEXPECTED_TOOL_ERROR, defineMcpTool } from '../../lib/mcp/index.ts';
import { demoMcpOptions } from '../../examples/host/mcp-tools.ts';
import { createAccountStore } from '../../examples/host/seed.ts';
import { ADMIN, obtainTokens, operator } from '../support/flows.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import {
  challengeParams, connect, expectHttpError, LIBRARY_PUBLIC_TOOLS, rejection, structured, toolErrorText, toolNames,
} from './support.ts';

let app: RunningApp;

beforeAll(async () => { app = await startApp(); });
afterAll(() => app.stop());

/** what a 2026-07-28 tools/call of slow_echo carries besides the body */
const MODERN_CALL = {
  headers: { 'mcp-method': 'tools/call', 'mcp-name': 'slow_echo' },
  meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
} as const;

const operatorToken = async (target: RunningApp, scope: string) =>
  (await obtainTokens(target.baseUrl, operator(target.baseUrl, target.operatorSecret), { scope }, ADMIN)).access_token;

describe('the demo operator tools', () => {
  it('with courses:read and students:read: both tools, each answering for the operator\'s school', async () => {
    const op = await connect(app, { token: await operatorToken(app, 'openid courses:read students:read') });
    try {
      expect(await toolNames(op.client)).toEqual([...LIBRARY_PUBLIC_TOOLS, 'list_site_courses', 'list_site_students']);
      const { site, courses } = structured<{ site: string; courses: { slug: string; public: boolean }[] }>(
        await op.client.callTool({ name: 'list_site_courses', arguments: {} }),
      );
      expect(site).toBe('demo-school');
      expect(courses).toHaveLength(31);
      expect(courses).toContainEqual({ slug: 'staff-onboarding', title: 'Staff Onboarding', public: false });
      const listed = structured<{ courses: unknown[] }>(await op.client.callTool({ name: 'list_site_courses', arguments: { includeUnlisted: false } }));
      expect(listed.courses).toHaveLength(29);
      expect(structured(await op.client.callTool({ name: 'list_site_students', arguments: {} }))).toEqual({
        site: 'demo-school',
        students: [{ id: 'acc-student', name: 'Sam Student', email: 'student@example.com', roles: ['student'] }],
      });
    } finally {
      await op.close();
    }
  });

  it('with courses:read only: list_site_students is hidden, and calling it is 403 naming students:read', async () => {
    const op = await connect(app, { token: await operatorToken(app, 'openid courses:read') });
    try {
      expect(await toolNames(op.client)).toEqual([...LIBRARY_PUBLIC_TOOLS, 'list_site_courses']);
      const before = op.seen.length;
      expectHttpError(await rejection(op.client.callTool({ name: 'list_site_students', arguments: {} })), 403);
      expect(challengeParams(op.seen[before]!.challenge)).toEqual({
        error: 'insufficient_scope',
        error_description: expect.stringContaining('students:read'),
        scope: 'students:read',
        resource_metadata: `${app.baseUrl}/.well-known/oauth-protected-resource`,
      });
    } finally {
      await op.close();
    }
  });

  it('with identity scopes only: public tools, and whoami names the operator', async () => {
    const op = await connect(app, { token: await operatorToken(app, 'openid profile') });
    try {
      expect(await toolNames(op.client)).toEqual(LIBRARY_PUBLIC_TOOLS);
      expect(structured(await op.client.callTool({ name: 'whoami', arguments: {} }))).toEqual(expect.objectContaining({
        subject: 'acc-admin', audience: 'operator', site: 'demo-school', roles: ['admin'], clientId: 'demo-operator-app',
      }));
    } finally {
      await op.close();
    }
  });
});

describe('host tool failures are tool errors, never HTTP 500', () => {
  let custom: RunningApp;
  const secret = 'internal detail: db password is hunter2';

  beforeAll(async () => {
    const tools = [
      defineMcpTool({
        name: 'explain', description: 'fails on purpose with a message for the caller', audience: 'public', scopes: [], inputSchema: {},
        handler() { throw new McpToolError('the catalogue is being rebuilt; try in a minute'); },
      }),
      defineMcpTool({
        name: 'crash', description: 'fails on purpose with an internal error', audience: 'public', scopes: [], inputSchema: {},
        handler() { throw new Error(secret); },
      }),
      defineMcpTool({
        name: 'not_an_object', description: 'returns something that is not a JSON object', audience: 'public', scopes: [], inputSchema: {},
        handler: () => ['a', 'list'] as unknown as Record<string, unknown>,
      }),
      defineMcpTool({
        name: 'slow_echo', description: 'echoes after a delay', audience: 'public', scopes: [],
        inputSchema: z.object({ value: z.string(), delayMs: z.number().int().min(0).max(1000) }),
        async handler({ value, delayMs }, caller) {
          // unref'd: a call whose client left sleeps on after its test, and a timer keeping the
          // jest worker alive past the suite's end is reported as "failed to exit gracefully"
          await new Promise((resolve) => setTimeout(resolve, delayMs).unref());
          return { value, subject: caller?.sub ?? null };
        },
      }),
      ...(demoMcpOptions({ accounts: createAccountStore() }).tools ?? []),
    ];
    custom = await startApp({ auth: { mcp: { tools } } });
  });
  afterAll(() => custom.stop());

  it('McpToolError: its message, as a tool error', async () => {
    const c = await connect(custom);
    expect(toolErrorText(await c.client.callTool({ name: 'explain', arguments: {} }))).toBe('the catalogue is being rebuilt; try in a minute');
    await c.close();
  });

  it('any other error: masked for the caller, logged for the host', async () => {
    const c = await connect(custom);
    const text = toolErrorText(await c.client.callTool({ name: 'crash', arguments: {} }));
    expect(text).toBe(UNEXPECTED_TOOL_ERROR);
    expect(text).not.toContain('hunter2');
    expect(custom.warnings.join('\n')).toMatch(/the MCP tool crash failed \[request [0-9a-f-]{36}\]: Error: internal detail/);
    expect(toolErrorText(await c.client.callTool({ name: 'not_an_object', arguments: {} }))).toBe(UNEXPECTED_TOOL_ERROR);
    await c.close();
  });

  it('without defaultSite, an anonymous catalogue search asks for the site', async () => {
    const c = await connect(custom);
    expect(toolErrorText(await c.client.callTool({ name: 'search_courses', arguments: {} }))).toMatch(/pass "site"/);
    expect(structured(await c.client.callTool({ name: 'search_courses', arguments: { site: 'other-school' } }))).toEqual(expect.objectContaining({ totalCount: 2 }));
    await c.close();
  });

  it('concurrent clients, all numbering their requests alike, each get their own answers', async () => {
    const token = await operatorToken(custom, 'openid');
    const clients = await Promise.all(Array.from({ length: 12 }, (_, i) => connect(custom, i % 2 ? { token } : {})));
    try {
      // every client's tools/call has the same JSON-RPC id; answers arrive out of order
      const answers = await Promise.all(clients.map((c, i) => c.client.callTool({
        name: 'slow_echo', arguments: { value: `client-${i}`, delayMs: (12 - i) * 15 },
      })));
      answers.forEach((answer, i) => {
        expect(structured(answer)).toEqual({ value: `client-${i}`, subject: i % 2 ? 'acc-admin' : null });
      });
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });

  it.each([['2025-11-25', {}], ['2026-07-28', MODERN_CALL]] as const)(
    'MCP %s: a client that leaves during a call has that call\'s server closed at once, the others\' not',
    async (revision, modern) => {
      // the SDK's close hook of a server (Protocol._onclose), which frees it and aborts what runs
      let proto: object | null = Object.getPrototypeOf(new McpServer({ name: 'probe', version: '1' }).server);
      while (proto && !Object.hasOwn(proto, '_onclose')) proto = Object.getPrototypeOf(proto);
      const closed = jest.spyOn(proto as { _onclose(): void }, '_onclose');
      try {
        const controller = new AbortController();
        const call = (value: string, delayMs: number, signal?: AbortSignal) => fetch(new URL('/mcp', custom.baseUrl), {
          method: 'POST',
          headers: {
            'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': revision,
            ...('headers' in modern ? modern.headers : {}),
          },
          body: JSON.stringify({
            jsonrpc: '2.0', id: 1, method: 'tools/call',
            params: { name: 'slow_echo', arguments: { value, delayMs }, ...('meta' in modern ? { _meta: modern.meta } : {}) },
          }),
          ...(signal ? { signal } : {}),
        });
        const staying = call('stays', 600);
        const leaving = call('gone', 800, controller.signal);
        await new Promise((resolve) => setTimeout(resolve, 100));
        const before = closed.mock.calls.length;
        controller.abort();
        await expect(leaving).rejects.toThrow();
        await new Promise((resolve) => setTimeout(resolve, 150));
        // both tools are still sleeping: only the abandoned exchange has closed
        expect(closed.mock.calls.length - before).toBe(1);
        const answer = await staying;
        expect(answer.status).toBe(200);
        expect(await answer.text()).toContain('stays');
      } finally {
        closed.mockRestore();
      }
    },
  );

  it('a client that leaves during a call does not break the endpoint', async () => {
    const controller = new AbortController();
    const leaving = fetch(new URL('/mcp', custom.baseUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow_echo', arguments: { value: 'gone', delayMs: 500 } } }),
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 50);
    await expect(leaving).rejects.toThrow();
    const c = await connect(custom);
    expect(structured(await c.client.callTool({ name: 'slow_echo', arguments: { value: 'next', delayMs: 0 } }))).toEqual({ value: 'next', subject: null });
    await c.close();
  });
});
