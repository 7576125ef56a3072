/**
 * The client's address as the limits counted by it read it: the sign-in throttle
 * (./sign-in-throttle.ts), the authorization rate limit (lib/provider/authorization-rate.ts),
 * the open-registration rate limit (lib/registration/open.ts) and the metadata-document fetch
 * budget (lib/cimd/guard.ts). One per library instance, made by the composition root and
 * shared by the four.
 *
 * The address follows `options.proxy` and `options.proxyHops` (the rule is
 * lib/policies/sign-in-throttle.ts `clientAddress`, which stays pure). Without `proxy`, a
 * server behind a load balancer sees the balancer's address on every request: every client
 * behind it is one address, and one client's failures throttle all of them (a school's whole
 * sign-in page answered 429 after two typos) while nothing said why. So the first request
 * that reaches one of these limits carrying `X-Forwarded-For` or `Forwarded` while `proxy` is
 * off is logged, once per instance and never per request (any client can send the headers):
 * the limit, the address it was counted as, the header, and the options to set. The header's
 * value is the request's: it is cut and its control characters escaped.
 *
 * @module
 */
import type { Logger } from '../contracts.ts';
import { printable } from '../events/printable.ts';
import { clientAddress } from '../policies/sign-in-throttle.ts';
import { peerAddress } from './peer-address.ts';
import type { PeerRequest } from './peer-address.ts';

/** What is read of a request: a Koa context, or a page's lookup request (lib/cimd/page-requests.ts). */
export interface AddressedRequest {
  readonly req: PeerRequest;
  get(field: string): string;
}

/** The limits counted by client address, as the warning names them. */
export type AddressLimit = 'the sign-in throttle' | 'the authorization rate limit' | 'the open-registration rate limit' | 'the metadata-document fetch budget';

export interface ClientAddresses {
  /**
   * The client's address for `limit` (`options.proxy`, `options.proxyHops`); the first
   * request of the instance with proxy headers while `proxy` is off is logged (a warning).
   */
  of(ctx: AddressedRequest, limit: AddressLimit): string;
  /** The same address, read for no limit (the context `accounts.authenticate` gets with the throttle off): never a warning. */
  read(ctx: AddressedRequest): string;
}

export interface ClientAddressDeps {
  /** `options.proxy` */
  readonly proxy: boolean;
  /** `options.proxyHops` */
  readonly proxyHops: number;
  readonly logger: Pick<Logger, 'warn'>;
}

/** How much of the header's value the log line shows: a few addresses fit. */
const SHOWN = 200;

/**
 * The warning for a request that carried proxy headers while `options.proxy` is off: which
 * limit counted it as which address, and what to set. `header` and `value` are the request's.
 */
export function proxyHeadersHint(limit: AddressLimit, address: string, header: 'X-Forwarded-For' | 'Forwarded', value: string): string {
  const shown = JSON.stringify(printable(value, SHOWN));
  const forwardedOnly = header === 'Forwarded'
    ? ' The library reads X-Forwarded-For, not Forwarded: have the proxy send X-Forwarded-For too.'
    : '';
  return `platform-auth: a request with ${header} ${shown} reached ${limit}, but options.proxy is off, so it was counted as its TCP peer `
    + `(${address || 'unknown'}), not the address in the header. Behind a proxy or load balancer without options.proxy, every client behind the proxy counts as one address: `
    + 'the sign-in throttle, the authorization rate limit, the open-registration rate limit and the metadata-document fetch budget then throttle all of them together. '
    + 'If this server is behind a proxy, set options.proxy: true and options.proxyHops to the number of proxies that append to X-Forwarded-For (default 1); '
    + `if it is not, a client wrote the header and nothing needs to change.${forwardedOnly} Logged once per instance; later requests are not logged.`;
}

export function createClientAddresses({ proxy, proxyHops, logger }: ClientAddressDeps): ClientAddresses {
  let hinted = false;
  const read = (ctx: AddressedRequest) => clientAddress({ socketAddress: peerAddress(ctx.req), forwardedFor: ctx.get('x-forwarded-for'), proxy, hops: proxyHops });
  return {
    read,
    of(ctx, limit) {
      const address = read(ctx);
      const forwardedFor = ctx.get('x-forwarded-for');
      if (!proxy && !hinted) {
        const seen = forwardedFor ? { header: 'X-Forwarded-For' as const, value: forwardedFor } : { header: 'Forwarded' as const, value: ctx.get('forwarded') };
        if (seen.value) {
          // one line per instance, never per request: any client can send these headers
          hinted = true;
          logger.warn(proxyHeadersHint(limit, address, seen.header, seen.value));
        }
      }
      return address;
    },
  };
}
