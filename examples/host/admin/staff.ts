/**
 * The platform staff's view, inside the admin area (same session, same page headers):
 *
 *   GET /admin/staff                     the clients with a trace, most recently traced first
 *                                        (`auth.tracedClients()`)
 *   GET /admin/staff/trace?client_id=…   one client's trace and a connection test
 *                                        (`auth.clientTrace(clientId)`)
 *
 * A site operator sees the traces of the site's own applications only, through
 * `auth.memberClients.trace(site, clientId)`. These pages show any client's (vendor
 * platforms, registered apps, metadata documents, every site's member apps), so they are for
 * the platform's own staff, checked on every request.
 *
 * Who is staff: the demo has no staff directory, so its admin account (`admin@example.com`)
 * doubles as platform staff ({@link PLATFORM_STAFF}). A real host decides it from its own
 * staff records, never from a role at a school: a school's admin is not platform staff.
 *
 * @module
 */
import type { Router } from '@koa/router';
import type { Context } from 'koa';

import type { Account, PlatformAuth } from '../../../lib/index.ts';
import { ADMIN_HOME, STAFF_HOME } from './layout.ts';
import type { HeaderView } from './layout.ts';
import { PageError } from './page-error.ts';
import { staffListPage, staffTracePage } from './staff-views.ts';

/** The accounts that act as platform staff in the demo. */
export const PLATFORM_STAFF: ReadonlySet<string> = new Set(['acc-admin']);

export const isStaff = (account: Account): boolean => PLATFORM_STAFF.has(account.id);

/** Longer client ids are never traced (lib/trace/recorder.ts), so never looked up either. */
const MAX_CLIENT_ID = 512;

export interface StaffRouteDeps {
  readonly auth: PlatformAuth;
  /** the signed-in account of the admin session, looked up again on every request, and its header */
  readonly signedIn: (ctx: Context) => Promise<{ readonly account: Account; readonly header: HeaderView } | undefined>;
  readonly nonceOf: (ctx: Context) => string;
}

export function addStaffRoutes(router: Router, { auth, signedIn, nonceOf }: StaffRouteDeps): void {
  /** The staff member of this request; signed out: back to the sign-in; not staff: 403. */
  async function staffOnly(ctx: Context): Promise<HeaderView | undefined> {
    const who = await signedIn(ctx);
    if (!who) {
      ctx.status = 303;
      ctx.redirect(ADMIN_HOME);
      return undefined;
    }
    if (!isStaff(who.account)) {
      throw new PageError(403, 'Platform staff only', `${who.account.email} is not platform staff. The activity of a school's own applications is on each application's page.`, who.header);
    }
    return who.header;
  }

  router.get(STAFF_HOME, async function listTracedClients(ctx) {
    const header = await staffOnly(ctx);
    if (!header) return;
    ctx.body = staffListPage({ header, clients: await auth.tracedClients() }, nonceOf(ctx));
  });

  router.get(`${STAFF_HOME}/trace`, async function showClientTrace(ctx) {
    const header = await staffOnly(ctx);
    if (!header) return;
    const clientId = ctx.query.client_id;
    if (typeof clientId !== 'string' || clientId === '' || clientId.length > MAX_CLIENT_ID) {
      throw new PageError(400, 'Which client?', 'Open a client from the list of all clients.', header);
    }
    const trace = await auth.clientTrace(clientId);
    ctx.body = staffTracePage({ header, clientId, trace, baseUrl: auth.options.baseUrl }, nonceOf(ctx));
  });
}
