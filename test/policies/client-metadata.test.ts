/**
 * lib/policies/client-metadata.ts without HTTP: the audience and redirect rules for
 * configured clients, RFC 7591 registrations and client ID metadata documents, as
 * oidc-provider's `extraClientMetadata.validator` runs them.
 */
import { errors } from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';

import { LOOPBACK_HOSTS } from '../../lib/constants.ts';
import {
  EXTRA_CLIENT_METADATA, applicationTypeFor, isAcceptableRedirect, isAcceptableRedirectTarget, isMetadataDocumentId,
  registrationRefusalCode, validateClientMetadata,
} from '../../lib/policies/client-metadata.ts';
import type { ProviderAnswer } from '../../lib/policies/provider-answer.ts';
import { scopesForAudience } from '../../lib/scopes/catalogue.ts';

type Metadata = Record<string, unknown>;

const OPERATOR_SCOPES = scopesForAudience('operator').join(' ');
const DOC = 'https://tools.example/oauth/client.json';

const registration = { oidc: { route: 'registration' } } as unknown as KoaContextWithOIDC;
const authorization = { oidc: { route: 'authorization' } } as unknown as KoaContextWithOIDC;

/** Runs the validator as oidc-provider does: once per extra property, on the whole metadata. */
function validate(ctx: KoaContextWithOIDC | undefined, metadata: Metadata): Metadata {
  for (const key of EXTRA_CLIENT_METADATA) validateClientMetadata(ctx, key, metadata[key], metadata);
  return metadata;
}

function refusal(ctx: KoaContextWithOIDC | undefined, metadata: Metadata): errors.OIDCProviderError {
  try {
    validate(ctx, metadata);
  } catch (err) {
    expect(err).toBeInstanceOf(errors.OIDCProviderError);
    return err as errors.OIDCProviderError;
  }
  throw new Error(`expected ${JSON.stringify(metadata)} to be refused`);
}

describe('isMetadataDocumentId', () => {
  it('is an https URL only', () => {
    expect(isMetadataDocumentId(DOC)).toBe(true);
    expect(isMetadataDocumentId('HTTPS://tools.example/c')).toBe(true);
    expect(isMetadataDocumentId('http://tools.example/c')).toBe(false);
    expect(isMetadataDocumentId('my-client')).toBe(false);
    expect(isMetadataDocumentId(undefined)).toBe(false);
  });
});

describe('configured clients', () => {
  it('default to the operator audience', () => {
    expect(validate(undefined, { client_id: 'app' }).audience).toBe('operator');
  });

  it.each(['member', 'operator'])('keep audience %s and any org_id', (audience) => {
    expect(validate(undefined, { client_id: 'app', audience, org_id: 'site-a' })).toMatchObject({ audience, org_id: 'site-a' });
  });

  it('are configured when loaded outside registration, whatever the route', () => {
    expect(validate(authorization, { client_id: 'app', audience: 'member', org_id: 'site-a' }).audience).toBe('member');
  });

  it.each(['admin', '', 'Member', 1, null])('refuse the audience %j', (audience) => {
    const err = refusal(undefined, { client_id: 'app', audience });
    expect(err).toBeInstanceOf(errors.InvalidClientMetadata);
    expect(err).toMatchObject({ error: 'invalid_client_metadata', error_description: 'audience must be "member" or "operator"' });
  });

  it('keep their scope and redirect URIs as written', () => {
    const metadata = validate(undefined, { client_id: 'app', scope: 'openid', redirect_uris: ['http://127.0.0.1/cb', 'http://app.example/cb'] });
    expect(metadata.scope).toBe('openid');
    expect(metadata).not.toHaveProperty('application_type');
  });
});

