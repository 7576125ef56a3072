/**
 * `POST /account/graphql` as Koa middleware: a pipeline of named steps, each of which either
 * answers or hands on. Auth comes first, so nothing about the body is looked at for a caller
 * without a member token holding `account:read`.
 *
 * @module
 */
import type { Context, Middleware, Next } from 'koa';
import { renderGraphiQL } from 'graphql-yoga';

import type { AccountStore, Logger } from '../contracts.ts';
import { InvalidTokenError } from '../errors.ts';
import { requestIdOf } from '../http/request-id.ts';
import { noteRefusal } from '../events/refusals.ts';
import { DEVELOPMENT_TOOL_HEADERS } from '../pages/headers.ts';
import { createMemberDataService } from '../member-data/service.ts';
import type { MemberDataSource } from '../contracts.ts';
import type { BearerAuth, BearerVerifier, VerifyOptions } from '../resource/bearer.ts';
import { accountGone } from '../resource/account-gone.ts';
import { writeBearerError } from '../resource/challenge.ts';
import { createBearerAuthenticator } from '../resource/require-bearer.ts';
import { createAccountApiEngine } from './engine.ts';
import { ENDPOINTS } from '../endpoints.ts';
import { RequestProblem } from './errors.ts';
import { checkContentType, parseParams, readBody } from './http.ts';
import type { ResolvedAccountApiOptions } from './options.ts';

/** The path of the Account API, from the endpoint table. */
export const ACCOUNT_API_PATH = ENDPOINTS.accountApi.path;

/** Member tokens only, with `account:read`: an operator token gets 403 insufficient_scope. */
export const ACCOUNT_API_ACCESS: VerifyOptions = Object.freeze<VerifyOptions>({ scopes: ['account:read'], audiences: ['member'] });

export interface AccountApiDeps {
  readonly bearer: BearerVerifier;
  /** the host's accounts: a token whose account is gone is refused, as UserInfo refuses it */
  readonly accounts: Pick<AccountStore, 'findById'>;
  /** the RFC 9728 metadata URL for `WWW-Authenticate` challenges */
  readonly resourceMetadata: string;
  readonly dataSource: MemberDataSource;
  readonly options: ResolvedAccountApiOptions;
  readonly production: boolean;
  readonly logger: Logger;
}

function writeProblem(ctx: Context, problem: RequestProblem): void {
  ctx.status = problem.status;
  for (const [name, value] of Object.entries(problem.headers)) ctx.set(name, value);
  ctx.body = problem.toBody();
}

export function createAccountApi(deps: AccountApiDeps): Middleware {
  const { options } = deps;
  const service = createMemberDataService(deps.dataSource, { maxPageSize: options.maxPageSize });
  const engine = createAccountApiEngine(options, deps.logger);
  const graphiql = options.graphiql
    ? renderGraphiQL({
      title: 'Account API',
      endpoint: ACCOUNT_API_PATH,
      method: 'POST',
      headers: JSON.stringify({ Authorization: 'Bearer <member access token with account:read>' }),
      defaultQuery: '{\n  viewer {\n    id\n    email\n    enrolledCourses(first: 5) {\n      nodes { slug title expireDate hasLifetimeAccess lastWatchedLecture { lectureId positionSeconds } }\n      pageInfo { hasNextPage endCursor }\n      totalCount\n    }\n  }\n}\n',
    })
    : undefined;

  // the interface's rule here: a request without a token is `invalid_token` too (spec §5, §7)
  const authenticateBearer = createBearerAuthenticator(deps.bearer, deps.resourceMetadata, { missingToken: 'invalid_token' });

  async function authenticate(ctx: Context): Promise<BearerAuth | undefined> {
    const identity = await authenticateBearer(ctx, ACCOUNT_API_ACCESS);
    if (!identity) return undefined;
    // member tokens always carry their client's site; one without is not ours to answer
    if (!identity.caller?.site) {
      writeBearerError(ctx, noteRefusal(new InvalidTokenError('the access token names no site'), { reason: 'no_site', clientId: identity.caller?.clientId, accountId: identity.caller?.sub }), deps.resourceMetadata);
      return undefined;
    }
    // a deleted or deactivated account: its data source may still hold its orders and
    // enrolments, which its tokens must not read for the rest of their lifetime
    if (!await deps.accounts.findById(identity.caller.sub)) {
      writeBearerError(ctx, accountGone({ clientId: identity.caller.clientId, accountId: identity.caller.sub }), deps.resourceMetadata);
      return undefined;
    }
    return identity.caller;
  }

  return async function accountApi(ctx: Context, next: Next) {
    if (ctx.path !== ACCOUNT_API_PATH) return next();
    // personal data: never stored by a cache
    ctx.set('Cache-Control', 'no-store');
    if (ctx.method !== 'POST') {
      if (graphiql && ctx.method === 'GET' && ctx.accepts('json', 'html') === 'html') {
        ctx.set(DEVELOPMENT_TOOL_HEADERS);
        ctx.type = 'html';
        ctx.body = graphiql;
        return;
      }
      ctx.set('Allow', 'POST');
      writeProblem(ctx, new RequestProblem(405, 'METHOD_NOT_ALLOWED', `Use POST ${ACCOUNT_API_PATH} with a JSON body {"query": "…"}.`));
      return;
    }

    const auth = await authenticate(ctx);
    if (!auth) return;

    try {
      checkContentType(ctx.get('content-type') || undefined);
      const params = parseParams(await readBody(ctx.req, options.maxBodyBytes));
      const { status, headers, body } = await engine.run(params, { account: service.forMember(auth), scopes: auth.scopes }, requestIdOf(ctx));
      ctx.status = status;
      if (headers) ctx.set(headers);
      ctx.type = 'application/json';
      ctx.body = JSON.stringify(body);
    } catch (error) {
      if (error instanceof RequestProblem) {
        writeProblem(ctx, error);
        return;
      }
      throw error;
    }
  };
}
