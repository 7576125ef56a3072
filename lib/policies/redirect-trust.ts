/**
 * No redirect before trust (RFC 9700 §4.11.2): the authorization server must not be an open
 * redirector for clients that registered themselves.
 *
 * Anyone can register a client (Variant B, RFC 7591) or publish a client ID metadata document
 * with a redirect URI of their own choosing. An erroneous authorization request for such a
 * client (a bad scope, `prompt=none`, no PKCE, …) would send the browser straight from this
 * server's address to that URI, before anyone signed in. So:
 *
 * - An error answered by the authorization endpoint itself (`/oauth/authorize`, oidc-provider's
 *   route `authorization`), which is every error before the user has signed in and approved,
 *   is shown on this server's error page (the provider's own `renderError`,
 *   lib/pages/error-page.ts, in the request's language and the configured look) instead of
 *   being sent to the redirect URI, in every response mode (query, fragment, form_post),
 *   unless the client is trusted or the redirect URI is a loopback one.
 * - Trusted: clients in `options.clients` (the vendor platforms among them), member clients
 *   (only a site operator creates those, lib/member-clients) and metadata-document clients a
 *   site operator has reviewed. Every other client, today those registered through RFC 7591
 *   and unreviewed documents, is not; an unknown kind of client is not either.
 * - A loopback redirect URI (http on 127.0.0.1, [::1] or localhost, RFC 8252 §7.3) stays a
 *   redirect: it leads to the user's own device, never to someone else's site, and a native
 *   app (an MCP client) waits there for the answer, error or not.
 * - Once the user has acted on our pages, errors go back to the client as usual (RFC 6749
 *   §4.1.2.1): they are answered at the resume route, not here. Deny on the consent page is
 *   one of them: the page named the application and where it sends the user, who chose to
 *   go back to it. Cancel on the sign-in page, which names no destination, applies
 *   {@link mayRedirectError} itself (interactions/router.ts).
 *
 * oidc-provider decides between redirect and `renderError` in its authorization error handler
 * and has no setting for this; the rule is applied around it: the error is taken from the
 * provider's `authorization.error` / `server_error` event, and once the provider has answered
 * with a redirect the answer is replaced by the error page (whether the document is reviewed is
 * the host's asynchronous answer, so the decision cannot be made inside the synchronous event).
 * The pushed-authorization endpoint is off (lib/policies/code-flow.ts); its errors would be JSON
 * to the client anyway, and a `request_uri` at the authorization endpoint is handled here.
 *
 * @module
 */
import type { Context } from 'koa';
import type Provider from 'oidc-provider';
import type { ErrorOut, KoaContextWithOIDC } from 'oidc-provider';

import { isLoopbackUri } from '../constants.ts';
import { clientAudience } from './audience.ts';
import type { AudienceClient } from './audience.ts';
import type { AfterAnswer } from './provider-answer.ts';

/**
 * Writes the error page: the provider's `renderError` (`createProviderErrorRenderer` of
 * lib/pages/error-page.ts), so a withheld error looks and reads like every other error page.
 */
export type RenderErrorPage = (ctx: KoaContextWithOIDC, out: ErrorOut, error: Error) => Promise<void>;

/** The slice of an oidc-provider Client the rule reads. */
export interface RedirectTrustClient extends AudienceClient {
  /** set by oidc-provider on clients resolved from a client ID metadata document */
  readonly clientIdMetadataDocument?: boolean;
}

export interface RedirectTrust {
  /** the `client_id`s of `options.clients` */
  readonly configuredClients: ReadonlySet<string>;
  /** whether a site operator has reviewed this metadata-document client */
  isReviewed(clientId: string): Promise<boolean>;
}

/**
 * Whether `client` is trusted to receive errors before the user has signed in and approved:
 * configured, member and reviewed metadata-document clients.
 */
export async function isTrustedClient(client: RedirectTrustClient, trust: RedirectTrust): Promise<boolean> {
  if (trust.configuredClients.has(client.clientId)) return true;
  if (client.clientIdMetadataDocument === true) {
    // the check is a security one: a host whose review lookup fails gets the error page
    return trust.isReviewed(client.clientId).then((reviewed) => reviewed === true, () => false);
  }
  return clientAudience(client) === 'member';
}

/** Whether an error at the authorization endpoint may be sent to `redirectUri` of `client`. */
export async function mayRedirectError(client: RedirectTrustClient, redirectUri: unknown, trust: RedirectTrust): Promise<boolean> {
  if (typeof redirectUri === 'string' && isLoopbackUri(redirectUri)) return true;
  return isTrustedClient(client, trust);
}

// the provider's errors carry these (lib/helpers/errors.js); a plain Error carries none
interface ProviderError extends Error {
  readonly allow_redirect?: boolean;
  readonly expose?: boolean;
  readonly statusCode?: number;
  readonly error_description?: string;
}

/** What oidc-provider shows of an error (its `err_out.js`, without `state`). */
function publicError(err: ProviderError): ErrorOut {
  if (!err.expose) return { error: 'server_error', error_description: 'oops! something went wrong' };
  return { error: err.message, ...(err.error_description !== undefined ? { error_description: err.error_description } : {}) };
}

/** The `redirect_uri` the provider sent the error to: its parsed parameters, else the raw request's. */
function requestedRedirectUri(ctx: KoaContextWithOIDC): unknown {
  const params = ctx.oidc.params ?? (ctx.method === 'POST' ? ctx.oidc.body : ctx.query);
  return params?.redirect_uri;
}

/**
 * On the provider's answer (lib/provider/after-answer.ts): replaces an error redirect of the
 * authorization endpoint by the error page `renderError` writes, for an untrusted client and
 * a redirect URI that is not a loopback one. Listens to the provider's error events to learn
 * each request's error.
 */
export function withholdErrorRedirects(provider: Provider, trust: RedirectTrust, renderError: RenderErrorPage): AfterAnswer {
  const errors = new WeakMap<object, ProviderError>();
  const remember = (ctx: object, err: Error) => { errors.set(ctx, err); };
  provider.on('authorization.error', remember);
  provider.on('server_error', remember);

  async function withhold(ctx: Context, err: ProviderError, client: RedirectTrustClient, redirectUri: string): Promise<void> {
    if (await mayRedirectError(client, redirectUri, trust)) return;
    ctx.remove('Location');
    // prompt=none errors carry 303, the status of the redirect they were meant for
    ctx.status = typeof err.statusCode === 'number' && err.statusCode >= 400 ? err.statusCode : 400;
    await renderError(ctx as unknown as KoaContextWithOIDC, publicError(err), err);
  }

  return function noRedirectBeforeTrust(ctx) {
    const err = errors.get(ctx);
    const oidcCtx = ctx as unknown as KoaContextWithOIDC;
    if (!err || oidcCtx.oidc?.route !== 'authorization') return undefined;
    const client = oidcCtx.oidc.client as RedirectTrustClient | undefined;
    const redirectUri = requestedRedirectUri(oidcCtx);
    // otherwise the provider rendered its page itself (no client, no redirect_uri, or an error it never redirects)
    if (!client || typeof redirectUri !== 'string' || err.allow_redirect !== true) return undefined;
    return withhold(ctx, err, client, redirectUri);
  };
}
