/**
 * The full authorization-code flow over HTTP, as a client and a user agent drive it:
 * authorize → sign-in form → consent form → callback → token (PKCE S256, ES256 id_token).
 * Forms are found in the page and submitted with their hidden fields (CSRF included), so
 * the same client drives ours and the baseline's minimal pages.
 *
 * @module
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Agent } from 'node:http';

import { percentile } from '../lib/stats.ts';
import type { LoadResult, RunOptions, Workload } from '../lib/types.ts';
import { CookieJar, createAgent, send } from './http-client.ts';
import type { HttpResponse } from './http-client.ts';

export interface FlowOptions {
  readonly origin: string;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly scope: string;
  /** sent at authorize and token; unset: the provider's default */
  readonly resource?: string;
  readonly email: string;
  readonly password: string;
}

export interface TokenResponse {
  readonly access_token: string;
  readonly refresh_token?: string;
  readonly id_token?: string;
}

/**
 * The demo member client and student, as every OAuth scenario signs in. `resourceBound`
 * sends `resource=<origin>` at authorize and token (as MCP clients do).
 */
export function memberFlow(origin: string, resourceBound = true): FlowOptions {
  return {
    origin,
    clientId: 'demo-member-app',
    redirectUri: 'http://127.0.0.1:8765/callback',
    scope: 'openid profile email account:read',
    resource: resourceBound ? origin : undefined,
    email: 'student@example.com',
    password: 'student',
  };
}

const MAX_STEPS = 12;
const FORM = /<form[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/g;
const HIDDEN = /<input type="hidden" name="([^"]+)" value="([^"]*)">/g;
const decode = (s: string) => s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
const FORM_TYPE = { 'content-type': 'application/x-www-form-urlencoded' };

function findForm(html: string, actionSuffix: string): { action: string; fields: Record<string, string> } | undefined {
  for (const match of html.matchAll(FORM)) {
    const action = decode(match[1]!);
    if (!action.endsWith(actionSuffix)) continue;
    const fields: Record<string, string> = {};
    for (const input of match[2]!.matchAll(HIDDEN)) fields[decode(input[1]!)] = decode(input[2]!);
    return { action, fields };
  }
  return undefined;
}

class FlowError extends Error {}

function unexpected(step: string, response: HttpResponse): FlowError {
  return new FlowError(`${step}: HTTP ${response.status} ${response.body.slice(0, 300)}`);
}

/** One complete flow with a fresh cookie jar (a new user agent); returns the token response. */
export async function runLoginFlow(agent: Agent, options: FlowOptions): Promise<TokenResponse> {
  const jar = new CookieJar();
  const get = async (url: URL) => {
    const cookie = jar.header(url.pathname);
    const response = await send(agent, 'GET', url, cookie ? { cookie } : {});
    jar.store(response.headers['set-cookie'], url.pathname);
    return response;
  };
  const post = async (url: URL, fields: Record<string, string>) => {
    const cookie = jar.header(url.pathname);
    const response = await send(agent, 'POST', url, cookie ? { ...FORM_TYPE, cookie } : FORM_TYPE, new URLSearchParams(fields).toString());
    jar.store(response.headers['set-cookie'], url.pathname);
    return response;
  };

  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(12).toString('base64url');
  const authorize = new URL('/oauth/authorize', options.origin);
  for (const [k, v] of Object.entries({
    response_type: 'code', client_id: options.clientId, redirect_uri: options.redirectUri, scope: options.scope,
    state, nonce: randomBytes(12).toString('base64url'), resource: options.resource,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256',
  })) if (v !== undefined) authorize.searchParams.set(k, v);

  let url = authorize;
  let response = await get(url);
  let callback: URL | undefined;
  for (let step = 0; !callback; step += 1) {
    if (step > MAX_STEPS) throw new FlowError('too many steps');
    if (response.status >= 300 && response.status < 400) {
      const next = new URL(response.headers.location!, url);
      if (next.href.startsWith(options.redirectUri)) callback = next;
      else response = await get((url = next));
    } else if (response.status === 200 && response.body.includes('name="password"')) {
      const form = findForm(response.body, '/login');
      if (!form) throw unexpected('sign-in page without a /login form', response);
      response = await post((url = new URL(form.action, url)), { ...form.fields, email: options.email, password: options.password });
    } else if (response.status === 200) {
      const form = findForm(response.body, '/confirm');
      if (!form) throw unexpected('page without a sign-in or consent form', response);
      response = await post((url = new URL(form.action, url)), form.fields);
    } else {
      throw unexpected(url.pathname, response);
    }
  }

  const code = callback.searchParams.get('code');
  if (!code || callback.searchParams.get('state') !== state) {
    throw new FlowError(`callback without code or with the wrong state: ${callback.search}`);
  }
  const token = await send(agent, 'POST', new URL('/api/oauth/token', options.origin), FORM_TYPE, new URLSearchParams({
    grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: options.redirectUri,
    client_id: options.clientId, ...(options.resource ? { resource: options.resource } : {}),
  }).toString());
  if (token.status !== 200) throw unexpected('token', token);
  const tokens = JSON.parse(token.body) as TokenResponse;
  if (options.scope.split(' ').includes('openid')) assertEs256(tokens.id_token);
  return tokens;
}

function assertEs256(idToken: string | undefined): void {
  const header = idToken ? JSON.parse(Buffer.from(idToken.split('.')[0]!, 'base64url').toString()) as { alg?: string } : undefined;
  if (header?.alg !== 'ES256') throw new FlowError(`expected an ES256 id_token, got ${idToken ? header?.alg : 'none'}`);
}

/** Runs `count` flows, `concurrency` at a time, and returns their tokens (preparation). */
export async function obtainTokens(options: FlowOptions, count: number, concurrency = 4): Promise<TokenResponse[]> {
  const agent = createAgent(concurrency);
  const tokens: TokenResponse[] = [];
  let started = 0;
  async function worker() {
    while (started < count) {
      started += 1;
      tokens.push(await runLoginFlow(agent, options));
    }
  }
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  } finally {
    agent.destroy();
  }
  return tokens;
}

/** Login flows as a workload: virtual users each run flows back to back for the duration. */
export function loginFlowWorkload(options: FlowOptions): Workload {
  return {
    async run({ durationS, connections }: RunOptions): Promise<LoadResult> {
      const agent = createAgent(connections);
      const latencies: number[] = [];
      const failures: Record<string, number> = {};
      let errors = 0;
      const start = performance.now();
      const deadline = start + durationS * 1000;
      async function user() {
        while (performance.now() < deadline) {
          const began = performance.now();
          try {
            await runLoginFlow(agent, options);
            latencies.push(performance.now() - began);
          } catch (error) {
            errors += 1;
            const key = error instanceof FlowError ? error.message.slice(0, 60) : 'connection error';
            failures[key] = (failures[key] ?? 0) + 1;
          }
        }
      }
      await Promise.all(Array.from({ length: connections }, user));
      const elapsedS = (performance.now() - start) / 1000;
      agent.destroy();
      return {
        completed: latencies.length,
        errors,
        durationS: elapsedS,
        throughput: latencies.length / elapsedS,
        latencyP50Ms: percentile(latencies, 50),
        latencyP99Ms: percentile(latencies, 99),
        statuses: { ok: latencies.length, ...failures },
      };
    },
  };
}
