/**
 * A host route protected by the library's guard with an operator scope: what a host's admin
 * API looks like. Operator tokens with `courses:read` get the courses of the site they were
 * issued for; member tokens get 403 insufficient_scope, no token 401 invalid_token.
 */
import { Router } from '@koa/router';
import type { Middleware } from 'koa';

import type { BearerState, PlatformAuth } from '../../lib/index.ts';
import { demoCourses } from './member-data.ts';

export const ADMIN_COURSES_PATH = '/admin/api/courses';

export function adminApi(auth: PlatformAuth): Middleware {
  const router = new Router<BearerState>();
  router.get(
    ADMIN_COURSES_PATH,
    auth.requireBearer({ scopes: ['courses:read'], audiences: ['operator'] }),
    function listCourses(ctx) {
      // the guard has run: auth is set, and its site is the one the operator signed in for
      const site = ctx.state.auth!.site;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = {
        site,
        courses: site ? demoCourses(site).map(({ slug, title, public: listed }) => ({ slug, title, public: listed })) : [],
      };
    },
  );
  return router.routes() as Middleware;
}
