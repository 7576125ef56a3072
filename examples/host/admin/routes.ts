/**
 * "Developers → OAuth applications": the routes of the demo host's admin area.
 *
 *   GET  /admin                                    sign-in form, or the site (picker)
 *   POST /admin/sign-in | /admin/sign-out          sign-in throttled by auth.signInThrottle
 *   GET  /admin/sites/:site/apps                   the site's member clients (each with its latest
 *                                                  activity) and a create form
 *   GET  /admin/sites/:site/apps/:clientId         one client: its recent activity (its trace,
 *                                                  newest first) and a connection test
 *   POST /admin/sites/:site/apps                   create
 *   POST /admin/sites/:site/apps/:clientId/rotate  new secret (confidential clients)
 *   POST /admin/sites/:site/apps/:clientId/delete
 *
 * Every POST checks the CSRF token bound to the session before anything else, then that
 * the account operates the site in the path; only then is `auth.memberClients` called,
 * which scopes each call to that site on its own as well. The staff view of every client's
 * activity (/admin/staff) is ./staff.ts.
 *
 * @module
 */
import { Router } from '@koa/router';
import type { Context } from 'koa';

import type { Account, AccountStore, PlatformAuth, SiteStore } from '../../../lib/index.ts';
import { MemberClientError, StorageUnavailableError, findScope, scopesForAudience } from '../../../lib/index.ts';
import type { IssuedMemberClient, MemberClient, TraceEntry } from '../../../lib/index.ts';
import { operatorSites } from '../../../lib/index.ts';
import { checkPassword } from '../password-check.ts';
import { field, readForm } from './form.ts';
import { ADMIN_HOME } from './layout.ts';
import type { HeaderView } from './layout.ts';
import { PageError } from './page-error.ts';
import type { AdminSession, AdminSessions } from './session.ts';
import { addStaffRoutes, isStaff } from './staff.ts';
import { appPage, appsPage, appsPath, noticePage, signInPage, sitePickerPage } from './views.ts';
import type { AppsView, CreateFormValues, SiteView } from './views.ts';

export interface AdminRouteDeps {
  readonly auth: PlatformAuth;
  readonly accounts: AccountStore;
  readonly sites: SiteStore;
  readonly sessions: AdminSessions;
}

interface Operator {
  readonly session: AdminSession;
  readonly account: Account;
  /** the sites this account operates, i.e. may manage applications of */
  readonly sites: readonly SiteView[];
  readonly header: HeaderView;
}

/** what a new application starts with: enough to sign a member in and read their account */
const DEFAULT_SCOPES = ['openid', 'profile', 'email', 'account:read'];
const DEFAULT_FORM: CreateFormValues = { name: '', redirectUris: '', type: 'confidential', scopes: DEFAULT_SCOPES };

const EXPIRED = () => new PageError(403, 'This form has expired', 'Reload the page and try again. Forms stop working when you sign out or after 30 minutes.');

export const nonceOf = (ctx: Context) => ctx.state.adminNonce as string;

function redirect(ctx: Context, path: string): void {
  ctx.status = 303;
  ctx.redirect(path);
}

