/**
 * The plain words of the trace: every event has them, failures say what to do, and the
 * words are built from what the event carries (the registered redirect URIs, the scope, the
 * status), never showing "undefined".
 */
import { ACCOUNT_GONE_DESCRIPTION } from '../../lib/constants.ts';
import { EVENT_NAMES } from '../../lib/events/types.ts';
import type { AccessRefusalReason, MetadataDocumentFailure, PlatformAuthEvent, PlatformAuthEventMap } from '../../lib/events/types.ts';
import { explain, GRANT_DETAILS } from '../../lib/trace/explain.ts';

/** One event of each name, with every field set. */
const SAMPLES: { [N in keyof PlatformAuthEventMap]: PlatformAuthEventMap[N] } = {
  'signin.succeeded': { name: 'signin.succeeded', at: 1, clientId: 'c', accountId: 'a' },
  'signin.failed': { name: 'signin.failed', at: 1, clientId: 'c', reason: 'credentials' },
  'signin.throttled': { name: 'signin.throttled', at: 1, clientId: 'c', retryAfter: 8 },
  'consent.granted': { name: 'consent.granted', at: 1, clientId: 'c' },
  'consent.denied': { name: 'consent.denied', at: 1, clientId: 'c', reason: 'user' },
  'authorization.failed': { name: 'authorization.failed', at: 1, clientId: 'c', error: 'invalid_scope', description: 'requested scopes are not allowed' },
  'code.issued': { name: 'code.issued', at: 1, clientId: 'c' },
  'code.redeemed': { name: 'code.redeemed', at: 1, clientId: 'c' },
  'code.replayed': { name: 'code.replayed', at: 1, clientId: 'c' },
  'token.failed': { name: 'token.failed', at: 1, clientId: 'c', error: 'invalid_grant', description: 'grant request is invalid' },
  'refresh.rotated': { name: 'refresh.rotated', at: 1, clientId: 'c' },
  'refresh.grace_used': { name: 'refresh.grace_used', at: 1, clientId: 'c' },
  'refresh.reuse_detected': { name: 'refresh.reuse_detected', at: 1, clientId: 'c', reason: 'after_grace' },
  'token.revoked': { name: 'token.revoked', at: 1, clientId: 'c', tokenType: 'access_token' },
  'registration.accepted': { name: 'registration.accepted', at: 1, clientId: 'c' },
  'registration.refused': { name: 'registration.refused', at: 1, error: 'invalid_client_metadata', description: 'client_name is not a known vendor' },
  'metadata_document.fetched': { name: 'metadata_document.fetched', at: 1, clientId: 'https://a.example/c.json' },
  'metadata_document.failed': { name: 'metadata_document.failed', at: 1, clientId: 'https://a.example/c.json', reason: 'dns', description: 'x' },
  'access.refused': { name: 'access.refused', at: 1, clientId: 'c', endpoint: 'mcp', status: 401, reason: 'revoked', error: 'invalid_token', description: 'x' },
  'storage.unavailable': { name: 'storage.unavailable', at: 1 },
  'server.error': { name: 'server.error', at: 1, route: 'token', error: 'TypeError' },
};

it.each(EVENT_NAMES.map((name) => [name]))('explains %s in words, and failures with what to do', (name) => {
  const event = SAMPLES[name] as PlatformAuthEvent;
  const { outcome, summary, action } = explain(event);
  expect(summary).toMatch(/^[A-Za-z].{10,}[.)]$/s);
  expect(summary).not.toMatch(/undefined|\[object/);
  if (outcome !== 'ok') expect(action ?? summary).toBeTruthy();
  if (outcome === 'refused' && name !== 'signin.failed' && name !== 'consent.denied') expect(action).toMatch(/\w{3,}/);
});

