/**
 * Sign-in throttling over real HTTP, on the demo host: per account and per client address,
 * a 429 page with Retry-After that says the same for every email, before the host's password
 * check; the window; two instances on one Redis; the context `authenticate` receives; the
 * demo's admin sign-in on the same counters.
 */
import { randomUUID } from 'node:crypto';

import { createMemoryAdapter } from '../../adapters/memory.ts';
import { createRedisAdapter } from '../../adapters/redis.ts';
import type { Adapter, AdapterFactory, ClosableAdapterFactory, CompareAndSet } from '../../adapters/types.ts';
import { createAccountStore } from '../../examples/host/seed.ts';
import type { AccountStore, SignInContext } from '../../lib/index.ts';
import { AdminBrowser } from '../examples/admin-browser.ts';
import { Browser, findForm, isPage } from '../support/browser.ts';
import type { PageResult } from '../support/browser.ts';
import { ADMIN, MEMBER, STUDENT, buildAuthorizeUrl } from '../support/flows.ts';
import { pkcePair, randomState } from '../support/pkce.ts';
import { startRedis } from '../support/redis-server.ts';
import type { RedisHandle } from '../support/redis-server.ts';
import { startApp, withApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

const SCOPE = 'openid profile email account:read';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The demo's accounts, recording every call of authenticate. */
function recordingAccounts() {
  const inner = createAccountStore();
  const calls: { email: string; context: SignInContext | undefined }[] = [];
  const accounts: AccountStore = {
    authenticate(email, password, context) {
      calls.push({ email, context });
      return inner.authenticate(email, password, context);
    },
    findById: (id) => inner.findById(id),
  };
  return { accounts, calls };
}

/** A sign-in page of a fresh authorization request on `app`. */
async function loginPage(app: RunningApp, browser = new Browser(app.baseUrl)): Promise<{ browser: Browser; page: PageResult }> {
  const { challenge } = pkcePair();
  const result = await browser.navigate(buildAuthorizeUrl(app.baseUrl, MEMBER, { scope: SCOPE, challenge, state: randomState() }));
  if (!isPage(result) || !result.html.includes('name="password"')) throw new Error('no sign-in page');
  return { browser, page: result };
}

interface Answer {
  status: number;
  retryAfter: string | null;
  html: string;
  location: string | null;
}

/** Posts the sign-in form of `page` (its CSRF token) with these credentials and headers. */
async function submitLogin(browser: Browser, page: PageResult, email: string, password: string, headers: Record<string, string> = {}): Promise<Answer> {
  const form = findForm(page.html, '/login');
  const response = await browser.request(form.action, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ ...form.hidden, email, password }).toString(),
  });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), html: await response.text(), location: response.headers.get('location') };
}

/** The methods of a memory adapter as own properties, to override some (its fields are private). */
function bound(store: Adapter & CompareAndSet): Adapter & CompareAndSet {
  const methods = ['upsert', 'find', 'findByUid', 'findByUserCode', 'consume', 'destroy', 'revokeByGrantId', 'compareAndSet'] as const;
  return Object.fromEntries(methods.map((name) => [name, (store[name] as (...args: unknown[]) => unknown).bind(store)])) as unknown as Adapter & CompareAndSet;
}

/** The visible words of a page: no tags, no nonce. */
const words = (html: string) => html.replace(/<style[\s\S]*?<\/style>/g, '').replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim();

