/**
 * lib/policies/host-session.ts without HTTP: the sign-in session follows the host's when the
 * host names another account, and only then; the host is told what the client asked for.
 */
import type { KoaContextWithOIDC } from 'oidc-provider';

import type { HostSignIn, SignInRequest } from '../../lib/contracts.ts';
import { hostSessionChanged, hostSessionCheck } from '../../lib/policies/host-session.ts';

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
  expect(await hostSessionChanged(ctx({ sessionAccount: 'acc-student', params: { max_age: '60', login_hint: 'a@b.example', ui_locales: 'de en' } }), lookup)).toBe(true);
  expect(asked).toEqual([{
    clientId: 'member-app', clientName: 'Member App', site: 'demo-school', fresh: false, maxAge: 60,
    loginHint: 'a@b.example', uiLocales: ['de', 'en'], returnTo: 'https://learn.example/oauth/authorize?client_id=app',
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
