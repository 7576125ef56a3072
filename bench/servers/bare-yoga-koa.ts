/**
 * The Account API baseline: graphql-yoga mounted in Koa the way graphql-yoga's own Koa
 * integration does it (`yoga.handleNodeRequestAndResponse(ctx.request, ctx.res, ctx)`, then
 * status, headers and body copied onto `ctx`), answering the Account API's schema without
 * auth.
 *
 * Same schema, same resolvers, same data as ours: the SDL and resolvers of lib/account-api
 * over the member-data service (lib/member-data) and the demo host's seeded data
 * (examples/host/member-data.ts). Every request is answered for Sam Student (`acc-student`)
 * at `demo-school`, the member whose token ours checks, with a fresh `MemberAccount` per
 * request as ours builds one. What is left out on purpose, because it is what ours adds or
 * replaces: the bearer-token check, our HTTP edge (ours skips yoga's fetch Request/Response
 * conversion), the query-limit rules, the read-only operation check and error masking
 * beyond yoga's default. Everything else is yoga's defaults (its parse/validate cache
 * included), with the endpoint moved to `/account/graphql` so every server of the scenario
 * gets the same request.
 *
 * @module
 */
import { createSchema, createYoga } from 'graphql-yoga';
import Koa from 'koa';

import { createDemoMemberData } from '../../examples/host/member-data.ts';
import { resolvers } from '../../lib/account-api/resolvers.ts';
import type { AccountApiContext } from '../../lib/account-api/resolvers.ts';
import { ACCOUNT_API_PATH } from '../../lib/account-api/router.ts';
import { typeDefs } from '../../lib/account-api/schema.ts';
import { createMemberDataService } from '../../lib/member-data/service.ts';
import type { MemberIdentity } from '../../lib/member-data/service.ts';
import type { BuildServer, ServerTarget } from '../lib/types.ts';

export const bareYoga: ServerTarget = {
  id: 'graphql-yoga',
  label: 'graphql-yoga in Koa (no auth)',
  module: import.meta.url,
  export: 'buildBareYoga',
};

/** The member ours' tokens speak for (the demo member client's site, the signed-in student). */
export const BENCH_MEMBER: MemberIdentity = Object.freeze({ sub: 'acc-student', site: 'demo-school', audience: 'member' });

/** The scopes of ours' bench tokens (bench/load/login-flow.ts): the identity fields follow them. */
const BENCH_SCOPES: ReadonlySet<string> = new Set(['openid', 'profile', 'email', 'account:read']);

export const buildBareYoga: BuildServer = async () => {
  const service = createMemberDataService(createDemoMemberData());
  const yoga = createYoga<Koa.ParameterizedContext, AccountApiContext>({
    schema: createSchema<Koa.ParameterizedContext & AccountApiContext>({ typeDefs, resolvers }),
    graphqlEndpoint: ACCOUNT_API_PATH,
    // no auth: every request is the bench member's, as ours answers for the token's member
    context: () => ({ account: service.forMember(BENCH_MEMBER), scopes: BENCH_SCOPES }),
    // the child's stdout is dropped anyway; keep yoga from formatting log lines for nothing
    logging: false,
  });

  const app = new Koa();
  // graphql-yoga's Koa integration, as its documentation gives it
  app.use(async function graphql(ctx) {
    const response = await yoga.handleNodeRequestAndResponse(ctx.request, ctx.res, ctx);
    ctx.status = response.status;
    response.headers.forEach((value, key) => {
      ctx.append(key, value);
    });
    ctx.body = response.body;
  });
  return { listener: app.callback(), close: async () => {} };
};
