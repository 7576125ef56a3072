/**
 * Helpers for the Account API tests: member and operator tokens from a real code flow, and
 * a GraphQL call over real HTTP.
 */
import { demoClients } from '../../examples/host/seed.ts';
import type { StaticClient } from '../../lib/index.ts';
import type { SignInOptions } from '../support/browser.ts';
import { ADMIN, MEMBER, exchangeCode, obtainCode, obtainTokens, operator } from '../support/flows.ts';
import type { FlowClient } from '../support/flows.ts';
import type { RunningApp } from '../support/start-app.ts';

export const GRAPHQL_PATH = '/account/graphql';

/** A public member client of other-school (the demo seeds one for demo-school only). */
export const OTHER_SCHOOL_MEMBER: FlowClient = { clientId: 'other-school-member-app', redirectUri: 'http://127.0.0.1:8765/callback' };

/** The demo's clients plus a member client of other-school. */
export function clientsWithOtherSchool(): StaticClient[] {
  // the base URL only shapes the operator client's redirect, which these tests do not use
  return [...demoClients('http://127.0.0.1', 'unused-secret-0123456789012345678901'), {
    client_id: OTHER_SCHOOL_MEMBER.clientId,
    application_type: 'native',
    token_endpoint_auth_method: 'none',
    redirect_uris: ['http://127.0.0.1/callback'],
    scope: 'openid profile email account:read',
    audience: 'member',
    org_id: 'other-school',
  }];
}

export async function memberToken(app: RunningApp, user: SignInOptions, scope = 'openid email account:read', client: FlowClient = MEMBER): Promise<string> {
  const tokens = await obtainTokens(app.baseUrl, client, { scope, resource: app.baseUrl }, user);
  return tokens.access_token;
}

export async function operatorToken(app: RunningApp, scope = 'openid courses:read'): Promise<string> {
  const op = operator(app.baseUrl, app.operatorSecret);
  const { code, verifier } = await obtainCode(app.baseUrl, op, { scope }, ADMIN);
  const res = await exchangeCode(app.baseUrl, op, code, verifier);
  const body = await res.json();
  if (res.status !== 200) throw new Error(`operator token exchange failed: ${JSON.stringify(body)}`);
  return body.access_token;
}

export interface GraphQLAnswer {
  status: number;
  headers: Headers;
  body: any;
}

export interface PostInit {
  token?: string;
  authorization?: string;
  /** a ReadableStream is sent chunked, without Content-Length */
  body: string | ReadableStream<Uint8Array>;
  contentType?: string;
  method?: string;
  accept?: string;
}

export async function post(app: RunningApp, init: PostInit): Promise<GraphQLAnswer> {
  const headers: Record<string, string> = { 'content-type': init.contentType ?? 'application/json' };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.authorization) headers.authorization = init.authorization;
  if (init.accept) headers.accept = init.accept;
  const res = await fetch(`${app.baseUrl}${GRAPHQL_PATH}`, {
    method: init.method ?? 'POST', headers, body: init.body, duplex: 'half',
  } as RequestInit);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // left as text for the assertion to show
  }
  return { status: res.status, headers: res.headers, body };
}

export function graphql(app: RunningApp, token: string | undefined, query: string, variables?: Record<string, unknown>): Promise<GraphQLAnswer> {
  return post(app, { token, body: JSON.stringify({ query, variables }) });
}

export const VIEWER_QUERY = /* GraphQL */ `
  query Viewer($first: Int, $after: String) {
    viewer {
      id
      email
      enrolledCourses(first: $first, after: $after) {
        nodes { slug title enrolledAt expireDate hasLifetimeAccess lastWatchedLecture { lectureId positionSeconds } }
        pageInfo { hasNextPage endCursor }
        totalCount
      }
      orders { nodes { id number status createdAt total { amount currency } items { title kind quantity total { amount currency } } } pageInfo { hasNextPage endCursor } totalCount }
      eventRegistrations { nodes { id status registeredAt event { id title startsAt } } pageInfo { hasNextPage endCursor } totalCount }
    }
  }
`;
