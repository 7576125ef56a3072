/**
 * The public tools: callable without a token. The catalogue tools read the host's public
 * catalogue (`memberData.catalogue`) and are left out when there is none; `whoami` says who
 * the token speaks for (anonymous without one).
 *
 * @module
 */
import { z } from 'zod';

import type { CatalogueService } from '../../member-data/catalogue.ts';
import { MAX_SEARCH_TEXT_LENGTH } from '../../member-data/catalogue.ts';
import { DEFAULT_PAGE_SIZE } from '../../member-data/pagination.ts';
import type { BearerAuth } from '../../resource/bearer.ts';
import { McpToolError } from '../errors.ts';
import { pageOf, pagingShape } from './paging.ts';
import { defineMcpTool, READ_ONLY_TOOL } from './types.ts';
import type { AnyMcpTool } from './types.ts';

export interface PublicToolDeps {
  readonly catalogue: CatalogueService | undefined;
  /** the site of an anonymous call that names none */
  readonly defaultSite: string | undefined;
  readonly maxPageSize: number;
}

const site = z.string().min(1).max(200).optional()
  .describe('the school (site id) whose catalogue to read; defaults to the school of your token, or the server\'s default school');

const slug = z.string().min(1).max(200).describe('the course slug, as search_courses returns it');

/** The names of the library's own tools, which host tools cannot take. */
export const PUBLIC_TOOL_NAMES = ['search_courses', 'get_course_outline', 'whoami'] as const;

function siteOf(requested: string | undefined, caller: BearerAuth | undefined, fallback: string | undefined): string {
  const chosen = requested ?? caller?.site ?? fallback;
  if (!chosen) throw new McpToolError('name the school: pass "site" (its site id)');
  return chosen;
}

function whoami() {
  return defineMcpTool({
    name: 'whoami',
    title: 'Who am I',
    description: 'Says who this connection speaks for: anonymous, or the signed-in person (account id, school, roles), the client and the scopes of its token.',
    audience: 'public',
    annotations: READ_ONLY_TOOL,
    scopes: [],
    inputSchema: {},
    handler(_args, caller) {
      if (!caller) return { authenticated: false, note: 'no access token: only public tools are available' };
      return {
        authenticated: true,
        subject: caller.sub,
        audience: caller.audience,
        site: caller.site ?? null,
        roles: [...caller.roles],
        clientId: caller.clientId,
        scopes: [...caller.scopes].sort(),
        expiresAt: new Date(caller.expiresAt * 1000).toISOString(),
      };
    },
  });
}

function catalogueTools(catalogue: CatalogueService, deps: PublicToolDeps) {
  const searchCourses = defineMcpTool({
    name: 'search_courses',
    title: 'Search courses',
    description: 'Searches a school\'s public course catalogue by title or summary; an empty query lists every public course. Answers slug, title and summary, a page at a time.',
    audience: 'public',
    annotations: READ_ONLY_TOOL,
    scopes: [],
    inputSchema: {
      query: z.string().max(MAX_SEARCH_TEXT_LENGTH).default('').describe('words to look for in titles and summaries; empty for all'),
      site,
      ...pagingShape(deps.maxPageSize, DEFAULT_PAGE_SIZE),
    },
    async handler({ query, site: requested, first, after }, caller) {
      const where = siteOf(requested, caller, deps.defaultSite);
      return { site: where, ...pageOf('courses', await catalogue.searchCourses(where, query, { first, after })) };
    },
  });

  const courseOutline = defineMcpTool({
    name: 'get_course_outline',
    title: 'Course outline',
    description: 'The outline of a public course: its sections and lectures, with durations and which lectures are free previews.',
    audience: 'public',
    annotations: READ_ONLY_TOOL,
    scopes: [],
    inputSchema: { course: slug, site },
    async handler({ course, site: requested }, caller) {
      const where = siteOf(requested, caller, deps.defaultSite);
      const outline = await catalogue.courseOutline(where, course);
      if (!outline) throw new McpToolError(`no public course "${course}" at ${where}; search_courses lists them`);
      return { site: where, course: outline };
    },
  });
  return [searchCourses, courseOutline];
}

export function publicTools(deps: PublicToolDeps): AnyMcpTool[] {
  return [...(deps.catalogue ? catalogueTools(deps.catalogue, deps) : []), whoami()];
}