describe('org_id', () => {
  it.each(['', 42, null, true])('must be a non-empty string, not %j', (orgId) => {
    const err = refusal(undefined, { client_id: 'app', audience: 'member', org_id: orgId });
    expect(err).toBeInstanceOf(errors.InvalidClientMetadata);
    expect(err.error_description).toBe('org_id must be a non-empty string');
  });

  it('may be absent', () => {
    expect(() => validateClientMetadata(undefined, 'org_id', undefined, { client_id: 'app' })).not.toThrow();
  });
});

describe('registration', () => {
  const PUBLIC = { client_id: 'generated', token_endpoint_auth_method: 'none', redirect_uris: ['https://app.example/cb'] };

  it('creates an operator client with every operator scope, whatever scope it asked for', () => {
    const metadata = validate(registration, { ...PUBLIC, scope: 'openid' });
    expect(metadata.audience).toBe('operator');
    expect(metadata.scope).toBe(OPERATOR_SCOPES);
    expect(validate(registration, { ...PUBLIC }).scope).toBe(OPERATOR_SCOPES);
  });

  it('accepts audience "operator" explicitly', () => {
    expect(validate(registration, { ...PUBLIC, audience: 'operator' }).audience).toBe('operator');
  });

  it.each(['member', 'admin'])('refuses audience %s', (audience) => {
    const err = refusal(registration, { ...PUBLIC, audience });
    expect(err).toBeInstanceOf(errors.InvalidClientMetadata);
    expect(err.error).toBe('invalid_client_metadata');
    expect(err.error_description).toMatch(/registration creates operator clients only/);
  });

  it('refuses an org_id', () => {
    const err = refusal(registration, { ...PUBLIC, org_id: 'site-a' });
    expect(err).toBeInstanceOf(errors.InvalidClientMetadata);
    expect(err.error_description).toMatch(/^org_id cannot be set: registration/);
  });

  it.each(['account:read', 'openid account:write', 'openid nope:nope'])('refuses the scope %s', (scope) => {
    const err = refusal(registration, { ...PUBLIC, scope });
    expect(err).toBeInstanceOf(errors.InvalidClientMetadata);
    expect(err.error_description).toMatch(/is not available to registered clients/);
  });

  it('refuses an http redirect to a non-loopback host as invalid_redirect_uri, saying why', () => {
    const err = refusal(registration, { ...PUBLIC, redirect_uris: ['https://app.example/cb', 'http://app.example/cb'] });
    expect(err.error).toBe('invalid_redirect_uri');
    expect(err.error_description).toMatch(/must use https, or http on a loopback address/);
  });

  // the URL parser drops tabs and line breaks, reads a backslash as a slash and skips an empty
  // authority, so these parse (to another URI), while their raw strings would be stored
  it.each([
    'http://127.0.0.1/cb\nFORGED', 'https://app.example/c\tb', 'https://app.example/cb\r\n', 'http://127.0.0.1/cb\u2028x', 'https://app.example/cb\u0085', 'https://app.example/a b',
    'https://trusted.example\\@evil.example/cb', 'https://trusted.example\\cb', 'https:///trusted.example/cb', 'http:///127.0.0.1/cb',
  ])(
    'refuses the redirect %j (not a URI as RFC 3986 writes it)', (uri) => {
      const err = refusal(registration, { ...PUBLIC, redirect_uris: [uri] });
      expect(err.error).toBe('invalid_redirect_uri');
      expect(err.error_description).toMatch(/must be URIs as RFC 3986 writes them: no whitespace, control characters or backslashes, and a host after "\/\/"/);
    },
  );

  it.each(['https://trusted.example@app.example/cb', 'http://user:pw@127.0.0.1/cb'])('refuses the redirect %s (a user or password)', (uri) => {
    const err = refusal(registration, { ...PUBLIC, redirect_uris: [uri] });
    expect(err.error).toBe('invalid_redirect_uri');
    expect(err.error_description).toMatch(/must not name a user or password/);
  });

  it.each(['Desk\u0000Agent', 'Desk Agent\u202Etxt.exe', 'Desk\u2066Agent\u2069', 'Desk\u061CAgent'])('refuses the client_name %j (control or text-direction characters)', (name) => {
    expect(refusal(registration, { ...PUBLIC, client_name: name }).error_description).toMatch(/client_name must not contain control or text-direction characters/);
  });

  it.each(['com.example.app:/cb', 'not a url', 'http://127.0.0.2/cb', 'ftp://app.example/cb'])('refuses the redirect %s', (uri) => {
    expect(refusal(registration, { ...PUBLIC, redirect_uris: [uri] }).error).toBe('invalid_redirect_uri');
  });

  it('accepts https redirects anywhere, as a web client', () => {
    const metadata = validate(registration, { ...PUBLIC, redirect_uris: ['https://app.example/cb', 'https://127.0.0.1/cb'] });
    expect(metadata).not.toHaveProperty('application_type');
  });

  it.each(['http://127.0.0.1:8123/cb', 'http://[::1]/cb', 'http://localhost:1/cb'])('makes a client with the loopback redirect %s native', (uri) => {
    const metadata = validate(registration, { ...PUBLIC, redirect_uris: ['https://app.example/cb', uri] });
    expect(metadata.application_type).toBe('native');
  });

  it('checks audience before redirects', () => {
    expect(refusal(registration, { ...PUBLIC, audience: 'member', redirect_uris: ['http://app.example/cb'] }))
      .toBeInstanceOf(errors.InvalidClientMetadata);
  });
});

