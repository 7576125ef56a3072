/**
 * lib/policies/metadata-documents.ts without HTTP: which hosts may publish client ID
 * metadata documents, and what an unreviewed document client may hold.
 */
import { DOCUMENT_CACHE_SECONDS, documentHostAllowed, documentRefusalWords, metadataDocumentFeature, UNREVIEWED_DOCUMENT_SCOPES, unreviewedMayHold } from '../../lib/policies/metadata-documents.ts';
import { findScope, IDENTITY_SCOPES, SCOPES } from '../../lib/scopes/catalogue.ts';

describe('documentHostAllowed', () => {
  const allowlist: ReadonlySet<string> = new Set(['tools.example', 'docs.example:8443']);

  it.each([
    'https://tools.example/client.json',
    'https://tools.example:443/client.json',
    'https://TOOLS.example/client.json',
    'https://docs.example:8443/client.json',
  ])('allows %s', (clientId) => {
    expect(documentHostAllowed(clientId, allowlist)).toBe(true);
  });

  it.each([
    ['another host', 'https://evil.example/client.json'],
    ['a subdomain of an allowed host', 'https://a.tools.example/client.json'],
    ['a host that ends like an allowed one', 'https://eviltools.example/client.json'],
    ['a host:port entry on its default port', 'https://docs.example/client.json'],
    ['a host:port entry on another port', 'https://docs.example:9443/client.json'],
    // an entry without a port is 443, not any port: another port of the host may be someone else's
    ['a host entry on another port', 'https://tools.example:444/client.json'],
    ['a host entry on a high port', 'https://tools.example:8443/client.json'],
    ['an allowed host in the userinfo only', 'https://tools.example@evil.example/client.json'],
    ['a malformed URL', 'not a url'],
    ['an empty string', ''],
  ])('refuses %s', (_label, clientId) => {
    expect(documentHostAllowed(clientId, allowlist)).toBe(false);
  });

  it('refuses everything with an empty allowlist', () => {
    expect(documentHostAllowed('https://tools.example/client.json', new Set())).toBe(false);
  });

  it('allows any host, even an unparsable id, when the allowlist is null', () => {
    expect(documentHostAllowed('https://anything.example/c.json', null)).toBe(true);
    expect(documentHostAllowed('not a url', null)).toBe(true);
  });
});

describe('unreviewedMayHold and UNREVIEWED_DOCUMENT_SCOPES', () => {
  it('holds identity and read scopes, per the catalogue', () => {
    for (const s of IDENTITY_SCOPES) expect(unreviewedMayHold(s)).toBe(true);
    expect(unreviewedMayHold('courses:read')).toBe(true);
    expect(unreviewedMayHold('analytics:read')).toBe(true);
  });

  it('does not hold write scopes or unknown ones', () => {
    expect(unreviewedMayHold('courses:write')).toBe(false);
    expect(unreviewedMayHold('storage:write')).toBe(false);
    expect(unreviewedMayHold('account:write')).toBe(false);
    expect(unreviewedMayHold('made:read')).toBe(false);
    expect(unreviewedMayHold('')).toBe(false);
  });

  it('follows the access of the catalogue entry, so account:read (a read scope) is on the list', () => {
    expect(findScope('account:read')?.access).toBe('read');
    expect(unreviewedMayHold('account:read')).toBe(true);
    expect(UNREVIEWED_DOCUMENT_SCOPES).toContain('account:read');
  });

  it('lists exactly the identity and read scopes of the catalogue, in catalogue order', () => {
    const expected = SCOPES.filter((s) => s.access === 'identity' || s.access === 'read').map((s) => s.name);
    expect(UNREVIEWED_DOCUMENT_SCOPES).toEqual(expected);
    for (const name of UNREVIEWED_DOCUMENT_SCOPES) expect(['identity', 'read']).toContain(findScope(name)?.access);
    expect(UNREVIEWED_DOCUMENT_SCOPES.some((s) => findScope(s)?.access === 'write')).toBe(false);
    expect(UNREVIEWED_DOCUMENT_SCOPES.length).toBeGreaterThan(IDENTITY_SCOPES.length);
  });

  it('is frozen', () => {
    expect(Object.isFrozen(UNREVIEWED_DOCUMENT_SCOPES)).toBe(true);
  });
});

describe('metadataDocumentFeature', () => {
  it('fetches only from allowlisted hosts', async () => {
    const feature = metadataDocumentFeature({ enabled: true, allowedHosts: new Set(['tools.example']) });
    expect(feature.enabled).toBe(true);
    expect(await feature.allowFetch(undefined, 'https://tools.example/c.json')).toBe(true);
    expect(await feature.allowFetch(undefined, 'https://evil.example/c.json')).toBe(false);
  });

  it('fetches from any host when the allowlist is null', async () => {
    const feature = metadataDocumentFeature({ enabled: true, allowedHosts: null });
    expect(await feature.allowFetch(undefined, 'https://evil.example/c.json')).toBe(true);
  });

  it('passes enabled: false through', () => {
    expect(metadataDocumentFeature({ enabled: false, allowedHosts: new Set() }).enabled).toBe(false);
  });

  it('allows every fetched client', async () => {
    expect(await metadataDocumentFeature({ enabled: true, allowedHosts: null }).allowClient()).toBe(true);
  });

  it('uses the cache bounds as a fresh, mutable copy', () => {
    const one = metadataDocumentFeature({ enabled: true, allowedHosts: null });
    const two = metadataDocumentFeature({ enabled: true, allowedHosts: null });
    expect(one.cacheDuration).toEqual({ min: 30, max: 86400 });
    expect(one.cacheDuration).toEqual(DOCUMENT_CACHE_SECONDS);
    expect(one.cacheDuration).not.toBe(DOCUMENT_CACHE_SECONDS);
    expect(one.cacheDuration).not.toBe(two.cacheDuration);
    (one.cacheDuration as { min: number }).min = 1;
    expect(DOCUMENT_CACHE_SECONDS.min).toBe(30);
    expect(two.cacheDuration.min).toBe(30);
  });
});

describe('documentRefusalWords', () => {
  it('turns the provider\'s "client_secret is mandatory property" into what a document must say, for either cause', () => {
    expect(documentRefusalWords('client_secret is mandatory property')).toBe(
      'a client ID metadata document holds no secret: token_endpoint_auth_method must be "none" (leaving it out means client_secret_post), and no algorithm may be HMAC (HS256, HS384, HS512) or symmetric encryption, each of which needs a client_secret',
    );
  });

  it('leaves every other refusal as the provider or the library said it', () => {
    for (const words of ['redirect_uris must contain members', 'client_id metadata document is not valid JSON', '']) {
      expect(documentRefusalWords(words)).toBe(words);
    }
  });
});
