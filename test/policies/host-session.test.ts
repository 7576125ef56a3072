/**
 * lib/policies/host-session.ts without HTTP: the sign-in session follows the host's when the
 * host names another account, or names none and the library's page did not make the sign-in;
 * the host is told what the client asked for. Over HTTP: test/interactions/host-sign-out.test.ts.
 */
import type { KoaContextWithOIDC } from 'oidc-provider';

import { createMemoryAdapter } from '../../adapters/memory.ts';
import type { HostSignIn, SignInRequest } from '../../lib/contracts.ts';
import {
  AUTH_TIME_LEEWAY_S, checkAuthenticationContext, checkedAuthTime, hostSessionChanged, hostSessionCheck, markOwnPageLogin, OwnPageSignIns, ownPageSignInHost, ownPageSignInNotes,
} from '../../lib/policies/host-session.ts';

interface FakeOptions {
  sessionAccount?: string;
  loginResult?: boolean;
  prompts?: string[];
  params?: Record<string, unknown>;
}

function ctx({ sessionAccount, loginResult, prompts = [], params = {} }: FakeOptions = {}): KoaContextWithOIDC {
  return {
    href: 'https://learn.example/oauth/authorize?client_id=app',
    oidc: {
      session: { accountId: sessionAccount },
      result: loginResult ? { login: { accountId: 'x' } } : undefined,
      client: { clientId: 'member-app', clientName: 'Member App', audience: 'member', org_id: 'demo-school' },
      prompts: new Set(prompts),
      params,
    },
  } as unknown as KoaContextWithOIDC;
}

function host(answer: HostSignIn | undefined) {
  const asked: SignInRequest[] = [];
  return { asked, lookup: (_ctx: KoaContextWithOIDC, request: SignInRequest) => { asked.push(request); return answer; } };
}

it('asks for a sign-in when the host has another account signed in', async () => {
  const { lookup, asked } = host({ accountId: 'acc-admin' });
  const params = { max_age: '60', login_hint: 'a@b.example', ui_locales: 'de en', redirect_uri: 'https://app.example/cb' };
  expect(await hostSessionChanged(ctx({ sessionAccount: 'acc-student', params }), lookup)).toBe(true);
  expect(asked).toEqual([{
    clientId: 'member-app', clientName: 'Member App', site: 'demo-school', fresh: false, maxAge: 60,
    loginHint: 'a@b.example', uiLocales: ['de', 'en'], returnTo: 'https://learn.example/oauth/authorize?client_id=app',
    redirectUri: 'https://app.example/cb',
  }]);
});

it('keeps the session when the host has the same account, or none', async () => {
  expect(await hostSessionChanged(ctx({ sessionAccount: 'acc-student' }), host({ accountId: 'acc-student' }).lookup)).toBe(false);
  expect(await hostSessionChanged(ctx({ sessionAccount: 'acc-student' }), host(undefined).lookup)).toBe(false);
  expect(await hostSessionChanged(ctx({ sessionAccount: 'acc-student' }), host({ accountId: '' }).lookup)).toBe(false);
});

it('does not ask the host without a session, nor after a sign-in made in this request', async () => {
  const first = host({ accountId: 'acc-admin' });
  expect(await hostSessionChanged(ctx({}), first.lookup)).toBe(false);
  expect(await hostSessionChanged(ctx({ sessionAccount: 'acc-student', loginResult: true }), first.lookup)).toBe(false);
  expect(first.asked).toEqual([]);
});

it('tells the host when the client wants a fresh sign-in', async () => {
  const { lookup, asked } = host(undefined);
  await hostSessionChanged(ctx({ sessionAccount: 'acc-student', prompts: ['login'] }), lookup);
  expect(asked[0]!.fresh).toBe(true);
});

it('is a login-prompt check named for the rule', async () => {
  const check = hostSessionCheck(host({ accountId: 'acc-admin' }).lookup);
  expect(check.reason).toBe('host_session_changed');
  expect(check.error).toBe('login_required');
  expect(await check.check(ctx({ sessionAccount: 'acc-student' }))).toBe(true);
});

