/**
 * What the documents say an anonymous caller of `/mcp` sees follows
 * `mcp.advertiseMemberTools`: off, public tools only; on, `tools/list` also shows the member
 * tools marked as needing sign-in, and calling one is a 401 challenge naming its scope, as the
 * server answers.
 */
import { demoMcpOptions } from '../../examples/host/mcp-tools.ts';
import { createAccountStore } from '../../examples/host/seed.ts';
import { SIGN_IN_META_KEY } from '../../lib/mcp/tools/registry.ts';
import { challengeParams, connect, LIBRARY_MEMBER_TOOLS, rejection } from '../mcp/support.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import { codeSpans, fetchDocuments, tableUnder } from './support.ts';
import type { Documents } from './support.ts';

/** What each document says of anonymous callers: the endpoint row, 4's tool endpoint, the rule of 5, POST /mcp. */
function statements(docs: Documents) {
  const { authMd } = docs;
  const row = tableUnder(authMd, '## 4. Endpoints').rows.find((r) => codeSpans(r[1]!)[0] === '/mcp')!;
  const toolEndpoint = authMd.slice(authMd.indexOf('### Tool endpoint'), authMd.indexOf('```', authMd.indexOf('### Tool endpoint')));
  const rule = authMd.split('\n').find((l) => l.startsWith('- Unauthenticated request to `/mcp`'))!;
  const post = (docs.openapi.paths['/mcp'] as unknown as { post: { description: string } }).post.description;
  return { row: row[2]!, toolEndpoint, rule, post };
}

describe('with advertiseMemberTools', () => {
  let app: RunningApp;
  let docs: Documents;
  beforeAll(async () => {
    app = await startApp({ auth: { mcp: { ...demoMcpOptions({ accounts: createAccountStore() }), advertiseMemberTools: true } } });
    docs = await fetchDocuments(app.baseUrl);
  });
  afterAll(() => app.stop());

  it('an anonymous tools/list shows the member tools marked, and calling one is a 401 naming its scope', async () => {
    const { client, seen, close } = await connect(app);
    try {
      const { tools } = await client.listTools();
      const marked = tools.filter((t) => t._meta?.[SIGN_IN_META_KEY] === true).map((t) => t.name);
      expect(marked).toEqual(LIBRARY_MEMBER_TOOLS);
      expect(await rejection(client.callTool({ name: marked[0]!, arguments: {} }))).toBeDefined();
      const refused = seen.at(-1)!;
      expect(refused.status).toBe(401);
      expect(challengeParams(refused.challenge)).toMatchObject({ scope: 'account:read' });
      expect(challengeParams(refused.challenge)).not.toHaveProperty('error');
    } finally {
      await close();
    }
  });

  it('both documents say so, and no longer "public tools only"', () => {
    const { row, toolEndpoint, rule, post } = statements(docs);
    for (const text of [row, toolEndpoint, rule, post]) expect(text).not.toMatch(/public tools only;|with public tools only|`tools\/list` (lists|shows) only what the caller may call\./);
    expect(row).toContain('its `tools/list` also shows the member tools, marked as needing sign-in');
    expect(rule).toContain('its `tools/list` also shows the member tools, marked as needing sign-in');
    const said = `\`tools/list\` also lists the member tools, each marked \`_meta["${SIGN_IN_META_KEY}"]: true\``;
    expect(toolEndpoint).toContain(said);
    expect(post).toContain(said);
    expect(toolEndpoint).toContain('is answered `401` with a `WWW-Authenticate` challenge naming its `scope`');
    // one sentence, the same in both documents
    const sentence = /Without a token the caller is anonymous[^]*?unmarked\./.exec(toolEndpoint)![0];
    expect(post).toContain(sentence);
  });
});

it('without it, both documents say an anonymous caller sees the public tools only', async () => {
  const app = await startApp();
  try {
    const { row, toolEndpoint, rule, post } = statements(await fetchDocuments(app.baseUrl));
    expect(row).toContain('a request with no token is served as anonymous, with public tools only');
    expect(rule).toContain('served as anonymous, with public tools only');
    const sentence = 'Without a token the caller is anonymous and sees the public tools only; a member token with `account:read` adds the member\'s own tools. `tools/list` lists only what the caller may call.';
    expect(toolEndpoint).toContain(sentence);
    expect(post).toContain(sentence);
    expect(`${toolEndpoint}${post}`).not.toContain(SIGN_IN_META_KEY);
  } finally {
    await app.stop();
  }
});
