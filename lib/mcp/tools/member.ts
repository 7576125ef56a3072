/**
 * The member tools: a member's own data at the token's site, read-only, through the same
 * member-data service as the Account API (lib/member-data/service.ts). Every one needs a
 * member token with `account:read`; the member and the site come from the token, never from
 * the arguments.
 *
 * @module
 */
import { z } from 'zod';

import type { MemberDataService } from '../../member-data/service.ts';
import { DEFAULT_PAGE_SIZE } from '../../member-data/pagination.ts';
import type { BearerAuth } from '../../resource/bearer.ts';
import { pageOf, pagingShape } from './paging.ts';
import { defineMcpTool, READ_ONLY_TOOL } from './types.ts';
import type { AnyMcpTool } from './types.ts';

export const MEMBER_TOOL_SCOPES = ['account:read'] as const;

export const MEMBER_TOOL_NAMES = ['list_my_courses', 'get_my_progress', 'list_my_orders', 'list_my_event_registrations'] as const;

export interface MemberToolDeps {
  readonly service: MemberDataService;
  readonly maxPageSize: number;
}

/** `125` → `2:05`, `3725` → `1:02:05` */
function clock(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const [h, m, r] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60];
  const pad = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${pad(m)}:${pad(r)}` : `${m}:${pad(r)}`;
}

export function memberTools({ service, maxPageSize }: MemberToolDeps): AnyMcpTool[] {
  const paging = pagingShape(maxPageSize, DEFAULT_PAGE_SIZE);
  const common = { audience: 'member', scopes: MEMBER_TOOL_SCOPES, annotations: READ_ONLY_TOOL } as const;
  const account = (caller: BearerAuth) => service.forMember(caller);

  const myCourses = defineMcpTool({
    ...common,
    name: 'list_my_courses',
    title: 'My courses',
    description: 'The courses you are enrolled in at this school, newest first: when you enrolled, when access ends (or lifetime access), and the lecture you watched last with your position in it.',
    inputSchema: paging,
    async handler({ first, after }, caller) {
      return pageOf('courses', await account(caller).enrolledCoursesWithProgress({ first, after }));
    },
  });

  const myProgress = defineMcpTool({
    ...common,
    name: 'get_my_progress',
    title: 'Where I left off',
    description: 'Where you left off in one of your courses: the last lecture you watched and your position in it (and its title when the course outline is public).',
    inputSchema: { course: z.string().min(1).max(200).describe('the course slug, as list_my_courses returns it') },
    async handler({ course }, caller) {
      const progress = await account(caller).lastWatchedLecture(course);
      if (!progress) return { course, lastWatchedLecture: null, note: 'no progress recorded in this course' };
      const outline = await service.catalogue?.courseOutline(caller.site!, course);
      const lecture = outline?.sections.flatMap((s) => s.lectures).find((l) => l.id === progress.lectureId);
      return {
        course,
        lastWatchedLecture: { ...progress, title: lecture?.title ?? null },
        resumeAt: clock(progress.positionSeconds),
      };
    },
  });

  const myOrders = defineMcpTool({
    ...common,
    name: 'list_my_orders',
    title: 'My orders',
    description: 'Your orders at this school, newest first: number, status, date, total and items (amounts as exact decimal strings with their currency).',
    inputSchema: paging,
    async handler({ first, after }, caller) {
      return pageOf('orders', await account(caller).orders({ first, after }));
    },
  });

  const myRegistrations = defineMcpTool({
    ...common,
    name: 'list_my_event_registrations',
    title: 'My event registrations',
    description: 'Your event registrations at this school, newest first: the event, when it starts, and your status (registered, waitlisted, cancelled, attended).',
    inputSchema: paging,
    async handler({ first, after }, caller) {
      return pageOf('registrations', await account(caller).eventRegistrations({ first, after }));
    },
  });

  return [myCourses, myProgress, myOrders, myRegistrations];
}
