/**
 * README "Request ids": the log lines of a request name its id, as its response and events
 * do. Each test makes one request with a known id fail in a way that is logged (a listener
 * that throws, an Account API data source and an MCP tool that fail unexpectedly) and reads
 * the line. Also: a redirect URI stored before registration refused control characters
 * reaches events and the trace printable.
 */
import { createDemoMemberData } from '../../examples/host/member-data.ts';
import type { MemberDataSource, PlatformAuthEvent } from '../../lib/index.ts';
import { connect } from '../mcp/support.ts';
import { eventually } from '../support/eventually.ts';
import { MEMBER, STUDENT, buildAuthorizeUrl, obtainTokens } from '../support/flows.ts';
import { pkcePair } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

let app: RunningApp;
let broken = false;

beforeAll(async () => {
  const demo = createDemoMemberData();
  const memberData: MemberDataSource = {
    ...demo,
    async findMember(member) {
      if (broken) throw new Error('member directory misconfigured');
      return demo.findMember(member);
    },
    async listEnrolments(member, page) {
      if (broken) throw new Error('enrolments backend misconfigured');
      return demo.listEnrolments(member, page);
    },
  };
  app = await startApp({ auth: { memberData, registration: { variant: 'open' } } });
});
afterAll(() => app.stop());

async function linesAfter(before: number, match: string): Promise<string[]> {
  return eventually(async () => app.warnings.slice(before).filter((w) => w.includes(match)), (l) => l.length > 0);
}

const memberTokens = () => obtainTokens(app.baseUrl, MEMBER, { scope: 'openid email account:read', resource: app.baseUrl }, STUDENT);

it('a listener that throws: its line names the request it failed on', async () => {
  const off = app.auth.events.on('access.refused', () => { throw new Error('listener bug'); });
  const before = app.warnings.length;
  try {
    const res = await fetch(`${app.baseUrl}/api/oauth/userinfo`, { headers: { 'x-request-id': 'rid-listener-1' } });
    expect(res.status).toBe(401);
    expect(await linesAfter(before, 'listener of the access.refused event failed')).toEqual([
      expect.stringContaining('failed [request rid-listener-1] (the request went on'),
    ]);
  } finally {
    off();
  }
});

it('an Account API data source failing unexpectedly: its line names the request', async () => {
  const tokens = await memberTokens();
  const before = app.warnings.length;
  broken = true;
  try {
    const res = await fetch(`${app.baseUrl}/account/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.access_token}`, 'x-request-id': 'rid-graphql-1' },
      body: JSON.stringify({ query: '{ viewer { id email } }' }),
    });
    const body = await res.json() as { errors?: { message: string; extensions: { code: string } }[] };
    // still masked for the client
    expect(body.errors?.[0]).toMatchObject({ message: 'Unexpected error.', extensions: { code: 'INTERNAL_SERVER_ERROR' } });
    expect(JSON.stringify(body)).not.toContain('misconfigured');
  } finally {
    broken = false;
  }
  const lines = await linesAfter(before, 'the Account API failed');
  expect(lines.map((l) => l.split('\n')[0])).toEqual([
    expect.stringMatching(/^platform-auth: the Account API failed at viewer\.\w+ \[request rid-graphql-1\]: Error: member directory misconfigured$/),
  ]);
});

it('an MCP tool failing unexpectedly: its line names the request the response carried', async () => {
  const tokens = await memberTokens();
  const mcp = await connect(app, { token: tokens.access_token });
  const before = app.warnings.length;
  broken = true;
  try {
    const result = await mcp.client.callTool({ name: 'list_my_courses', arguments: {} });
    expect(result.isError).toBe(true);
  } finally {
    broken = false;
    await mcp.close();
  }
  const lines = await linesAfter(before, 'the MCP tool list_my_courses failed');
  expect(lines).toEqual([expect.stringMatching(/^platform-auth: the MCP tool list_my_courses failed \[request [0-9a-f-]{36}\]: Error: enrolments backend misconfigured$/)]);
});

it('a stored redirect URI with line breaks reaches events and the trace printable', async () => {
  // registration refuses such URIs now (lib/policies/client-metadata.ts); a client stored
  // before that, as a database may still hold it, is read as stored
  const clientId = 'stored-before-the-rule';
  await app.auth.options.adapter('Client').upsert(clientId, {
    client_id: clientId, client_name: 'Old registration', token_endpoint_auth_method: 'none', application_type: 'native',
    redirect_uris: ['http://127.0.0.1/cb\nFORGED\r\nLINE\u2028x'], grant_types: ['authorization_code'], response_types: ['code'],
    scope: 'openid', audience: 'operator',
  });
  const seen: PlatformAuthEvent[] = [];
  const off = app.auth.events.on('authorization.failed', (e) => { seen.push(e); });
  try {
    const url = buildAuthorizeUrl(app.baseUrl, { clientId, redirectUri: 'http://127.0.0.1/other' }, { scope: 'openid', challenge: pkcePair().challenge });
    await (await fetch(url)).arrayBuffer();
  } finally {
    off();
  }
  const unprintable = /[\p{Cc}\u2028\u2029]/u;
  expect(seen).toHaveLength(1);
  const registered = (seen[0] as { registeredRedirectUris?: string[] }).registeredRedirectUris ?? [];
  expect(registered).toHaveLength(1);
  expect(registered[0]).not.toMatch(unprintable);
  const trace = await eventually(() => app.auth.clientTrace(clientId), (t) => t.length > 0);
  expect(trace[0]!.summary).toContain('FORGED');
  expect(trace[0]!.summary).not.toMatch(unprintable);
});
