/**
 * The demo's session cookies (admin area, "Connected apps", the host's own sign-in) are
 * `Secure` when its baseUrl is https, also when the connection it sees is plain HTTP: behind
 * a proxy that ends TLS, a cookie decided by the connection would travel without TLS too.
 */
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

const AREAS = [['/admin', 'admin_session'], ['/connected-apps', 'member_session'], ['/sign-in', 'demo_session']] as const;

async function sessionCookies(app: RunningApp): Promise<Record<string, string[]>> {
  const found: Record<string, string[]> = {};
  for (const [path, name] of AREAS) {
    // plain HTTP to the demo, as from a proxy that ended TLS
    const res = await fetch(`http://127.0.0.1:${app.port}${path}`, { redirect: 'manual' });
    expect(res.status).toBe(200);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`));
    expect(cookie).toBeDefined();
    found[name] = cookie!.split(';').slice(1).map((a) => a.trim().toLowerCase()).filter((a) => !a.startsWith('expires='));
  }
  return found;
}

it('baseUrl https: every session cookie is Secure, over a plain connection too', async () => {
  const app = await startApp({ baseUrl: 'https://school.example' });
  try {
    for (const attributes of Object.values(await sessionCookies(app))) {
      expect(attributes).toEqual(expect.arrayContaining(['secure', 'httponly', 'samesite=lax']));
    }
  } finally {
    await app.stop();
  }
});

it('baseUrl http (development): no Secure, or browsers would drop the cookie', async () => {
  const app = await startApp();
  try {
    for (const attributes of Object.values(await sessionCookies(app))) {
      expect(attributes).not.toContain('secure');
      expect(attributes).toEqual(expect.arrayContaining(['httponly', 'samesite=lax']));
    }
  } finally {
    await app.stop();
  }
});