describe('a session signed in on the library\'s own page (OwnPageSignIns)', () => {
  const session = { uid: 'sess-1', accountId: 'acc-student', loginTs: 1_700_000_000 };
  const withSession = (): KoaContextWithOIDC => {
    const c = ctx({ sessionAccount: 'acc-student' });
    Object.assign(c.oidc.session!, session);
    return c;
  };

  it('asks for a sign-in when the host has nobody, unless the library\'s page made this sign-in (fails closed)', async () => {
    const signIns = new OwnPageSignIns(createMemoryAdapter(), 3600);
    // no note: the host's session or the host's page made it, or its note expired
    expect(await hostSessionChanged(withSession(), host(undefined).lookup, signIns)).toBe(true);
    await signIns.remember('sess-1', 'acc-student', 1_700_000_000);
    expect(await hostSessionChanged(withSession(), host(undefined).lookup, signIns)).toBe(false);
    // the host naming the account, or another: decided without the note
    expect(await hostSessionChanged(withSession(), host({ accountId: 'acc-student' }).lookup, signIns)).toBe(false);
    expect(await hostSessionChanged(withSession(), host({ accountId: 'acc-admin' }).lookup, signIns)).toBe(true);
  });

  it('does not match another sign-in of the same session: another time or account, or forgotten', async () => {
    const signIns = new OwnPageSignIns(createMemoryAdapter(), 3600);
    await signIns.remember('sess-1', 'acc-student', 1_700_000_000);
    expect(await signIns.madeBy({ ...session, loginTs: 1_700_000_001 })).toBe(false);
    expect(await signIns.madeBy({ ...session, accountId: 'acc-admin' })).toBe(false);
    expect(await signIns.madeBy({ ...session, uid: 'sess-2' })).toBe(false);
    expect(await signIns.madeBy({ ...session, loginTs: undefined })).toBe(false);
    expect(await signIns.madeBy(session)).toBe(true);
    await signIns.forget('sess-1', 1_700_000_000);
    expect(await signIns.madeBy(session)).toBe(false);
  });

  it('keeps the note of an earlier sign-in of the session when a later one is noted (a fault between the two writes leaves the earlier session whole)', async () => {
    const signIns = new OwnPageSignIns(createMemoryAdapter(), 3600);
    await signIns.remember('sess-1', 'acc-student', 1_700_000_000);
    await signIns.remember('sess-1', 'acc-admin', 1_700_000_100);
    expect(await signIns.madeBy(session)).toBe(true);
    expect(await signIns.madeBy({ uid: 'sess-1', accountId: 'acc-admin', loginTs: 1_700_000_100 })).toBe(true);
  });

  it('matches a session still being read (the consent page\'s check) the same way; a session gone matches nothing', async () => {
    const signIns = new OwnPageSignIns(createMemoryAdapter(), 3600);
    await signIns.remember('sess-1', 'acc-student', 1_700_000_000);
    expect(await signIns.madeByLoading('sess-1', Promise.resolve(session))).toBe(true);
    expect(await signIns.madeByLoading('sess-1', Promise.resolve({ ...session, loginTs: 1_700_000_001 }))).toBe(false);
    expect(await signIns.madeByLoading('sess-2', Promise.resolve(session))).toBe(false);
    // signed out (auth.interactions.signOut destroyed the session) while the note lives on
    expect(await signIns.madeByLoading('sess-1', Promise.resolve(undefined))).toBe(false);
  });

  it('a sign-in on the library\'s page carries whom the host named then; any other sign-in carries nothing', () => {
    const under = { accountId: 'acc-admin' };
    markOwnPageLogin(under, 'acc-student');
    expect(ownPageSignInHost(under)).toBe('acc-student');
    const alone = { accountId: 'acc-admin' };
    markOwnPageLogin(alone, undefined);
    expect(ownPageSignInHost(alone)).toBeNull();
    expect(ownPageSignInHost({ accountId: 'acc-admin' })).toBeUndefined();
    expect(ownPageSignInHost(undefined)).toBeUndefined();
  });

  it('is noted before the session that applies a sign-in on the library\'s page is written, and un-noted for any other sign-in', async () => {
    const signIns = new OwnPageSignIns(createMemoryAdapter(), 3600);
    const step = ownPageSignInNotes(signIns);
    const resumed = (result: Record<string, unknown>) => ({ oidc: { result } }) as never;
    const onPage = { accountId: 'acc-student', ts: session.loginTs };
    markOwnPageLogin(onPage, undefined);
    await step(resumed({ login: onPage }), { ...session });
    expect(await signIns.madeBy(session)).toBe(true);
    // a consent's resume carries the sign-in again: nothing to write
    expect(step(resumed({ login: { accountId: 'acc-student', ts: session.loginTs }, consent: {} }), { ...session })).toBeUndefined();
    expect(await signIns.madeBy(session)).toBe(true);
    // a sign-in made another way at that same second
    await step(resumed({ login: { accountId: 'acc-student', ts: session.loginTs } }), { ...session });
    expect(await signIns.madeBy(session)).toBe(false);
    // no sign-in in this request (an authorization, a consent alone), no request, a session
    // without a sign-in time: no storage work
    expect(step({ oidc: { result: { consent: {} } } } as never, { ...session })).toBeUndefined();
    expect(step({} as never, { ...session })).toBeUndefined();
    expect(step(undefined, { ...session })).toBeUndefined();
    expect(step(resumed({ login: onPage }), { ...session, loginTs: undefined })).toBeUndefined();
    // a login for another account than the session holds: never noted
    expect(step(resumed({ login: onPage }), { ...session, accountId: 'acc-admin' })).toBeUndefined();
  });
});

