/**
 * The demo's sessions (admin area, "Connected apps", the host's own sign-in) on two instances
 * acting as one server behind a proxy, as README "The demo host" runs them: one
 * `adminSecret` (what DEMO_SECRET derives) and one storage (one memory store here, standing
 * for their Redis). A session signed in on A works on B; signed out on A, a copy of its
 * cookie is refused on A and on B, including where the library reads the host's session
 * (`signIn.session`).
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import type { AdapterPayload } from '../../adapters/types.ts';
import { ADMIN_HOME, CONNECTED_APPS_HOME, SIGN_IN_ACTION, SIGN_OUT_ACTION } from '../../examples/host/admin/layout.ts';
import { MEMBER_SIGN_IN_ACTION, MEMBER_SIGN_OUT_ACTION } from '../../examples/host/connected-apps-views.ts';
import { ENDED_SESSION_MODEL } from '../../examples/host/admin/session.ts';
import { HOST_SIGN_IN_PATH } from '../../examples/host/host-sign-in.ts';
import { DelegatingAdapter } from '../../lib/storage/model-decorator.ts';
import { findForm } from '../support/browser.ts';
import { ADMIN, MEMBER, STUDENT, buildAuthorizeUrl } from '../support/flows.ts';
import { pkcePair } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import { appsPath } from './admin-browser.ts';

const ADMIN_SECRET = 'one-demo-secret-derived-admin-key-0123456789';
const storage = createMemoryAdapter();
let a: RunningApp;
let b: RunningApp;

beforeAll(async () => {
  [a, b] = await Promise.all([0, 1].map(() => startApp({ adminSecret: ADMIN_SECRET, auth: { adapter: storage } })));
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await storage.close();
});

/** The `name=value` a response sets for the cookie `name`. */
function cookieOf(res: Response, name: string): string {
  const pair = res.headers.getSetCookie().map((c) => c.split(';')[0]!).find((c) => c.startsWith(`${name}=`));
  if (!pair) throw new Error(`no ${name} cookie set`);
  return pair;
}

/** A form POST that does not follow the redirect, with only the cookie given. */
function postManual(url: string, fields: Record<string, string>, cookie: string) {
  return fetch(url, {
    method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie }, body: new URLSearchParams(fields),
  });
}

/**
 * Where the library's sign-in leads at `app` for a browser holding only `cookie`: its sign-in
 * page, or consent straight away when the library takes the host's session (`signIn.session`).
 */
async function libraryAsks(app: RunningApp, cookie: string): Promise<'sign-in' | 'consent'> {
  const pair = (c: string) => c.split(/=(.*)/s).slice(0, 2) as [string, string];
  const jar = new Map([pair(cookie)]);
  let url = buildAuthorizeUrl(app.baseUrl, MEMBER, { scope: 'openid account:read', challenge: pkcePair().challenge, state: 'st' });
  for (let hops = 0; hops < 10; hops += 1) {
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const set of res.headers.getSetCookie()) jar.set(...pair(set.split(';')[0]!));
    if (res.status < 300 || res.status >= 400) {
      const html = await res.text();
      if (html.includes('name="password"')) return 'sign-in';
      if (html.includes('/confirm"')) return 'consent';
      throw new Error(`neither sign-in nor consent (${res.status}):\n${html.slice(0, 1000)}`);
    }
    url = new URL(res.headers.get('location')!, url).href;
  }
  throw new Error('too many redirects');
}

interface Area {
  readonly cookie: string;
  /** the page with the sign-in form, and its action */
  readonly home: string;
  readonly signIn: string;
  readonly user: { email: string; password: string };
  /** a page that has the sign-out form for a signed-in session, and that form's action */
  readonly signedInPage: string;
  readonly signOut: string;
  /** whether `app` takes the session of `cookie` as signed in */
  signedIn(app: RunningApp, cookie: string): Promise<boolean>;
}

