/**
 * Tool annotations: a host tool that declares none is listed without them, so MCP's defaults
 * apply (readOnlyHint "Default: false", openWorldHint "Default: true"); it was listed as
 * read-only and closed-world on the host's behalf, whatever it does. A host tool's own
 * annotations are listed as given, and the library's tools say they only read.
 */
import { z } from 'zod';

import { defineMcpTool } from '../../lib/mcp/index.ts';
import { ADMIN, obtainTokens, operator } from '../support/flows.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import { connect } from './support.ts';

let app: RunningApp;
beforeAll(async () => {
  const enrol = defineMcpTool({
    name: 'enrol_student',
    description: 'Enrols a student in a course of the school you administer.',
    audience: 'operator',
    scopes: ['students:read'],
    inputSchema: z.object({ student: z.string(), course: z.string() }),
    async handler({ student, course }, caller) {
      return { enrolled: { student, course, site: caller.site } };
    },
  });
  const report = defineMcpTool({
    name: 'site_report', description: 'A read-only report.', audience: 'operator', scopes: ['courses:read'],
    inputSchema: {}, annotations: { readOnlyHint: true, openWorldHint: false, title: 'Report' },
    handler: () => ({ ok: true }),
  });
  app = await startApp({ auth: { mcp: { tools: [enrol, report] } } });
});
afterAll(() => app.stop());

it('a host tool that declares no annotations is not advertised as read-only and closed-world', async () => {
  const { access_token } = await obtainTokens(app.baseUrl, operator(app.baseUrl, app.operatorSecret), { scope: 'openid students:read courses:read' }, ADMIN);
  const op = await connect(app, { token: access_token });
  try {
    const tools = (await op.client.listTools()).tools;
    expect(tools.find((t) => t.name === 'enrol_student')!.annotations).toBeUndefined();
    expect(tools.find((t) => t.name === 'site_report')!.annotations).toEqual({ readOnlyHint: true, openWorldHint: false, title: 'Report' });
    expect(tools.find((t) => t.name === 'whoami')!.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
  } finally {
    await op.close();
  }
});
