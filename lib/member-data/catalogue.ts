/**
 * The site's public course catalogue, for anonymous callers (the MCP public tools). Kept apart
 * from the member data on purpose: it is keyed by site only and holds nothing about a person.
 *
 * @module
 */
import { createHash } from 'node:crypto';

import { MemberDataInputError } from './errors.ts';
import { resolvePage, toConnection } from './pagination.ts';
import type { Connection, PageArgs } from './pagination.ts';
import type {
  CourseOutlineRecord, PublicCatalogueSource, PublicCourseRecord,
} from '../contracts.ts';

export type PublicCourse = PublicCourseRecord;
export type CourseOutline = CourseOutlineRecord;

export interface CatalogueService {
  searchCourses(site: string, text: string, args?: PageArgs): Promise<Connection<PublicCourse>>;
  courseOutline(site: string, slug: string): Promise<CourseOutline | undefined>;
}

/** Longest search text accepted; longer is refused rather than cut. */
export const MAX_SEARCH_TEXT_LENGTH = 200;

export function createCatalogueService(source: PublicCatalogueSource, maxPageSize: number): CatalogueService {
  return {
    async searchCourses(site, text, args = {}) {
      const query = text.trim();
      if (query.length > MAX_SEARCH_TEXT_LENGTH) {
        throw new MemberDataInputError('INVALID_ARGUMENT', 'text', `text must be at most ${MAX_SEARCH_TEXT_LENGTH} characters`);
      }
      // the school and the text are the list's name, so a cursor of one search is refused by
      // another, of this school or another one
      const list = `catalogue.${createHash('sha256').update(`${site}\u0000${query}`).digest('base64url').slice(0, 16)}`;
      const page = resolvePage(list, args, maxPageSize);
      const result = await source.searchCourses(site, query, page);
      return toConnection(list, page, result, ({ slug, title, summary }) => ({ slug, title, summary }));
    },
    async courseOutline(site, slug) {
      const outline = await source.findCourseOutline(site, slug);
      if (!outline) return undefined;
      return {
        slug: outline.slug,
        title: outline.title,
        summary: outline.summary,
        sections: outline.sections.map((s) => ({
          title: s.title,
          lectures: s.lectures.map((l) => ({ id: l.id, title: l.title, durationSeconds: l.durationSeconds, freePreview: l.freePreview })),
        })),
      };
    },
  };
}
