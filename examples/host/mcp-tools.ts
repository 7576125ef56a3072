/**
 * The demo host's operator tools for `/mcp`, registered through `options.mcp.tools`: what a
 * host adds beside the library's public and member tools. Each names its audience and
 * scope; `tools/list` shows them only to operator tokens holding that scope, and a call
 * without it is answered 403 insufficient_scope naming it (the MCP step-up).
 */
import { z } from 'zod';

import { McpToolError, defineMcpTool } from '../../lib/index.ts';
import type { AnyMcpTool, McpOptions } from '../../lib/index.ts';
import type { AccountStore } from '../../lib/index.ts';
import type { BearerAuth } from '../../lib/index.ts';
import { demoCourses } from './member-data.ts';

/** the accounts of seed.ts; a real host asks its member table for a site's students */
const DEMO_ACCOUNT_IDS = ['acc-student', 'acc-admin', 'acc-outsider'] as const;

export interface DemoMcpToolDeps {
  readonly accounts: AccountStore;
}

function siteOf(caller: BearerAuth): string {
  // operator tokens carry the site the operator chose on the consent page
  if (!caller.site) throw new McpToolError('this token names no school; sign in again and pick the school');
  return caller.site;
}

export function demoMcpTools({ accounts }: DemoMcpToolDeps): AnyMcpTool[] {
  const listCourses = defineMcpTool({
    name: 'list_site_courses',
    title: 'School courses',
    description: 'Every course of the school you administer, including unlisted ones, with whether each is in the public catalogue.',
    audience: 'operator',
    annotations: { readOnlyHint: true, openWorldHint: false }, // it only reads the school's data
    scopes: ['courses:read'],
    inputSchema: { includeUnlisted: z.boolean().default(true).describe('include courses that are not in the public catalogue') },
    handler({ includeUnlisted }, caller) {
      const site = siteOf(caller);
      const courses = demoCourses(site)
        .filter((c) => includeUnlisted || c.public)
        .map(({ slug, title, public: listed }) => ({ slug, title, public: listed }));
      return { site, courses };
    },
  });

  const listStudents = defineMcpTool({
    name: 'list_site_students',
    title: 'School students',
    description: 'The students of the school you administer: name, email and roles.',
    audience: 'operator',
    annotations: { readOnlyHint: true, openWorldHint: false },
    scopes: ['students:read'],
    inputSchema: {},
    async handler(_args, caller) {
      const site = siteOf(caller);
      const found = await Promise.all(DEMO_ACCOUNT_IDS.map((id) => accounts.findById(id)));
      const students = found
        .filter((a) => a !== undefined && Object.hasOwn(a.roles, site) && a.roles[site]!.includes('student'))
        .map((a) => ({ id: a!.id, name: a!.name, email: a!.email, roles: a!.roles[site] }));
      return { site, students };
    },
  });

  return [listCourses, listStudents];
}

/** `options.mcp` of the demo: its operator tools, and demo-school's catalogue for anonymous callers. */
export function demoMcpOptions(deps: DemoMcpToolDeps): McpOptions {
  return { tools: demoMcpTools(deps), defaultSite: 'demo-school' };
}
