/**
 * The demo host: a Koa app that mounts platform-auth. Tests import `buildApp` too.
 */
import { randomBytes } from 'node:crypto';

import Koa from 'koa';

import { createPlatformAuth } from '../../lib/index.ts';
import type { PlatformAuth, PlatformAuthOptions, SiteStore } from '../../lib/index.ts';
import { adminApi } from './admin-api.ts';
import { adminPage } from './admin-page.ts';
import { connectedAppsPage } from './connected-apps.ts';
import { HOST_SIGN_IN_PATH, createHostSessions, hostSession, hostSignInPage } from './host-sign-in.ts';
import { demoMcpOptions } from './mcp-tools.ts';
import { createDemoMemberData } from './member-data.ts';
import {
  BETA_SITES, VENDOR_CLIENT_ID, createAccountStore, createSiteStore, demoClients,
} from './seed.ts';

export interface DemoOptions {
  /** @default 'http://localhost:3000' */
  baseUrl?: string;
  /** @default a random secret, printed at start-up */
  operatorSecret?: string;
  /**
   * Signs the session cookies of the admin area and of "Connected apps" (a key of its own
   * derived for each); never the operator client's secret, which the demo prints.
   * @default a random key for this process
   */
  adminSecret?: string;
  /**
   * Who signs people in: `library`, the library's page (a member signed in at the host's
   * `/sign-in` goes straight to consent); `host`, the host's own `/sign-in` page always.
   * @default 'library'
   */
  signIn?: 'library' | 'host';
  /** anything else to pass to createPlatformAuth (tests turn features on and off here) */
  auth?: Partial<PlatformAuthOptions>;
}

export interface DemoApp {
  readonly app: Koa;
  readonly auth: PlatformAuth;
  readonly baseUrl: string;
  readonly operatorSecret: string;
  close(): Promise<void>;
}

export async function buildApp(options: DemoOptions = {}): Promise<DemoApp> {
  const baseUrl = options.baseUrl ?? 'http://localhost:3000';
  const operatorSecret = options.operatorSecret ?? randomBytes(24).toString('base64url');
  const accounts = createAccountStore();
  const sites = withDemoBranding(createSiteStore());
  // Secure cookies as baseUrl says, not as the connection does (a proxy may end TLS before it)
  const secureCookies = new URL(baseUrl).protocol === 'https:';
  const auth = await createPlatformAuth({
    baseUrl,
    accounts,
    sites,
    clients: demoClients(baseUrl, operatorSecret),
    memberData: createDemoMemberData(),
    registration: { variant: 'restricted', vendors: [{ clientId: VENDOR_CLIENT_ID }] },
    memberClients: { betaEnabled: [...BETA_SITES] },
    mcp: demoMcpOptions({ accounts }),
    // the host's own sign-in session (host-sign-in.ts), made below: it keeps its sign-outs in
    // the library's storage, so needs the library first. Only requests read it, and they come after
    signIn: { session: (ctx) => hostSession(hostSessions, ctx), ...(options.signIn === 'host' ? { loginUrl: HOST_SIGN_IN_PATH } : {}) },
    ...options.auth,
  });
  const hostSessions = createHostSessions(options.adminSecret ?? randomBytes(32).toString('base64url'), {
    secure: secureCookies, storage: auth.options.adapter,
  });

  const app = new Koa();
  app.use(auth.routes());
  app.use(hostSignInPage({ auth, accounts, sessions: hostSessions }));
  app.use(adminApi(auth));
  const pageSecret = options.adminSecret ?? randomBytes(32).toString('base64url');
  app.use(adminPage({ auth, accounts, sites, secret: pageSecret, secureCookies }));
  app.use(connectedAppsPage({ auth, accounts, secret: pageSecret, secureCookies }));
  app.use(async function demoPages(ctx, next) {
    if (ctx.method !== 'GET') return next();
    if (ctx.path === '/') {
      ctx.type = 'text/plain';
      ctx.body = `platform-auth demo host\n\nDiscovery: ${baseUrl}/.well-known/openid-configuration\nResource metadata: ${baseUrl}/.well-known/oauth-protected-resource\nSchool admin (OAuth applications, their activity): ${baseUrl}/admin\nPlatform staff (every client's activity; the demo admin is staff): ${baseUrl}/admin/staff\nYour connected apps: ${baseUrl}/connected-apps\n`;
      return;
    }
    if (ctx.path === '/demo/callback') {
      // The operator app's redirect target: shows what came back, for trying the flow by hand.
      ctx.set('Cache-Control', 'no-store');
      ctx.body = {
        note: 'exchange the code at /api/oauth/token with your code_verifier',
        code: ctx.query.code, state: ctx.query.state, iss: ctx.query.iss,
        error: ctx.query.error, error_description: ctx.query.error_description,
      };
      return;
    }
    return next();
  });

  return { app, auth, baseUrl, operatorSecret, close: () => auth.close() };
}

/** Demo School's look on the sign-in and consent pages (`Site.branding`); a real host keeps it with the site. */
function withDemoBranding(sites: SiteStore): SiteStore {
  return {
    async findById(id) {
      const site = await sites.findById(id);
      return site?.id === 'demo-school' ? { ...site, branding: { accentColor: '#0f766e' } } : site;
    },
  };
}
