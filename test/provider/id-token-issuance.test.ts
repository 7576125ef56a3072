/**
 * lib/provider/id-token-issuance.ts over real HTTP: the provider signs no ID token for an
 * answer that goes out without one (a refresh; every token answer with `idTokens: false`),
 * and the ID token of a code exchange is still the provider's, with its lifetime.
 */
import { jest } from '@jest/globals';
import { decodeJwt } from 'jose';

import { PROTOCOL } from '../../lib/constants.ts';
import { MEMBER, STUDENT, obtainTokens, postForm } from '../support/flows.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

const SCOPE = 'openid profile email account:read';

/** Signatures made with WebCrypto (how jose signs ID tokens) while `work` runs. */
async function signaturesDuring<T>(work: () => Promise<T>): Promise<{ result: T; signatures: number }> {
  const sign = jest.spyOn(globalThis.crypto.subtle, 'sign');
  try {
    const result = await work();
    return { result, signatures: sign.mock.calls.length };
  } finally {
    sign.mockRestore();
  }
}

const refresh = (app: RunningApp, refreshToken: string) => postForm(`${app.baseUrl}/api/oauth/token`, {
  grant_type: 'refresh_token', refresh_token: refreshToken, client_id: MEMBER.clientId,
});

describe('with ID tokens on', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(() => app.stop());

  it('signs the code exchange\'s ID token, with the provider\'s lifetime, and none on refresh', async () => {
    const exchange = await signaturesDuring(() => obtainTokens(app.baseUrl, MEMBER, { scope: SCOPE, nonce: 'n-1' }, STUDENT));
    expect(exchange.signatures).toBe(1);
    const claims = decodeJwt(exchange.result.id_token!);
    expect(claims).toMatchObject({ aud: MEMBER.clientId, iss: app.baseUrl, nonce: 'n-1', sub: 'acc-student' });
    expect(claims.exp! - claims.iat!).toBe(PROTOCOL.idTokenLifetime);

    const refreshed = await signaturesDuring(async () => {
      const res = await refresh(app, exchange.result.refresh_token);
      return { status: res.status, body: await res.json() as Record<string, unknown> };
    });
    expect(refreshed.result.status).toBe(200);
    expect(refreshed.result.body.access_token).toEqual(expect.any(String));
    expect(refreshed.result.body).not.toHaveProperty('id_token');
    expect(refreshed.signatures).toBe(0);
  });
});

describe('with ID tokens off', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp({ auth: { idTokens: false } });
  });
  afterAll(() => app.stop());

  it('signs no ID token at the code exchange', async () => {
    const exchange = await signaturesDuring(() => obtainTokens(app.baseUrl, MEMBER, { scope: SCOPE }, STUDENT));
    expect(exchange.result).not.toHaveProperty('id_token');
    expect(exchange.result.access_token).toEqual(expect.any(String));
    expect(exchange.signatures).toBe(0);
  });
});
