/**
 * The Account API: `POST /account/graphql`, the viewer with a page of 20 enrolments
 * (progress included), token check included. Ours checks a real member token (from a real
 * login flow, `account:read`, bound to the origin) against storage on every request, then
 * answers from the demo host's member data. The baselines answer without auth: graphql-yoga
 * in Koa with the same schema, resolvers and data (bench/servers/bare-yoga-koa.ts), and bare
 * Koa as the ceiling (its "hello" ignores the query).
 */
import { httpWorkload } from '../load/autocannon.ts';
import { bearerHeader, memberTokens } from '../lib/token-pool.ts';
import type { Scenario } from '../lib/types.ts';
import { bareYoga } from '../servers/bare-yoga-koa.ts';
import { koaHello } from '../servers/koa-hello.ts';
import { ours } from '../servers/ours.ts';

const QUERY = /* GraphQL */ `query Viewer {
  viewer {
    id
    enrolledCourses(first: 20) {
      nodes { slug title expireDate hasLifetimeAccess lastWatchedLecture { lectureId positionSeconds } }
      pageInfo { hasNextPage endCursor }
      totalCount
    }
  }
}`;

const BODY = JSON.stringify({ query: QUERY });

/** the seeded student has 27 enrolments at demo-school: a full page of 20 and more behind it */
function answered(body: string): boolean {
  return body.includes('"totalCount":27') && body.includes('"hasNextPage":true') && !body.includes('"errors"');
}

const scenario: Scenario = {
  id: 'account-graphql',
  title: '/account/graphql viewer with 20 enrolments',
  unit: 'req/s',
  order: 70,
  ours,
  baselines: [bareYoga, koaHello],
  // ours looks the token up in storage on every request
  usesStorage: true,
  targets: [{ kind: 'ratio', min: 1.5, against: bareYoga.id }],
  method: 'POST /account/graphql, JSON { viewer { id enrolledCourses(first: 20) { nodes { slug title expireDate '
    + 'hasLifetimeAccess lastWatchedLecture { … } } pageInfo { … } totalCount } } } for the seeded student (27 enrolments). '
    + 'Ours: Authorization: Bearer, 8 member access tokens (account:read) from real login flows, one per connection. '
    + 'graphql-yoga: same schema, resolvers and data, yoga\'s Koa integration, no auth. Koa: "hello", body unread. '
    + 'Errors: non-200, or a body without the 20-of-27 page or with "errors".',
  async prepare(server) {
    const isOurs = server.target.id === ours.id;
    const isKoa = server.target.id === koaHello.id;
    const tokens = isOurs ? await memberTokens(server, 8) : undefined;
    return httpWorkload({
      origin: server.origin,
      connection: (index) => [{
        method: 'POST',
        path: '/account/graphql',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...(tokens && bearerHeader(tokens, index)) },
        body: BODY,
        ...(!isKoa && { verify: answered }),
      }],
    });
  },
};

export default scenario;