describe('checkedAuthTime (a host\'s authTime: epoch seconds, not later than now)', () => {
  const now = 1_790_000_000;

  it('takes epoch seconds up to the leeway ahead, floored, and leaves undefined to the caller', () => {
    expect(checkedAuthTime(undefined, 'x', now)).toBeUndefined();
    expect(checkedAuthTime(now - 3600, 'x', now)).toBe(now - 3600);
    expect(checkedAuthTime(now + AUTH_TIME_LEEWAY_S, 'x', now)).toBe(now + AUTH_TIME_LEEWAY_S);
    expect(checkedAuthTime(now - 0.5, 'x', now)).toBe(now - 1);
  });

  it.each([
    [Number.NaN, /must be the time of the sign-in in epoch seconds \(Math\.floor\(Date\.now\(\) \/ 1000\)\), not NaN$/],
    [Number.POSITIVE_INFINITY, /not Infinity$/],
    ['1790000000', /not "1790000000"/],
    [0, /not 0/],
    [-5, /not -5/],
    [now + AUTH_TIME_LEEWAY_S + 1, /^where: authTime \d+ is in the future; it is the time of the sign-in in epoch seconds$/],
    [now * 1000, /is in the future; .*: it looks like milliseconds; pass Math\.floor\(ms \/ 1000\)$/],
  ])('refuses %p with a TypeError that says what to pass', (value, message) => {
    expect(() => checkedAuthTime(value, 'where', now)).toThrow(TypeError);
    expect(() => checkedAuthTime(value, 'where', now)).toThrow(message);
  });
});

describe('checkAuthenticationContext (a host\'s amr and acr, as the ID token carries them)', () => {
  const ACR = ['urn:school:pwd', 'urn:school:mfa'];

  it('takes method names and one of the listed context classes, or neither', () => {
    expect(() => checkAuthenticationContext({}, 'x', [])).not.toThrow();
    expect(() => checkAuthenticationContext({ amr: ['pwd', 'mfa'], acr: 'urn:school:mfa' }, 'x', ACR)).not.toThrow();
    expect(() => checkAuthenticationContext({ amr: [] }, 'x', [])).not.toThrow();
  });

  it.each([
    [{ amr: 'pwd' }, /^where: amr must be an array of authentication method names \(RFC 8176\), e\.g\. \["pwd"\]: pass \["pwd"\]$/],
    [{ amr: 5 }, /^where: amr must be an array/],
    [{ amr: ['pwd', 7] }, /^where: amr must be an array/],
    [{ amr: [''] }, /^where: amr must be an array/],
    [{ acr: 2 }, /^where: acr must be a string naming the authentication context class$/],
    [{ acr: '' }, /^where: acr must be a string/],
    [{ acr: 'urn:school:otp' }, /^where: acr "urn:school:otp" is not one of options\.signIn\.acrValues \(it lists "urn:school:pwd", "urn:school:mfa"\); list the values your sign-ins carry there$/],
  ])('refuses %p with a TypeError that says what to pass', (given, message) => {
    expect(() => checkAuthenticationContext(given, 'where', ACR)).toThrow(TypeError);
    expect(() => checkAuthenticationContext(given, 'where', ACR)).toThrow(message);
  });

  it('refuses any acr when no acrValues are listed, saying where to list them', () => {
    expect(() => checkAuthenticationContext({ acr: 'urn:school:mfa' }, 'where', [])).toThrow(/is not one of options\.signIn\.acrValues \(none is listed\)/);
  });
});