describe('metadata documents', () => {
  const document = (more: Metadata = {}) => ({ client_id: DOC, token_endpoint_auth_method: 'none', ...more });

  it('describe operator clients and keep their own scope', () => {
    const metadata = validate(undefined, document({ scope: 'openid courses:read', redirect_uris: ['https://tools.example/cb'] }));
    expect(metadata.audience).toBe('operator');
    expect(metadata.scope).toBe('openid courses:read');
    expect(metadata).not.toHaveProperty('application_type');
  });

  it('refuse a redirect URI holding a line break', () => {
    expect(refusal(undefined, document({ redirect_uris: ['https://tools.example/cb\nx'] })).error).toBe('invalid_redirect_uri');
  });

  it('refuse audience "member" and an org_id', () => {
    expect(refusal(undefined, document({ audience: 'member' })).error_description).toMatch(/a client ID metadata document describes an operator client/);
    expect(refusal(undefined, document({ org_id: 'site-a' })).error_description).toMatch(/^org_id cannot be set: a client ID metadata document/);
  });

  it.each([
    'https://tools.example/cb',
    'https://tools.example:8443/cb',
    'http://127.0.0.1:5000/cb',
    'http://localhost/cb',
  ])('accept the redirect %s', (uri) => {
    expect(() => validate(undefined, document({ redirect_uris: [uri] }))).not.toThrow();
  });

  it.each([
    ['another host', 'https://evil.example/cb'],
    ['a subdomain of the document host', 'https://app.tools.example/cb'],
    ['http on the document host', 'http://tools.example/cb'],
    ['https on a loopback host other than the document host', 'https://127.0.0.1/cb'],
    ['a custom scheme', 'com.example.app:/cb'],
    ['a malformed URI', 'https://tools.example:99999/cb'],
  ])('refuse a redirect to %s with InvalidClientMetadata', (_label, uri) => {
    const err = refusal(undefined, document({ redirect_uris: ['https://tools.example/cb', uri] }));
    expect(err).toBeInstanceOf(errors.InvalidClientMetadata);
    expect(err).not.toBeInstanceOf(errors.InvalidRedirectUri);
    expect(err.error_description).toMatch(/must be on its own host \(tools\.example\) or a loopback address/);
  });

  it('become native with a loopback redirect', () => {
    expect(validate(undefined, document({ redirect_uris: ['http://127.0.0.1/cb'] })).application_type).toBe('native');
  });

  it('are judged by the registration rules when registered through the registration endpoint', () => {
    const metadata = validate(registration, document({ redirect_uris: ['https://elsewhere.example/cb'] }));
    expect(metadata.scope).toBe(OPERATOR_SCOPES);
  });
});

