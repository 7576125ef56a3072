/**
 * "Connected apps" while a consent is being saved: the grant index links a new grant into its
 * account's chain before the grant itself is stored, so a list (or a revoke by client) that
 * runs in between finds no grant behind the chain's head. It must not delete the head then:
 * the new grant would drop out of the member's list for good, and "disconnect" would miss it
 * while its tokens go on working. Over real HTTP on the demo host, with the one grant save
 * held open until the list has run (two tabs, or two instances, do the same by timing).
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import type { Adapter, AdapterFactory } from '../../adapters/types.ts';
import { DelegatingAdapter } from '../../lib/storage/model-decorator.ts';
import { MEMBER, STUDENT, exchangeCode, obtainCode, obtainTokens } from '../support/flows.ts';
import type { TokenSet } from '../support/flows.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

const SCOPE = 'openid profile email account:read';

/** Memory storage whose next `Grant` save, once armed, waits for `release()` (after `started` resolves). */
function holdableGrantSaves(inner: AdapterFactory) {
  let armed: { started: () => void; release: Promise<void> } | undefined;
  const factory = (model: string): Adapter => {
    const adapter = inner(model);
    if (model !== 'Grant') return adapter;
    return new (class extends DelegatingAdapter {
      override async upsert(id: string, payload: Record<string, unknown>, expiresIn?: number) {
        const held = armed;
        armed = undefined;
        if (held) {
          held.started();
          await held.release;
        }
        return adapter.upsert(id, payload, expiresIn as number);
      }
    })(adapter);
  };
  return Object.assign(factory, inner, {
    /** Holds the next grant save: `started` resolves when it begins, `release()` lets it finish. */
    holdNextSave() {
      let started!: () => void;
      let release!: () => void;
      const begun = new Promise<void>((resolve) => { started = resolve; });
      armed = { started, release: new Promise<void>((resolve) => { release = resolve; }) };
      return { started: begun, release };
    },
  });
}

let app: RunningApp;
let storage: ReturnType<typeof holdableGrantSaves>;

beforeEach(async () => {
  storage = holdableGrantSaves(createMemoryAdapter());
  app = await startApp({ auth: { adapter: storage } });
});
afterEach(() => app.stop());

function userinfo(token: string) {
  return fetch(`${app.baseUrl}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${token}` } });
}

/** Signs the student in to the member app with the grant save held while `meanwhile` runs. */
async function consentWhile(meanwhile: () => Promise<unknown>): Promise<TokenSet> {
  const hold = storage.holdNextSave();
  const consenting = obtainCode(app.baseUrl, MEMBER, { scope: SCOPE }, STUDENT);
  await hold.started;
  await meanwhile();
  hold.release();
  const { code, verifier } = await consenting;
  const exchanged = await exchangeCode(app.baseUrl, MEMBER, code, verifier);
  expect(exchanged.status).toBe(200);
  return (await exchanged.json()) as TokenSet;
}

async function expectListedAndRevocable(tokens: TokenSet): Promise<void> {
  const apps = await app.auth.connectedApps.list('acc-student');
  expect(apps.map((a) => [a.clientId, a.grants.length])).toEqual([[MEMBER.clientId, 1]]);
  expect((await userinfo(tokens.access_token)).status).toBe(200);
  expect(await app.auth.connectedApps.revoke('acc-student', { clientId: MEMBER.clientId })).toBe(1);
  expect((await userinfo(tokens.access_token)).status).toBe(401);
  expect(await app.auth.connectedApps.list('acc-student')).toEqual([]);
}

it('keeps the account\'s first app when a list runs while its consent is being saved', async () => {
  const tokens = await consentWhile(async () => {
    // the grant is linked but not stored yet: nothing to show, and nothing to delete
    expect(await app.auth.connectedApps.list('acc-student')).toEqual([]);
  });
  await expectListedAndRevocable(tokens);
});

it('keeps an app reconnected after every app was disconnected, when a revoke by client runs during its consent', async () => {
  await obtainTokens(app.baseUrl, MEMBER, { scope: SCOPE }, STUDENT);
  expect(await app.auth.connectedApps.revoke('acc-student', { clientId: MEMBER.clientId })).toBe(1);
  const tokens = await consentWhile(async () => {
    expect(await app.auth.connectedApps.revoke('acc-student', { clientId: MEMBER.clientId })).toBe(0);
  });
  await expectListedAndRevocable(tokens);
});
