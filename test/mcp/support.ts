/**
 * MCP clients for the tests: the SDK's own `Client` over its `StreamableHTTPClientTransport`,
 * with a fetch that records what the server answered (status and `WWW-Authenticate`), since
 * the client only reports errors as messages.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { StreamableHTTPClientTransportOptions } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

import type { RunningApp } from '../support/start-app.ts';

export interface SeenResponse {
  readonly method: string;
  readonly url: string;
  readonly status: number;
  readonly challenge: string | null;
}

export interface Connected {
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
  /** every response of this client's transport, in order */
  readonly seen: SeenResponse[];
  close(): Promise<void>;
}

export function recordingFetch(seen: SeenResponse[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    seen.push({
      method: init?.method ?? 'GET',
      url: String(input instanceof Request ? input.url : input),
      status: response.status,
      challenge: response.headers.get('www-authenticate'),
    });
    return response;
  };
}

export function mcpUrl(app: RunningApp): URL {
  return new URL('/mcp', app.baseUrl);
}

/** A connected client; with `token`, every request carries it. */
export async function connect(app: RunningApp, options: { token?: string; transport?: StreamableHTTPClientTransportOptions } = {}): Promise<Connected> {
  const seen: SeenResponse[] = [];
  const transport = new StreamableHTTPClientTransport(mcpUrl(app), {
    fetch: recordingFetch(seen),
    ...(options.token ? { requestInit: { headers: { Authorization: `Bearer ${options.token}` } } } : {}),
    ...options.transport,
  });
  const client = new Client({ name: 'platform-auth-tests', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport, seen, close: () => client.close() };
}

/** Like `connect`, but hands back the failure of the first request instead of a client. */
export async function connectFailure(app: RunningApp, token: string): Promise<{ error: unknown; seen: SeenResponse[] }> {
  const seen: SeenResponse[] = [];
  const transport = new StreamableHTTPClientTransport(mcpUrl(app), {
    fetch: recordingFetch(seen),
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'platform-auth-tests', version: '1.0.0' });
  const error = await client.connect(transport).then(() => undefined, (e: unknown) => e);
  await client.close();
  return { error, seen };
}

/** Fails unless `error` is the client transport's HTTP error with `status`. */
export function expectHttpError(error: unknown, status: number): void {
  expect(error).toBeInstanceOf(StreamableHTTPError);
  expect((error as StreamableHTTPError).code).toBe(status);
}

/** What a promise rejected with (`undefined` if it did not). */
export function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(() => undefined, (e: unknown) => e);
}

/** The parsed `WWW-Authenticate: Bearer` parameters. */
export function challengeParams(header: string | null): Record<string, string> {
  const params: Record<string, string> = {};
  if (!header) return params;
  expect(header).toMatch(/^Bearer /);
  for (const m of header.slice('Bearer '.length).matchAll(/([a-z_]+)="((?:[^"\\]|\\.)*)"/g)) {
    params[m[1]!] = m[2]!.replace(/\\(.)/g, '$1');
  }
  return params;
}

/** The structured answer of a successful tool call; fails the test on a tool error. */
export function structured<T = Record<string, unknown>>(result: unknown): T {
  const r = result as CallToolResult;
  if (r.isError) throw new Error(`tool error: ${JSON.stringify(r.content)}`);
  expect(r.content[0]).toEqual({ type: 'text', text: JSON.stringify(r.structuredContent) });
  return r.structuredContent as T;
}

/** The text of a tool error; fails the test on a success. */
export function toolErrorText(result: unknown): string {
  const r = result as CallToolResult;
  expect(r.isError).toBe(true);
  return (r.content[0] as { text: string }).text;
}

export const LIBRARY_PUBLIC_TOOLS = ['search_courses', 'get_course_outline', 'whoami'];
export const LIBRARY_MEMBER_TOOLS = ['list_my_courses', 'get_my_progress', 'list_my_orders', 'list_my_event_registrations'];

export async function toolNames(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((t) => t.name);
}
