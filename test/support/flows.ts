/**
 * The authorization-code flow over raw HTTP, for tests that need to send what a
 * well-behaved client library would refuse to send.
 */
import { Browser, signIn } from './browser.ts';
import type { SignInOptions } from './browser.ts';
import { pkcePair, randomState } from './pkce.ts';

export const MEMBER = { clientId: 'demo-member-app', redirectUri: 'http://127.0.0.1:8765/callback' } as const;
export const STUDENT = { email: 'student@example.com', password: 'student' } as const;
export const ADMIN = { email: 'admin@example.com', password: 'admin' } as const;
export const OUTSIDER = { email: 'outsider@example.com', password: 'outsider' } as const;

export function operator(baseUrl: string, secret: string) {
  return { clientId: 'demo-operator-app', redirectUri: `${baseUrl}/demo/callback`, clientSecret: secret };
}

export interface FlowClient {
  clientId: string;
  redirectUri: string;
  clientSecret?: string;
}

export interface AuthorizeParams {
  scope: string;
  resource?: string;
  nonce?: string;
  extra?: Record<string, string>;
}

export function postForm(url: string, fields: Record<string, string | undefined>, headers: Record<string, string> = {}) {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) body.append(k, v);
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body,
  });
}

export function buildAuthorizeUrl(baseUrl: string, client: FlowClient, params: AuthorizeParams & { challenge?: string; state?: string }) {
  const url = new URL('/oauth/authorize', baseUrl);
  const q: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    scope: params.scope,
    state: params.state,
    nonce: params.nonce,
    resource: params.resource,
    code_challenge: params.challenge,
    code_challenge_method: params.challenge ? 'S256' : undefined,
    ...params.extra,
  };
  for (const [k, v] of Object.entries(q)) if (v !== undefined) url.searchParams.set(k, v);
  return url.href;
}

export interface CodeResult {
  code: string;
  verifier: string;
  state: string;
  callback: URL;
}

/** Signs in through the real pages and returns the code from the redirect. */
export async function obtainCode(baseUrl: string, client: FlowClient, params: AuthorizeParams, user: SignInOptions, browser = new Browser(baseUrl)): Promise<CodeResult> {
  const { verifier, challenge } = pkcePair();
  const state = randomState();
  const redirect = await signIn(browser, buildAuthorizeUrl(baseUrl, client, { ...params, challenge, state }), user);
  const callback = new URL(redirect);
  const code = callback.searchParams.get('code');
  if (!code) throw new Error(`no code in ${redirect}`);
  return { code, verifier, state, callback };
}

export function exchangeCode(baseUrl: string, client: FlowClient, code: string, verifier: string, resource?: string) {
  return postForm(`${baseUrl}/api/oauth/token`, {
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    redirect_uri: client.redirectUri,
    client_id: client.clientId,
    client_secret: client.clientSecret,
    resource,
  });
}

export interface TokenSet {
  access_token: string;
  refresh_token: string;
  id_token?: string;
  scope: string;
  token_type: string;
  expires_in: number;
}

/** Code flow end to end; returns the token response. */
export async function obtainTokens(baseUrl: string, client: FlowClient, params: AuthorizeParams, user: SignInOptions): Promise<TokenSet> {
  const { code, verifier } = await obtainCode(baseUrl, client, params, user);
  const response = await exchangeCode(baseUrl, client, code, verifier, params.resource);
  const body = await response.json();
  if (response.status !== 200) throw new Error(`token exchange failed: ${JSON.stringify(body)}`);
  return body as TokenSet;
}
