/**
 * A member client made as the README's example makes it (scopes openid profile account:read,
 * no email), used by the v2 MCP SDK client whose stored token is no longer good: the 401
 * invalid_token names no scope, so the SDK requests the protected-resource metadata's
 * scopes_supported (MCP authorization, "Scope Selection Strategy"), which every client that
 * reads it must be granted: the identity scope it may not hold is dropped
 * (lib/policies/scope-allowance.ts, grantableScope), not refused, and the member tool works.
 */
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';

import { MCP_REVISIONS } from '../../lib/constants.ts';
import { STUDENT } from '../support/flows.ts';
import { TestOAuthProvider, ephemeralRedirect } from '../support/mcp-oauth.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import { mcpUrl, recordingFetch, rejection } from './support.ts';
import type { SeenResponse } from './support.ts';

let app: RunningApp;
beforeAll(async () => { app = await startApp(); });
afterAll(() => app.stop());

it('a 401 for a stale token leads a member client to an authorization it can be granted', async () => {
  const { client: member } = await app.auth.memberClients.create('demo-school', {
    name: 'Study Buddy', redirectUris: ['http://127.0.0.1/callback'], type: 'public', scopes: ['openid', 'profile', 'account:read'],
  });
  const provider = new TestOAuthProvider({
    redirectUrl: ephemeralRedirect(), clientInformation: { client_id: member.clientId },
    tokens: { access_token: 'stale-token-from-last-week', token_type: 'Bearer' },
  });
  const seen: SeenResponse[] = [];
  const client = new Client({ name: 'host', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MCP_REVISIONS.current } } } as never);
  const transport = new StreamableHTTPClientTransport(mcpUrl(app), { fetch: recordingFetch(seen), authProvider: provider });
  expect(await rejection(client.connect(transport))).toBeInstanceOf(UnauthorizedError);
  expect(seen[0]!.status).toBe(401);
  // what the SDK asked for, from the 401 and the metadata
  const asked = provider.lastAuthorization.get('scope');
  expect(asked).toBe('openid profile email');
  // the authorization server grants it to this client, without the email it may not hold
  await transport.finishAuth(await provider.approve(app.baseUrl, STUDENT), app.baseUrl);
  expect(provider.tokens()?.scope?.split(' ').sort()).toEqual(['openid', 'profile']);
  const signedIn = new Client({ name: 'host', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MCP_REVISIONS.current } } } as never);
  await signedIn.connect(new StreamableHTTPClientTransport(mcpUrl(app), { authProvider: provider }));
  const whoami = await signedIn.callTool({ name: 'whoami', arguments: {} }) as { structuredContent: Record<string, unknown> };
  expect(whoami.structuredContent).toMatchObject({ authenticated: true, clientId: member.clientId });
  await signedIn.close();
});
