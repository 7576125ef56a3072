/**
 * Back to a step its own flow has moved past. Finishing the sign-in ends its interaction and
 * the consent that follows gets a uid of its own, so Back from the consent page asks for a
 * page that names nothing ("This page has expired, start signing in again") while the flow
 * still runs.
 *
 * When oidc-provider resumes an interaction and starts the next one (`interaction.started` on
 * the `resume` route of the ended uid), this browser is given a cookie on the ended step's
 * own path, `/oauth/interaction/<ended uid>`, naming the pair `<ended uid>~<next uid>` under
 * an HMAC of the cookie keys (./uid-cookie.ts). A page view of the ended step goes (303) to
 * the next one while it lasts. The next step is the same flow by construction: oidc-provider
 * carries the ended interaction's parameters (client, redirect URI, state, PKCE challenge)
 * into it, and nothing else writes the cookie, so another site starting an authorization in
 * the same browser cannot become where Back leads (the flaw of an earlier "the page shown
 * last" cookie). A sibling host tossing a cookie onto the path cannot forge the MAC, and the
 * MAC binds the ended uid too. Posted forms are never moved on: a form of an ended step is
 * refused as expired.
 *
 * @module
 */
import type { Context } from 'koa';
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';

import { interactionPath } from '../lib/endpoints.ts';
import { UidCookie } from './uid-cookie.ts';

const COOKIE = 'platform_auth_next';
const LABEL = 'platform-auth next step v1';

export interface NextStep {
  /**
   * The uid of the step that followed `endedUid` in this browser's flow, when this is a page
   * view (GET, HEAD), the browser holds a valid pair for `endedUid` and that step still exists.
   */
  find(ctx: Context, endedUid: string): Promise<string | undefined>;
}

export function createNextStep(provider: Provider, cookieKeys: readonly string[], secure: boolean): NextStep {
  const cookie = new UidCookie(COOKIE, LABEL, cookieKeys, secure);
  const emitter = provider as unknown as { on(name: 'interaction.started', listener: (ctx: KoaContextWithOIDC) => void): void };
  emitter.on('interaction.started', (ctx) => {
    try {
      if (ctx.oidc?.route !== 'resume') return;
      const ended = (ctx.params as Record<string, string> | undefined)?.uid;
      const next = ctx.oidc.entities.Interaction;
      if (!ended || !next || next.uid === ended) return;
      cookie.setAll(ctx, [ended, next.uid], next.exp - Math.floor(Date.now() / 1000), interactionPath(ended));
    } catch {
      // a convenience for Back: never a reason for the authorization to fail
    }
  });
  return {
    async find(ctx, endedUid) {
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return undefined;
      const [ended, next, ...rest] = cookie.readAll(ctx);
      if (ended !== endedUid || !next || rest.length > 0) return undefined;
      return await provider.Interaction.find(next) ? next : undefined;
    },
  };
}
