/**
 * The sign-in throttle as Koa pages use it (`auth.signInThrottle`): who is signing in, the
 * attempt (lib/policies/sign-in-throttle.ts holds the rule), and the 429 page.
 *
 * The client's address follows `options.proxy` and `options.proxyHops`, never the host
 * app's `app.proxy`/`ctx.ip`: the sign-in pages run inside the host's Koa app, and the
 * library's own setting is the one that already decides whether `X-Forwarded-*` is trusted
 * (it is the provider's `proxy`). So one option governs every forwarded header the library
 * reads, and a host app that trusts `X-Forwarded-For` for its own reasons cannot make the
 * throttle trust a client-written address.
 *
 * @module
 */
import type { Context } from 'koa';

import type { AdapterFactory } from '../../adapters/types.ts';
import type { SignInContext } from '../contracts.ts';
import type { ClientAddresses } from './client-address.ts';
import { writeNoticePage } from '../pages/notice.ts';
import type { NoticeView } from '../pages/notice.ts';
import { SignInThrottler } from '../policies/sign-in-throttle.ts';
import type { SignInAttempt, SignInThrottleSettings } from '../policies/sign-in-throttle.ts';

export type { SignInAttempt };

/**
 * Sign-in throttling for a host's own sign-in forms, sharing the counters of the library's
 * sign-in page (an attacker gains nothing by switching forms).
 *
 * @example
 * ```ts
 * const who = auth.signInThrottle.context(ctx);
 * const attempt = await auth.signInThrottle.attempt(email, who);
 * if (!attempt.allowed) return auth.signInThrottle.writeThrottledPage(ctx, attempt.retryAfter);
 * const account = await accounts.authenticate(email, password, who);
 * if (!account) { ctx.status = 401; … return; }   // counted as a failure already
 * await attempt.succeeded();
 * ```
 */
export interface SignInThrottle {
  /** `false` when `options.signInThrottle` is `false`: every attempt is allowed. */
  readonly enabled: boolean;
  /** The client's address and user agent, read as the library reads them (`options.proxy`, `options.proxyHops`). */
  context(ctx: Context): SignInContext;
  /**
   * Starts an attempt to sign in as `email`; call it before checking the password. Refused
   * (`allowed: false`, with `retryAfter` seconds) while the account or the address must wait;
   * otherwise the attempt counts as a failure until `succeeded()` is called.
   */
  attempt(email: string, context: SignInContext): Promise<SignInAttempt>;
  /** The words of the 429 page, the same whichever email was tried. */
  notice(retryAfter: number): NoticeView;
  /** Answers 429 with `Retry-After` and the notice page under the strict page headers. */
  writeThrottledPage(ctx: Context, retryAfter: number, nonce?: string): void;
}

export interface SignInThrottleDeps {
  readonly adapter: AdapterFactory;
  readonly settings: SignInThrottleSettings | false;
  /** the instance's client addresses for limits (`options.proxy`, `options.proxyHops`; ./client-address.ts), shared with its other limits */
  readonly addresses: ClientAddresses;
}

/** The wait in words, coarse on purpose: the page says the same for every email at a given moment. */
function waitInWords(seconds: number): string {
  return seconds <= 60 ? 'up to a minute' : `about ${Math.ceil(seconds / 60)} minutes`;
}

export function createSignInThrottle({ adapter, settings, addresses }: SignInThrottleDeps): SignInThrottle {
  const throttler = new SignInThrottler(adapter, settings);
  const notice = (retryAfter: number): NoticeView => ({
    title: 'Too many sign-in attempts',
    message: `Signing in is paused for a while after several unsuccessful attempts. Wait ${waitInWords(retryAfter)}, then go back and try again.`,
  });
  return Object.freeze({
    enabled: throttler.enabled,
    context(ctx: Context): SignInContext {
      return {
        // read for the throttle (which warns once about proxy headers without options.proxy)
        // only while there is one: with it off, the address is only the context authenticate gets
        ip: throttler.enabled ? addresses.of(ctx, 'the sign-in throttle') : addresses.read(ctx),
        userAgent: ctx.get('user-agent'),
      };
    },
    attempt: (email: string, context: SignInContext) => throttler.attempt(email, context.ip),
    notice,
    writeThrottledPage(ctx: Context, retryAfter: number, nonce?: string): void {
      writeNoticePage(ctx, 429, notice(retryAfter), nonce);
      ctx.set('Retry-After', String(retryAfter));
    },
  });
}