describe('sign-in throttling', () => {
  it('20 wrong passwords for one account from one address end in 429 with Retry-After; the throttled ones never reach authenticate', async () => {
    const { accounts, calls } = recordingAccounts();
    await withApp({ accounts }, async (app) => {
      const { browser, page } = await loginPage(app);
      const answers: Answer[] = [];
      for (let i = 0; i < 20; i += 1) answers.push(await submitLogin(browser, page, STUDENT.email, `wrong-${i}`));
      expect(answers.slice(0, 5).map((a) => a.status)).toEqual([401, 401, 401, 401, 401]);
      const last = answers.at(-1)!;
      expect(last.status).toBe(429);
      expect(Number(last.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(last.html).toContain('Too many sign-in attempts');
      expect(calls.length).toBeLessThan(8);
      expect(calls.length).toBe(answers.filter((a) => a.status === 401).length);
      // the right password is refused too while the account waits, unchecked
      const before = calls.length;
      const right = await submitLogin(browser, page, STUDENT.email, STUDENT.password);
      expect(right.status).toBe(429);
      expect(calls.length).toBe(before);
    });
  });

  it('the 429 page is the same, status and words, for an existing and an unknown account', async () => {
    await withApp({}, async (app) => {
      const until429 = async (email: string) => {
        const { browser, page } = await loginPage(app);
        const statuses: number[] = [];
        let answer: Answer;
        // bounded: without a throttle this would go on for ever
        do {
          answer = await submitLogin(browser, page, email, 'not-the-password');
          statuses.push(answer.status);
        } while (answer.status === 401 && statuses.length < 12);
        return { statuses, answer };
      };
      const known = await until429(STUDENT.email);
      const unknown = await until429('nobody-here@example.com');
      expect(unknown.statuses).toEqual(known.statuses);
      expect(known.answer.status).toBe(429);
      expect(unknown.answer.retryAfter).toBe(known.answer.retryAfter);
      expect(words(unknown.answer.html)).toBe(words(known.answer.html));
      expect(words(known.answer.html)).not.toContain(STUDENT.email);
    });
  });

  it('one account attacked from 20 addresses (proxy: true, X-Forwarded-For) is throttled too', async () => {
    const { accounts, calls } = recordingAccounts();
    await withApp({ accounts, proxy: true }, async (app) => {
      const { browser, page } = await loginPage(app);
      const statuses: number[] = [];
      for (let i = 0; i < 20; i += 1) {
        // the left entry is client-written and ignored; the nearest proxy's entry is the address
        statuses.push((await submitLogin(browser, page, ADMIN.email, `guess-${i}`, { 'x-forwarded-for': `10.9.9.9, 198.51.100.${i + 1}` })).status);
      }
      expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
      expect(statuses.at(-1)).toBe(429);
      expect(new Set(calls.map((c) => c.context?.ip)).size).toBe(calls.length);
    });
  });

  it('one address guessing many accounts is throttled; X-Forwarded-For cannot dodge it without proxy', async () => {
    await withApp({ signInThrottle: { ipFailures: 10 } }, async (app) => {
      const { browser, page } = await loginPage(app);
      const statuses: number[] = [];
      for (let i = 0; i < 14; i += 1) {
        statuses.push((await submitLogin(browser, page, `user${i}@example.com`, 'password1', { 'x-forwarded-for': `203.0.113.${i + 1}` })).status);
      }
      expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
      expect(statuses.at(-1)).toBe(429);
    });
  });

  it('with proxy, an address the proxy wrote with a port (ip:port, [ipv6]:port) is one address whatever the port', async () => {
    await withApp({ proxy: true, signInThrottle: { ipFailures: 3 } }, async (app) => {
      for (const entry of [(i: number) => `203.0.113.7:${40000 + i}`, (i: number) => `[2001:db8:9:9::${i + 1}]:${40000 + i}`]) {
        const { browser, page } = await loginPage(app);
        const statuses: number[] = [];
        for (let i = 0; i < 4; i += 1) {
          statuses.push((await submitLogin(browser, page, `user${i}-${randomUUID()}@example.com`, 'password1', { 'x-forwarded-for': entry(i) })).status);
        }
        expect(statuses).toEqual([401, 401, 401, 429]);
      }
    });
  });

  it('the right password works again once the wait and the window are over', async () => {
    await withApp({ signInThrottle: { windowSeconds: 2, maxDelaySeconds: 2 } }, async (app) => {
      const { browser, page } = await loginPage(app);
      let answer: Answer;
      let tries = 0;
      do answer = await submitLogin(browser, page, STUDENT.email, 'wrong');
      while (answer.status === 401 && (tries += 1) < 12);
      expect(answer.status).toBe(429);
      expect(Number(answer.retryAfter)).toBeLessThanOrEqual(2);
      await sleep(2_200);
      const right = await submitLogin(browser, page, STUDENT.email, STUDENT.password);
      expect(right.status).toBe(303);
    });
  });

  it('an attacker who waits out the capped wait gets one guess per wait, not its free failures back', async () => {
    // the defaults' shape, scaled down: the cap equals the window. A key forgotten when its
    // wait ended came back with its free failures every cap (six times the guesses a day)
    const { accounts, calls } = recordingAccounts();
    await withApp({ accounts, signInThrottle: { accountFailures: 3, ipFailures: 1000, windowSeconds: 2, maxDelaySeconds: 2 } }, async (app) => {
      const { browser, page } = await loginPage(app);
      const statuses: number[] = [];
      const guess = async () => statuses.push((await submitLogin(browser, page, STUDENT.email, `wrong-${statuses.length}`)).status);
      for (let i = 0; i < 4; i += 1) await guess(); // 3 free failures, then the 1 s wait
      await sleep(1_100);
      await guess(); // the 4th failure: now the wait is the cap, 2 s
      await sleep(2_100);
      await guess(); // the one guess the capped wait lets through
      await guess(); // and the wait again, not a fresh budget
      expect(statuses).toEqual([401, 401, 401, 429, 401, 401, 429]);
      expect(calls).toHaveLength(5);
    });
  });

  it('a school address past its free failures is not slowed by its successes, and is forgotten after its last failure\'s wait and window', async () => {
    // the defaults' shape, scaled down: 2 free failures per address, 1 s wait, 2 s window
    await withApp({ signInThrottle: { accountFailures: 1000, ipFailures: 2, windowSeconds: 2, maxDelaySeconds: 1 } }, async (app) => {
      const signIn = async (email: string, password: string) => {
        const { browser, page } = await loginPage(app);
        return (await submitLogin(browser, page, email, password)).status;
      };
      // two typos through the school's one address, then the wait they earned
      expect(await signIn('typo1@example.com', 'x')).toBe(401);
      expect(await signIn('typo2@example.com', 'x')).toBe(401);
      await sleep(1_100);
      // then successes only, two members right after each other, for longer than the wait and the window
      const statuses: number[] = [];
      for (let round = 0; round < 4; round += 1) {
        statuses.push(await signIn(STUDENT.email, STUDENT.password), await signIn(ADMIN.email, ADMIN.password));
        await sleep(1_100);
      }
      expect(statuses).toEqual(Array(8).fill(303));
    });
  });

  it('a success forgets the account: five more failures are free again', async () => {
    await withApp({}, async (app) => {
      for (let round = 0; round < 3; round += 1) {
        const { browser, page } = await loginPage(app);
        for (let i = 0; i < 4; i += 1) expect((await submitLogin(browser, page, STUDENT.email, 'wrong')).status).toBe(401);
        expect((await submitLogin(browser, page, STUDENT.email, STUDENT.password)).status).toBe(303);
      }
    });
  });

  it('a success clears its counters alongside finishing the sign-in, not before it (one trip to storage, not two)', async () => {
    // storage that answers the throttle's writes a turn late, as a remote one does; the log
    // says whether the provider's read of the interaction waited for them
    const inner = createMemoryAdapter();
    const log: string[] = [];
    const adapter = ((model: string) => {
      const store = inner(model) as Adapter & CompareAndSet;
      if (model === 'SignInThrottle') {
        return Object.assign(bound(store), {
          async compareAndSet(...args: Parameters<CompareAndSet['compareAndSet']>) {
            const written = await store.compareAndSet(...args);
            await new Promise((resolve) => setImmediate(resolve));
            log.push('throttle written');
            return written;
          },
        });
      }
      if (model === 'Interaction') {
        return Object.assign(bound(store), {
          find(id: string) {
            log.push('interaction read');
            return store.find(id);
          },
          upsert(...args: Parameters<Adapter['upsert']>) {
            log.push('interaction written');
            return store.upsert(...args);
          },
        });
      }
      return store;
    }) as AdapterFactory;
    await withApp({ adapter }, async (app) => {
      const { browser, page } = await loginPage(app);
      log.length = 0;
      expect((await submitLogin(browser, page, STUDENT.email, STUDENT.password)).status).toBe(303);
      // the page's read; the reservations (account, address); then the result's write on the
      // interaction read at the start (not read again: interactions/interaction-result.ts),
      // asked for before the two clearing writes were answered
      expect(log).toEqual(['interaction read', 'throttle written', 'throttle written', 'interaction written', 'throttle written', 'throttle written']);
    });
  });

  it('authenticate receives the client address and user agent', async () => {
    const { accounts, calls } = recordingAccounts();
    await withApp({ accounts }, async (app) => {
      const { browser, page } = await loginPage(app);
      await submitLogin(browser, page, STUDENT.email, 'wrong', { 'user-agent': 'throttle-test/1.0', 'x-forwarded-for': '203.0.113.50' });
      expect(calls.at(-1)).toEqual({ email: STUDENT.email, context: { ip: '127.0.0.1', userAgent: 'throttle-test/1.0' } });
    });
    const proxied = recordingAccounts();
    await withApp({ accounts: proxied.accounts, proxy: true }, async (app) => {
      const { browser, page } = await loginPage(app);
      await submitLogin(browser, page, STUDENT.email, 'wrong', { 'user-agent': 'throttle-test/2.0', 'x-forwarded-for': '10.0.0.1, 203.0.113.50' });
      expect(proxied.calls.at(-1)?.context).toEqual({ ip: '203.0.113.50', userAgent: 'throttle-test/2.0' });
    });
  });

  it('signInThrottle: false lets every attempt through', async () => {
    await withApp({ signInThrottle: false }, async (app) => {
      expect(app.auth.signInThrottle.enabled).toBe(false);
      const { browser, page } = await loginPage(app);
      for (let i = 0; i < 20; i += 1) expect((await submitLogin(browser, page, STUDENT.email, 'wrong')).status).toBe(401);
      expect((await submitLogin(browser, page, STUDENT.email, STUDENT.password)).status).toBe(303);
    });
  });

  it('the demo admin sign-in is throttled, on the counters of the sign-in page', async () => {
    await withApp({}, async (app) => {
      // five failures on the OAuth sign-in page...
      const { browser, page } = await loginPage(app);
      for (let i = 0; i < 5; i += 1) expect((await submitLogin(browser, page, ADMIN.email, 'wrong')).status).toBe(401);
      // ...and the admin form makes the same account wait, the right password included
      const admin = new AdminBrowser(app.baseUrl);
      const refused = await admin.signIn(ADMIN.email, ADMIN.password);
      expect(refused.response.status).toBe(429);
      expect(Number(refused.response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(refused.html).toContain('Too many sign-in attempts');
    });
    await withApp({}, async (app) => {
      const admin = new AdminBrowser(app.baseUrl);
      const statuses: number[] = [];
      for (let i = 0; i < 8; i += 1) statuses.push((await admin.signIn(ADMIN.email, `wrong-${i}`)).response.status);
      expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
      expect(statuses.at(-1)).toBe(429);
    });
  });

  describe('two instances on one Redis', () => {
    let redis: RedisHandle;
    const adapters: ClosableAdapterFactory[] = [];
    const apps: RunningApp[] = [];

    beforeAll(async () => {
      redis = await startRedis();
    });

    afterAll(async () => {
      await Promise.all(apps.map((a) => a.stop()));
      await Promise.all(adapters.map((a) => a.close()));
      await redis?.stop();
    });

    it('share the counters: failures on A make B refuse', async () => {
      const keyPrefix = `platform-auth-test:${randomUUID()}:`;
      for (let i = 0; i < 2; i += 1) {
        const adapter = createRedisAdapter({ url: redis.url, keyPrefix, logger: { info() {}, warn() {} } });
        adapters.push(adapter);
        apps.push(await startApp({ auth: { adapter } }));
      }
      const [a, b] = apps as [RunningApp, RunningApp];
      const onA = await loginPage(a);
      for (let i = 0; i < 5; i += 1) expect((await submitLogin(onA.browser, onA.page, STUDENT.email, 'wrong')).status).toBe(401);
      const onB = await loginPage(b);
      const refused = await submitLogin(onB.browser, onB.page, STUDENT.email, STUDENT.password);
      expect(refused.status).toBe(429);
      expect(refused.retryAfter).toBe('1');
      // once the wait is over, B lets the right password through and that forgets the account on A too
      await sleep(1_100);
      expect((await submitLogin(onB.browser, onB.page, STUDENT.email, STUDENT.password)).status).toBe(303);
      const again = await loginPage(a);
      expect((await submitLogin(again.browser, again.page, STUDENT.email, 'wrong')).status).toBe(401);
    });
  });
});
