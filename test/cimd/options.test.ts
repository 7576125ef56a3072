/**
 * The metadata-document fetch options at start-up: the budget and the failure cache resolve
 * to their documented defaults, bad values fail with a message that says what to change, and
 * a special-use host cannot be allowlisted.
 */
import { ConfigurationError } from '../../lib/index.ts';
import type { PlatformAuthOptions } from '../../lib/index.ts';
import { OPTION_DEFAULTS } from '../../lib/config/options.ts';
import { validateOptions } from '../../lib/config/validate.ts';

const accounts = { authenticate: async () => undefined, findById: async () => undefined };
const quiet = { info() {}, warn() {}, error() {} };
const base: PlatformAuthOptions = { baseUrl: 'http://localhost:3000', accounts, logger: quiet, registration: { variant: 'open' } };

type DocumentOptions = NonNullable<PlatformAuthOptions['clientIdMetadataDocuments']>;
const resolve = (clientIdMetadataDocuments: DocumentOptions) => validateOptions({ ...base, clientIdMetadataDocuments });

async function rejection(clientIdMetadataDocuments: unknown): Promise<string> {
  try {
    await resolve(clientIdMetadataDocuments as DocumentOptions);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigurationError);
    return (err as Error).message;
  }
  throw new Error('expected the options to be refused');
}

describe('fetchBudget and failureCacheSeconds', () => {
  it('default to 60 per host and 30 per caller a minute, failures remembered 30 s', async () => {
    const { clientIdMetadataDocuments: resolved } = await resolve({});
    expect(resolved.fetchBudget).toEqual({ perHost: 60, perCaller: 30, windowSeconds: 60 });
    expect(resolved.failureCacheSeconds).toBe(30);
    const ranges = OPTION_DEFAULTS.clientIdMetadataDocuments;
    expect(resolved.fetchBudget).toEqual({
      perHost: ranges.fetchBudget.perHost.default, perCaller: ranges.fetchBudget.perCaller.default, windowSeconds: ranges.fetchBudget.windowSeconds.default,
    });
  });

  it('take what is given, each part defaulted on its own, and false for no budget', async () => {
    expect((await resolve({ fetchBudget: { perCaller: 3 }, failureCacheSeconds: 5 })).clientIdMetadataDocuments)
      .toMatchObject({ fetchBudget: { perHost: 60, perCaller: 3, windowSeconds: 60 }, failureCacheSeconds: 5 });
    expect((await resolve({ fetchBudget: false })).clientIdMetadataDocuments.fetchBudget).toBe(false);
  });

  it.each([
    [{ fetchBudget: true }, /^options\.clientIdMetadataDocuments\.fetchBudget must be false or an object like \{ perHost, perCaller, windowSeconds \}; got true$/],
    [{ fetchBudget: [] }, /fetchBudget must be false or an object/],
    [{ fetchBudget: { perHost: 0 } }, /^options\.clientIdMetadataDocuments\.fetchBudget\.perHost must be a whole number from 1 to 100000; got 0\. Leave it out for the default, 60$/],
    [{ fetchBudget: { perCaller: 2.5 } }, /fetchBudget\.perCaller must be a whole number from 1 to 100000; got 2\.5/],
    [{ fetchBudget: { windowSeconds: 0 } }, /fetchBudget\.windowSeconds must be a whole number from 1 to 86400 \(seconds\)/],
    [{ fetchBudget: { perIp: 3 } }, /fetchBudget\.perIp is not a known option; use one of perHost, perCaller, windowSeconds/],
    [{ failureCacheSeconds: 0 }, /failureCacheSeconds must be a whole number from 1 to 3600 \(seconds\); got 0\. Leave it out for the default, 30/],
  ])('refuses %j', async (options, message) => {
    expect(await rejection(options)).toMatch(message);
  });
});

describe('allowedHosts', () => {
  it.each([['127.0.0.1'], ['localhost'], ['10.1.2.3:8443'], ['[::1]'], ['printer.local'], ['intranet']])('refuses %s: documents are never fetched there', async (host) => {
    const message = await validateOptions({ ...base, registration: undefined, clientIdMetadataDocuments: { allowedHosts: [host] } }).then(
      () => 'accepted',
      (err: Error) => err.message,
    );
    expect(message).toMatch(/^options\.clientIdMetadataDocuments\.allowedHosts: ".*" is a special-use address or name \(.+\); documents are never fetched from one, so list public hosts only$/);
  });

  it('keeps public hosts', async () => {
    const resolved = await validateOptions({ ...base, registration: undefined, clientIdMetadataDocuments: { allowedHosts: ['tools.example', '8.8.8.8:8443'] } });
    expect([...resolved.clientIdMetadataDocuments.allowedHosts!]).toEqual(['tools.example', '8.8.8.8:8443']);
  });
});