export function createAdminRouter({ auth, accounts, sites, sessions }: AdminRouteDeps): Router {
  const router = new Router();
  const eligibleScopes = scopesForAudience('member').map((name) => ({ name, description: findScope(name)?.description ?? name }));
  const roleNames = auth.options.operatorRoles.join(' or ');

  async function operatedSites(account: Account): Promise<SiteView[]> {
    const found = await Promise.all(operatorSites(account, auth.options.operatorRoles).map((id) => sites.findById(id)));
    return found.filter((s) => s !== undefined).map((s) => ({ id: s.id, name: s.name }));
  }

  /** The signed-in account, looked up again on every request so a revoked role takes effect at once. */
  async function signedIn(session: AdminSession | undefined): Promise<Operator | undefined> {
    if (!session?.accountId) return undefined;
    const account = await accounts.findById(session.accountId);
    if (!account) return undefined;
    const header: HeaderView = { email: account.email, csrf: sessions.csrfToken(session), ...(isStaff(account) ? { staff: true } : {}) };
    return { session, account, sites: await operatedSites(account), header };
  }

  function siteOf(op: Operator, siteId: string): SiteView {
    const site = op.sites.find((s) => s.id === siteId);
    if (!site) {
      throw new PageError(403, 'Not your school', `${op.account.email} is not an ${roleNames} of a school called “${siteId}”, so cannot manage its OAuth applications.`, op.header);
    }
    return site;
  }

  /** CSRF, then the session, then (for site routes) the site: in that order, before any work. */
  async function authorizePost(ctx: Context): Promise<{ op: Operator; form: URLSearchParams }> {
    const form = await readForm(ctx);
    const session = await sessions.read(ctx);
    if (!sessions.verifyCsrf(session, form.get('csrf'))) throw EXPIRED();
    const op = await signedIn(session);
    if (!op) throw new PageError(403, 'Signed out', 'Your session has ended. Sign in again to continue.');
    return { op, form };
  }

  async function renderApps(ctx: Context, op: Operator, site: SiteView, extra: Partial<Pick<AppsView, 'error' | 'notice' | 'form'>> & {
    status?: number;
    issued?: IssuedMemberClient & { rotated: boolean };
  } = {}): Promise<void> {
    let listed: { clients: readonly MemberClient[]; beta: boolean; latest: Map<string, TraceEntry> };
    try {
      listed = await readApps(site);
    } catch (err) {
      // A secret just issued is shown once: storage failing on the list after it (the write
      // went through) must not turn the answer into a 503, whose "try again" would make a
      // second application and lose this secret. The list waits for a reload
      if (!extra.issued || !(err instanceof StorageUnavailableError)) throw err;
      listed = { clients: [], beta: true, latest: new Map() };
      extra = { ...extra, notice: 'The list of applications could not be loaded just now (storage is unavailable); reload this page to see it. Copy the secret below first: it is not shown again.' };
    }
    const { clients, beta, latest } = listed;
    ctx.status = extra.status ?? 200;
    ctx.body = appsPage({
      site,
      header: op.header,
      otherSites: op.sites.length > 1,
      beta,
      clients,
      latest,
      eligibleScopes,
      form: extra.form ?? DEFAULT_FORM,
      ...(extra.error ? { error: extra.error } : {}),
      ...(extra.notice ? { notice: extra.notice } : {}),
      ...(extra.issued ? { issued: extra.issued } : {}),
    }, nonceOf(ctx));
  }

  /** A site's applications, whether it has the beta, and each application's latest trace entry. */
  async function readApps(site: SiteView): Promise<{ clients: readonly MemberClient[]; beta: boolean; latest: Map<string, TraceEntry> }> {
    const [clients, beta] = await Promise.all([auth.memberClients.list(site.id), auth.options.betaEnabled(site.id)]);
    // one trace read per application (a school has a handful); one deleted meanwhile has none
    const traces = await Promise.all(clients.map((c) => auth.memberClients.trace(site.id, c.clientId).catch((err: unknown) => {
      if (err instanceof MemberClientError) return [] as TraceEntry[];
      throw err;
    })));
    const latest = new Map(clients.flatMap((c, i) => (traces[i]![0] ? [[c.clientId, traces[i]![0]] as const] : [])));
    return { clients, beta, latest };
  }

  /** Runs a library call; its refusals (MemberClientError) become the apps page with the message, as a 4xx. */
  async function manage(ctx: Context, op: Operator, site: SiteView, action: () => Promise<void>, form?: CreateFormValues): Promise<void> {
    try {
      await action();
    } catch (err) {
      if (!(err instanceof MemberClientError)) throw err;
      await renderApps(ctx, op, site, { status: err.status, error: err.description, ...(form ? { form } : {}) });
    }
  }

  router.get('/admin', async function home(ctx) {
    const session = await sessions.read(ctx);
    const op = await signedIn(session);
    if (op) {
      if (op.sites.length === 1) return redirect(ctx, appsPath(op.sites[0]!.id));
      if (op.sites.length > 1) {
        ctx.body = sitePickerPage({ sites: op.sites, header: op.header }, nonceOf(ctx));
        return;
      }
      throw new PageError(403, 'No school to manage', `${op.account.email} is not an ${roleNames} of any school.`, op.header);
    }
    // an anonymous session exists only to bind the sign-in form's CSRF token
    const anonymous = session && !session.accountId ? session : sessions.start(ctx);
    ctx.body = signInPage({ csrf: sessions.csrfToken(anonymous) }, nonceOf(ctx));
  });

  router.get(['/admin/sign-in', '/admin/sign-out'], (ctx) => redirect(ctx, ADMIN_HOME));

  router.post('/admin/sign-in', async function signIn(ctx) {
    const form = await readForm(ctx);
    const session = await sessions.read(ctx);
    if (!session || !sessions.verifyCsrf(session, form.get('csrf'))) throw EXPIRED();
    const email = field(form, 'email');
    const password = form.get('password') ?? '';
    const incorrect = () => {
      ctx.status = 401;
      ctx.body = signInPage({ csrf: sessions.csrfToken(session), email, error: 'The email or password is incorrect.' }, nonceOf(ctx));
    };
    if (!email || !password) return incorrect();
    const checked = await checkPassword(auth, accounts, ctx, email, password);
    if (checked.outcome === 'throttled') throw new PageError(429, checked.title, checked.message);
    if (checked.outcome === 'incorrect') return incorrect();
    const { account } = checked;
    // no session for an account that could do nothing here
    if ((await operatedSites(account)).length === 0) {
      throw new PageError(403, 'Only for school administrators', `${account.email} is not an ${roleNames} of any school, so there are no OAuth applications to manage. Ask an owner of your school for access.`);
    }
    sessions.start(ctx, account.id);
    redirect(ctx, ADMIN_HOME);
  });

  router.post('/admin/sign-out', async function signOut(ctx) {
    const form = await readForm(ctx);
    const session = await sessions.read(ctx);
    if (!session || !sessions.verifyCsrf(session, form.get('csrf'))) throw EXPIRED();
    await sessions.end(ctx, session);
    redirect(ctx, ADMIN_HOME);
  });

  router.get('/admin/sites/:site/apps', async function listApps(ctx) {
    const op = await signedIn(await sessions.read(ctx));
    if (!op) return redirect(ctx, ADMIN_HOME);
    const site = siteOf(op, ctx.params.site!);
    await renderApps(ctx, op, site, ctx.query.deleted === '1' ? { notice: 'The application was deleted. Its tokens no longer work.' } : {});
  });

  router.get('/admin/sites/:site/apps/:clientId', async function showApp(ctx) {
    const op = await signedIn(await sessions.read(ctx));
    if (!op) return redirect(ctx, ADMIN_HOME);
    const site = siteOf(op, ctx.params.site!);
    let client;
    try {
      client = await auth.memberClients.get(site.id, ctx.params.clientId!);
    } catch (err) {
      if (err instanceof MemberClientError && err.status === 404) {
        throw new PageError(404, 'No such application', `${site.name} has no OAuth application with this client ID (it may have been deleted).`, op.header);
      }
      throw err;
    }
    const trace = await auth.memberClients.trace(site.id, client.clientId);
    ctx.body = appPage({ site, header: op.header, client, trace, baseUrl: auth.options.baseUrl }, nonceOf(ctx));
  });

  addStaffRoutes(router, { auth, nonceOf, signedIn: async (ctx) => signedIn(await sessions.read(ctx)) });

  router.post('/admin/sites/:site/apps', async function createApp(ctx) {
    const { op, form } = await authorizePost(ctx);
    const site = siteOf(op, ctx.params.site!);
    const type = field(form, 'type');
    const values: CreateFormValues = {
      name: form.get('name') ?? '',
      redirectUris: form.get('redirect_uris') ?? '',
      type: type === 'public' ? 'public' : 'confidential',
      scopes: form.getAll('scope'),
    };
    await manage(ctx, op, site, async () => {
      const issued = await auth.memberClients.create(site.id, {
        name: values.name,
        redirectUris: values.redirectUris.split(/\r?\n/).map((u) => u.trim()).filter(Boolean),
        // unchecked here: the library's refusal message is the one to show
        type: type as 'public' | 'confidential',
        scopes: [...values.scopes],
      });
      await renderApps(ctx, op, site, { issued: { ...issued, rotated: false } });
    }, values);
  });

  router.post('/admin/sites/:site/apps/:clientId/rotate', async function rotateSecret(ctx) {
    const { op } = await authorizePost(ctx);
    const site = siteOf(op, ctx.params.site!);
    await manage(ctx, op, site, async () => {
      const issued = await auth.memberClients.rotateSecret(site.id, ctx.params.clientId!);
      await renderApps(ctx, op, site, { issued: { ...issued, rotated: true } });
    });
  });

  router.post('/admin/sites/:site/apps/:clientId/delete', async function deleteApp(ctx) {
    const { op } = await authorizePost(ctx);
    const site = siteOf(op, ctx.params.site!);
    await manage(ctx, op, site, async () => {
      await auth.memberClients.delete(site.id, ctx.params.clientId!);
      // see-other, so reloading the list cannot repeat the deletion
      redirect(ctx, `${appsPath(site.id)}?deleted=1`);
    });
  });

  return router;
}

export function renderPageError(ctx: Context, err: PageError): void {
  ctx.status = err.status;
  ctx.body = noticePage({ title: err.title, message: err.message, ...(err.header ? { header: err.header } : {}) }, nonceOf(ctx));
}