const AREAS: Record<string, Area> = {
  admin_session: {
    cookie: 'admin_session', home: ADMIN_HOME, signIn: SIGN_IN_ACTION, user: ADMIN,
    signedInPage: appsPath('demo-school'), signOut: SIGN_OUT_ACTION,
    signedIn: async (app, cookie) => (await fetch(`${app.baseUrl}${appsPath('demo-school')}`, { headers: { cookie }, redirect: 'manual' })).status === 200,
  },
  member_session: {
    cookie: 'member_session', home: CONNECTED_APPS_HOME, signIn: MEMBER_SIGN_IN_ACTION, user: STUDENT,
    signedInPage: CONNECTED_APPS_HOME, signOut: MEMBER_SIGN_OUT_ACTION,
    signedIn: async (app, cookie) => (await (await fetch(`${app.baseUrl}${CONNECTED_APPS_HOME}`, { headers: { cookie } })).text()).includes(`action="${MEMBER_SIGN_OUT_ACTION}"`),
  },
  // the library is what reads this one, through signIn.session
  demo_session: {
    cookie: 'demo_session', home: HOST_SIGN_IN_PATH, signIn: HOST_SIGN_IN_PATH, user: STUDENT,
    signedInPage: HOST_SIGN_IN_PATH, signOut: '/sign-out',
    signedIn: async (app, cookie) => (await libraryAsks(app, cookie)) === 'consent',
  },
};

it.each(Object.keys(AREAS))('%s: signed out on one instance, a copy of the cookie is refused by the other too', async (name) => {
  const area = AREAS[name]!;
  // raw fetch rather than Browser: the test must keep the cookie the browser would drop
  const start = await fetch(`${a.baseUrl}${area.home}`);
  const csrf = findForm(await start.text(), area.signIn).hidden.csrf!;
  const signIn = await postManual(`${a.baseUrl}${area.signIn}`, { csrf, ...area.user }, cookieOf(start, area.cookie));
  expect(signIn.status).toBe(303);
  const session = cookieOf(signIn, area.cookie);
  // one session, both instances (the shared secret)
  expect([await area.signedIn(a, session), await area.signedIn(b, session)]).toEqual([true, true]);

  const page = await fetch(`${a.baseUrl}${area.signedInPage}`, { headers: { cookie: session } });
  const out = findForm(await page.text(), area.signOut);
  expect((await postManual(`${a.baseUrl}${out.action}`, out.hidden, session)).status).toBe(303);

  expect([await area.signedIn(a, session), await area.signedIn(b, session)]).toEqual([false, false]);
});

it('a sign-out of a session nobody signed in to (a form\'s anonymous session) stores nothing: anyone could send thousands', async () => {
  const inner = createMemoryAdapter();
  const written: string[] = [];
  const adapter = Object.assign((model: string) => {
    const found = inner(model);
    if (model !== ENDED_SESSION_MODEL) return found;
    return new (class extends DelegatingAdapter {
      override upsert(id: string, payload: AdapterPayload, expiresIn?: number) {
        written.push(id);
        return super.upsert(id, payload, expiresIn);
      }
    })(found);
  }, inner);
  const app = await startApp({ adminSecret: ADMIN_SECRET, auth: { adapter } });
  try {
    for (let i = 0; i < 5; i += 1) {
      const start = await fetch(`${app.baseUrl}${HOST_SIGN_IN_PATH}`);
      const csrf = findForm(await start.text(), HOST_SIGN_IN_PATH).hidden.csrf!;
      expect((await postManual(`${app.baseUrl}/sign-out`, { csrf }, cookieOf(start, 'demo_session'))).status).toBe(303);
    }
    expect(written).toEqual([]);
    // a signed-in session's sign-out is still stored (it must end on every instance)
    const start = await fetch(`${app.baseUrl}${HOST_SIGN_IN_PATH}`);
    const csrf = findForm(await start.text(), HOST_SIGN_IN_PATH).hidden.csrf!;
    const session = cookieOf(await postManual(`${app.baseUrl}${HOST_SIGN_IN_PATH}`, { csrf, ...STUDENT }, cookieOf(start, 'demo_session')), 'demo_session');
    const out = findForm(await (await fetch(`${app.baseUrl}${HOST_SIGN_IN_PATH}`, { headers: { cookie: session } })).text(), '/sign-out');
    expect((await postManual(`${app.baseUrl}${out.action}`, out.hidden, session)).status).toBe(303);
    expect(written).toHaveLength(1);
  } finally {
    await app.stop();
    await inner.close();
  }
});