it('names the redirect URI that was sent and the registered ones', () => {
  expect(explain({
    name: 'authorization.failed', at: 1, clientId: 'c', error: 'invalid_redirect_uri',
    description: 'redirect_uri did not match any of the client\'s registered redirect_uris',
    redirectUri: 'http://127.0.0.1:5000/cb', registeredRedirectUris: ['http://127.0.0.1/callback', 'https://app.example/cb'],
  })).toEqual({
    outcome: 'refused',
    summary: 'redirect_uri http://127.0.0.1:5000/cb is not registered for this app; registered: http://127.0.0.1/callback, https://app.example/cb.',
    action: expect.stringContaining('register this one for the app'),
  });
});

it.each<[AccessRefusalReason, RegExp]>([
  ['no_token', /came without an access token/],
  ['unknown', /does not know/],
  ['expired', /expired access token/],
  ['revoked', /was revoked/],
  ['other_audience', /issued for another resource \(another origin\)/],
  ['missing_scope', /needs the scope account:read, which the access token does not have/],
  ['client_deleted', /has been deleted/],
])('says why /mcp refused a token: %s', (reason, words) => {
  const { summary, action } = explain({
    name: 'access.refused', at: 1, clientId: 'c', endpoint: 'mcp', status: reason === 'missing_scope' ? 403 : 401,
    reason, error: 'invalid_token', description: 'x', scope: 'account:read',
  });
  expect(summary).toMatch(words);
  expect(summary).toContain('/mcp');
  expect(action).toBeTruthy();
});

it.each<[MetadataDocumentFailure, RegExp]>([
  ['host_not_allowed', /documents from tools\.example are not accepted here/],
  ['dns', /does not resolve/],
  ['refused_address', /private or special-use address/],
  ['timeout', /timed out/],
  ['size', /larger than 5 KB/],
  ['status', /answered HTTP 404 instead of 200/],
  ['invalid_content', /cannot be used: client_id mismatch/],
  ['network', /could not be fetched/],
])('says why a metadata document failed: %s', (reason, words) => {
  const { summary, action } = explain({
    name: 'metadata_document.failed', at: 1, clientId: 'https://tools.example/app.json', reason, status: 404, description: 'client_id mismatch',
  });
  expect(summary).toMatch(words);
  expect(action).toBeTruthy();
});

it('tells an account that no longer exists from a prompt=none that needed a page (both are login_required)', () => {
  const gone = explain({ name: 'authorization.failed', at: 1, error: 'login_required', description: ACCOUNT_GONE_DESCRIPTION });
  expect(gone.summary).toMatch(/^The account the person signed in with no longer exists/);
  expect(gone.summary).not.toMatch(/prompt=none/);
  const silent = explain({ name: 'authorization.failed', at: 1, error: 'login_required', description: 'End-User authentication is required' });
  expect(silent.summary).toMatch(/prompt=none/);
});

it('names what revokes a refresh token here, and not signing out (a session never ends tokens)', () => {
  const { summary } = explain({ name: 'token.failed', at: 1, error: 'invalid_grant', description: 'grant request is invalid', detail: 'refresh token not found' });
  expect(summary).not.toMatch(/sign[- ]?out|log[- ]?out/i);
  expect(summary).toMatch(/expired or was revoked \(a revocation request, reuse of a refresh token or code, the member disconnecting the app, the app being deleted\)/);
});

it('an expired code names the server\'s clocks too: skew between instances expires a code redeemed at once', () => {
  const { summary, action } = explain({ name: 'token.failed', at: 1, error: 'invalid_grant', description: 'grant request is invalid', detail: 'authorization code is expired' });
  expect(summary).toBe('The authorization code had expired before it was redeemed, or this server\'s instances disagree on the time.');
  expect(action).toBe('Redeem the code at the token endpoint as soon as the browser comes back with it; '
    + 'if the app already does, this server\'s instances disagree on the time (keep their clocks in sync with NTP).');
});

it('has words for each fixed reason oidc-provider gives for invalid_grant', () => {
  for (const detail of Object.keys(GRANT_DETAILS)) {
    const { summary, action } = explain({ name: 'token.failed', at: 1, error: 'invalid_grant', description: 'grant request is invalid', detail });
    expect(summary).toBe(GRANT_DETAILS[detail]!.summary);
    expect(action).toBeTruthy();
  }
});
