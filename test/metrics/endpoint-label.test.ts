/**
 * The `endpoint` attribute: one short name per endpoint of the table, the resume and
 * interaction paths included; nothing for the host's own paths or endpoints not served.
 */
import { ENDPOINTS } from '../../lib/endpoints.ts';
import { createEndpointLabeler, ENDPOINT_LABELS } from '../../lib/metrics/endpoint-label.ts';

it('labels every endpoint of the table', () => {
  const label = createEndpointLabeler();
  expect(label('/api/oauth/token')).toBe('token');
  expect(label('/.well-known/openid-configuration')).toBe('discovery');
  expect(label('/.well-known/oauth-authorization-server')).toBe('discovery');
  expect(label('/oauth/authorize/abc123')).toBe('authorization');
  expect(label('/oauth/interaction/abc123/login')).toBe('interaction');
  expect(label('/mcp')).toBe('mcp');
  expect(label('/account/graphql')).toBe('account_api');
  expect(Object.keys(ENDPOINT_LABELS).sort()).toEqual(Object.keys(ENDPOINTS).sort());
});

it('labels nothing else', () => {
  const label = createEndpointLabeler([ENDPOINTS.token, ENDPOINTS.mcp]);
  expect(label('/admin/courses')).toBeUndefined();
  expect(label('/account/graphql')).toBeUndefined();
  expect(label('/mcp')).toBe('mcp');
});
