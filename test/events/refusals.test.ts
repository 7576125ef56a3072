/**
 * `access.refused`: the reason and owner the bearer core noted, or what the error's class
 * says; where it happened; and an unknown token looked up among the revoked ones.
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';

import type { Context } from 'koa';

import { AuthenticationRequiredError, InsufficientScopeError, InvalidRequestError, InvalidTokenError } from '../../lib/errors.ts';
import { Diagnostics } from '../../lib/events/diagnostics.ts';
import { EventHub } from '../../lib/events/hub.ts';
import { noteRefusal, refusalOf, reportAccessRefused, resolveUnknownTokensWith, resourceEndpointOf } from '../../lib/events/refusals.ts';
import type { PlatformAuthEvent } from '../../lib/events/types.ts';

const silent = { info() {}, warn() {}, error() {} };

function setup() {
  const hub = new EventHub(silent);
  const seen: PlatformAuthEvent[] = [];
  hub.on('*', (e) => { seen.push(e); });
  const diagnostics = new Diagnostics({ enabled: true, hub, sinks: [], logger: silent });
  const context = (path: string, headers: Record<string, string> = {}, state: Record<string, unknown> = {}) => {
    const req = new IncomingMessage(new Socket());
    Object.assign(req.headers, headers);
    const res = new ServerResponse(req);
    diagnostics.bindRequest(req, res);
    return { req, res, path, state, get: (name: string) => req.headers[name.toLowerCase()] ?? '' } as unknown as Context;
  };
  return { diagnostics, seen, context };
}

it('reads the reason from the error\'s class when nothing was noted', () => {
  expect(refusalOf(new AuthenticationRequiredError('x'))).toEqual({ reason: 'no_token' });
  expect(refusalOf(new InvalidRequestError('two tokens'))).toEqual({ reason: 'malformed' });
  expect(refusalOf(new InsufficientScopeError('account:read'))).toEqual({ reason: 'missing_scope' });
  expect(refusalOf(new InvalidTokenError('x'))).toEqual({ reason: 'other' });
  const noted = noteRefusal(new InvalidTokenError('x'), { reason: 'other_audience', clientId: 'app' });
  expect(refusalOf(noted)).toEqual({ reason: 'other_audience', clientId: 'app' });
});

it('names where a request was refused', () => {
  expect(resourceEndpointOf('/mcp')).toBe('mcp');
  expect(resourceEndpointOf('/account/graphql')).toBe('account_api');
  expect(resourceEndpointOf('/api/oauth/userinfo')).toBe('userinfo');
  expect(resourceEndpointOf('/admin/courses')).toBe('host');
});

it('reports a noted refusal with its owner and the request id; nothing for other statuses', () => {
  const { seen, context } = setup();
  const ctx = context('/mcp', { 'x-request-id': 'req-1' });
  reportAccessRefused(ctx, noteRefusal(new InsufficientScopeError('account:read'), { reason: 'missing_scope', clientId: 'app', accountId: 'acc', site: 'school' }));
  reportAccessRefused(ctx, new InvalidRequestError('too large', { status: 413 }));
  expect(seen).toEqual([{
    name: 'access.refused', at: expect.any(Number), requestId: 'req-1', endpoint: 'mcp', status: 403, reason: 'missing_scope',
    error: 'insufficient_scope', description: 'the request requires the account:read scope', scope: 'account:read',
    clientId: 'app', accountId: 'acc', site: 'school',
  }]);
});

it('charges a refusal after the guard to the caller the guard identified', () => {
  const { seen, context } = setup();
  const ctx = context('/api/oauth/userinfo', {}, { auth: { clientId: 'app', sub: 'acc', site: 'school' } });
  reportAccessRefused(ctx, new InsufficientScopeError('openid'));
  expect(seen[0]).toMatchObject({ endpoint: 'userinfo', reason: 'missing_scope', clientId: 'app', accountId: 'acc', site: 'school' });
});

it('looks an unknown token up once more, after the answer: revoked, with its owner', async () => {
  const { diagnostics, seen, context } = setup();
  const asked: string[] = [];
  resolveUnknownTokensWith(diagnostics, async (token) => {
    asked.push(token);
    return token === 'revoked-one' ? { reason: 'revoked', clientId: 'app', accountId: 'acc' } : undefined;
  });
  reportAccessRefused(context('/mcp', { authorization: 'Bearer revoked-one' }), noteRefusal(new InvalidTokenError('x'), { reason: 'unknown' }));
  reportAccessRefused(context('/mcp', { authorization: 'Bearer never-issued' }), noteRefusal(new InvalidTokenError('x'), { reason: 'unknown' }));
  expect(seen).toEqual([]);
  await new Promise((resolve) => setImmediate(resolve));
  expect(asked).toEqual(['revoked-one', 'never-issued']);
  expect(seen.map((e) => [e.name, (e as { reason?: string }).reason, e.clientId])).toEqual([
    ['access.refused', 'revoked', 'app'],
    ['access.refused', 'unknown', undefined],
  ]);
});