describe('the redirect rule (member and registered clients)', () => {
  const PUBLIC = { client_id: 'generated', token_endpoint_auth_method: 'none' };
  const ACCEPTED = [
    'https://app.example/cb', 'https://app.example:8443/cb?x=1', 'https://127.0.0.1/cb',
    'http://127.0.0.1/cb', 'http://127.0.0.1:8123/cb', 'http://[::1]/cb', 'http://localhost:1/cb',
  ];
  const REFUSED = ['http://app.example/cb', 'http://127.0.0.2/cb', 'com.example.app:/cb', 'ftp://app.example/cb', 'not a url', ''];

  it.each(ACCEPTED)('isAcceptableRedirectTarget and isAcceptableRedirect accept %s', (uri) => {
    expect(isAcceptableRedirectTarget(uri)).toBe(true);
    expect(isAcceptableRedirect(uri)).toBe(true);
  });

  it.each(REFUSED)('isAcceptableRedirectTarget and isAcceptableRedirect refuse %j', (uri) => {
    expect(isAcceptableRedirectTarget(uri)).toBe(false);
    expect(isAcceptableRedirect(uri)).toBe(false);
  });

  it.each(['https://app.example/cb#x', 'http://127.0.0.1:8123/cb#top'])('isAcceptableRedirect refuses the fragment of %s; the target alone is fine', (uri) => {
    expect(isAcceptableRedirectTarget(uri)).toBe(true);
    expect(isAcceptableRedirect(uri)).toBe(false);
  });

  it.each([undefined, null, 42, ['https://app.example/cb'], { href: 'https://app.example/cb' }])('isAcceptableRedirect refuses the non-string %j', (uri) => {
    expect(isAcceptableRedirect(uri)).toBe(false);
  });

  it('applicationTypeFor: native with any loopback redirect, else web', () => {
    expect(applicationTypeFor([])).toBe('web');
    expect(applicationTypeFor(['https://app.example/cb', 'https://127.0.0.1/cb'])).toBe('web');
    expect(applicationTypeFor(['http://app.example/cb'])).toBe('web');
    for (const host of LOOPBACK_HOSTS) {
      expect(applicationTypeFor(['https://app.example/cb', `http://${host}:8123/cb`])).toBe('native');
    }
  });

  it('the registration refusal names every loopback host', () => {
    const err = refusal(registration, { ...PUBLIC, redirect_uris: ['http://app.example/cb'] });
    for (const host of LOOPBACK_HOSTS) expect(err.error_description).toContain(host);
  });

  it('leaves a fragment in a registered redirect to oidc-provider, which refuses it after the validator', () => {
    expect(() => validate(registration, { ...PUBLIC, redirect_uris: ['https://app.example/cb#x'] })).not.toThrow();
  });
});

describe('registrationRefusalCode', () => {
  const answer = (route: string | undefined, status: number, error: string): ProviderAnswer => ({
    route, grantType: undefined, status, body: { error, error_description: 'x' },
  });

  it('turns a registration 400 invalid_request into invalid_client_metadata', () => {
    const a = answer('registration', 400, 'invalid_request');
    registrationRefusalCode(a);
    expect(a.body).toEqual({ error: 'invalid_client_metadata', error_description: 'x' });
  });

  it.each([
    ['another route', answer('token', 400, 'invalid_request')],
    ['another status', answer('registration', 401, 'invalid_request')],
    ['another error', answer('registration', 400, 'invalid_redirect_uri')],
    ['a success', answer('registration', 201, 'invalid_request')],
  ])('leaves %s alone', (_label, a) => {
    const before = structuredClone(a.body);
    registrationRefusalCode(a);
    expect(a.body).toEqual(before);
  });
});
