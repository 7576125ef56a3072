/**
 * Sign-in made discoverable (`mcp.advertiseMemberTools`): MCP 2026-07-28 has no standard
 * field saying "signing in unlocks more tools", and most MCP hosts start OAuth only when a
 * request is challenged. With the option, an anonymous `tools/list` also shows the member
 * tools, marked as needing sign-in; a host configured with the school's member client id
 * calls one of them like any tool it sees, gets the 401 challenge naming the scope, signs the
 * member in through the real pages, and calls it again successfully. Without the option,
 * anonymous callers see public tools only, as the interface says.
 */
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';

import { MCP_REVISIONS } from '../../lib/constants.ts';
import { SIGN_IN_META_KEY } from '../../lib/mcp/tools/registry.ts';
import { demoMcpOptions } from '../../examples/host/mcp-tools.ts';
import { createAccountStore } from '../../examples/host/seed.ts';
import { STUDENT } from '../support/flows.ts';
import { TestOAuthProvider, ephemeralRedirect } from '../support/mcp-oauth.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import { challengeParams, LIBRARY_MEMBER_TOOLS, LIBRARY_PUBLIC_TOOLS, mcpUrl, recordingFetch, rejection } from './support.ts';
import type { SeenResponse } from './support.ts';

interface ListedTool {
  name: string;
  description?: string;
  _meta?: Record<string, unknown>;
  securitySchemes?: unknown;
}

function modernClient(app: RunningApp, seen: SeenResponse[], authProvider?: TestOAuthProvider) {
  const client = new Client({ name: 'mcp-host', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MCP_REVISIONS.current } } } as never);
  const transport = new StreamableHTTPClientTransport(mcpUrl(app), { fetch: recordingFetch(seen), ...(authProvider ? { authProvider } : {}) });
  return { client, transport };
}

describe('with advertiseMemberTools', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp({ auth: { mcp: { ...demoMcpOptions({ accounts: createAccountStore() }), advertiseMemberTools: true } } });
  });
  afterAll(() => app.stop());

  it('an anonymous list shows the member tools, marked as needing sign-in with their scopes', async () => {
    const { client, transport } = modernClient(app, []);
    await client.connect(transport);
    const { tools } = await client.listTools() as { tools: ListedTool[] };
    await client.close();
    expect(tools.map((t) => t.name)).toEqual([...LIBRARY_PUBLIC_TOOLS, ...LIBRARY_MEMBER_TOOLS]);
    const member = tools.find((t) => t.name === 'list_my_courses')!;
    expect(member._meta).toEqual({ [SIGN_IN_META_KEY]: true, securitySchemes: [{ type: 'oauth2', scopes: ['account:read'] }] });
    expect(member.description).toMatch(/Sign-in required: account:read/);
    const publicTool = tools.find((t) => t.name === 'whoami')!;
    expect(publicTool._meta?.[SIGN_IN_META_KEY]).toBeUndefined();
  });

  it('a host holding only the member client id is led from the listed tool to sign-in, then the call succeeds', async () => {
    const { client: memberClient } = await app.auth.memberClients.create('demo-school', {
      name: 'Study Buddy', redirectUris: ['http://127.0.0.1/callback'], type: 'public', scopes: ['openid', 'profile', 'account:read'],
    });
    const provider = new TestOAuthProvider({ redirectUrl: ephemeralRedirect(), clientInformation: { client_id: memberClient.clientId } });
    const seen: SeenResponse[] = [];
    const { client, transport } = modernClient(app, seen, provider);
    await client.connect(transport);

    // the host picks a tool it was shown, as a model would
    const { tools } = await client.listTools() as { tools: ListedTool[] };
    const chosen = tools.find((t) => t._meta?.[SIGN_IN_META_KEY] === true)!;
    expect(chosen.name).toBe('list_my_courses');
    expect(await rejection(client.callTool({ name: chosen.name, arguments: { first: 5 } }))).toBeInstanceOf(UnauthorizedError);
    const challenge = seen.find((r) => r.status === 401)!;
    expect(challengeParams(challenge.challenge)).toEqual({ scope: 'account:read', resource_metadata: `${app.baseUrl}/.well-known/oauth-protected-resource` });
    expect(provider.lastAuthorization.get('client_id')).toBe(memberClient.clientId);
    expect(provider.lastAuthorization.get('scope')).toContain('account:read');

    // RFC 9207: the v2 client checks the `iss` that came back with the code (approve() saw it)
    await transport.finishAuth(await provider.approve(app.baseUrl, STUDENT), app.baseUrl);
    const result = await client.callTool({ name: chosen.name, arguments: { first: 5 } }) as { structuredContent: { totalCount: number } };
    expect(result.structuredContent.totalCount).toBe(27);
    // signed in, the list is the member's, without sign-in marks
    const after = (await client.listTools() as { tools: ListedTool[] }).tools.find((t) => t.name === 'list_my_courses')!;
    expect(after._meta?.[SIGN_IN_META_KEY]).toBeUndefined();
    await client.close();
  });
});

describe('by default', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(() => app.stop());

  it('an anonymous list shows the public tools only', async () => {
    const { client, transport } = modernClient(app, []);
    await client.connect(transport);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(LIBRARY_PUBLIC_TOOLS);
    await client.close();
  });
});
