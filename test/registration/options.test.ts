/**
 * `options.registration.rateLimit` and `options.registration.unusedClientExpiry`: their
 * defaults, `false`, off in Variant A, and start-up errors that say what to change.
 */
import { ConfigurationError } from '../../lib/index.ts';
import type { PlatformAuthOptions } from '../../lib/index.ts';
import { validateOptions } from '../../lib/config/validate.ts';

const accounts = { authenticate: async () => undefined, findById: async () => undefined };
const quiet = { info() {}, warn() {}, error() {} };
const base: PlatformAuthOptions = { baseUrl: 'http://localhost:3000', accounts, logger: quiet };

async function rejection(registration: unknown): Promise<string> {
  try {
    await validateOptions({ ...base, registration } as PlatformAuthOptions);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigurationError);
    return (err as Error).message;
  }
  throw new Error('expected the options to be refused');
}

describe('registration limits options', () => {
  it('default, in Variant B, to 30 per address per hour and 30 days', async () => {
    const { registration } = await validateOptions({ ...base, registration: { variant: 'open' } });
    expect(registration.rateLimit).toEqual({ perIp: 30, windowSeconds: 3600 });
    expect(registration.unusedClientExpiry).toBe(30 * 86_400);
  });

  it('take what is given, and false turns each off', async () => {
    const given = await validateOptions({ ...base, registration: { variant: 'open', rateLimit: { perIp: 5 }, unusedClientExpiry: 3600 } });
    expect(given.registration.rateLimit).toEqual({ perIp: 5, windowSeconds: 3600 });
    expect(given.registration.unusedClientExpiry).toBe(3600);
    const off = await validateOptions({ ...base, registration: { variant: 'open', rateLimit: false, unusedClientExpiry: false } });
    expect(off.registration.rateLimit).toBe(false);
    expect(off.registration.unusedClientExpiry).toBe(false);
  });

  it('are off in Variant A, which registers nothing, but still checked', async () => {
    const { registration } = await validateOptions({ ...base, registration: { rateLimit: { perIp: 5 }, unusedClientExpiry: 60 } });
    expect(registration).toMatchObject({ variant: 'restricted', rateLimit: false, unusedClientExpiry: false });
    expect(await rejection({ rateLimit: { perIp: 0 } })).toMatch(/^options\.registration\.rateLimit\.perIp must be a whole number from 1 to 100000; got 0/);
  });

  it.each([
    [{ variant: 'open', rateLimit: true }, /^options\.registration\.rateLimit must be false or an object like \{ perIp, windowSeconds \}; got true/],
    [{ variant: 'open', rateLimit: { perIP: 5 } }, /^options\.registration\.rateLimit\.perIP is not a known option; use one of perIp, windowSeconds; did you mean "perIp"\?/],
    [{ variant: 'open', rateLimit: { windowSeconds: 0.5 } }, /^options\.registration\.rateLimit\.windowSeconds must be a whole number from 1 to 86400 \(seconds\); got 0\.5\. Leave it out for the default, 3600/],
    [{ variant: 'open', unusedClientExpiry: '30d' }, /^options\.registration\.unusedClientExpiry must be a whole number from 1 to 31536000 \(seconds\); got "30d"\. Leave it out for the default, 2592000/],
    [{ variant: 'open', unusedClientExpiry: true }, /^options\.registration\.unusedClientExpiry must be a whole number/],
  ])('refuse %j', async (registration, message) => {
    expect(await rejection(registration)).toMatch(message);
  });
});
