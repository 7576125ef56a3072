/**
 * What an event means for the people who run a client: one sentence on what happened and,
 * for a failure, one on what to do. These are the words of the per-client trace that a site
 * operator (member clients) or the platform's staff (every client) reads when "the connector
 * does not connect".
 *
 * Only what the event carries is used: client ids, redirect URIs, scopes, error codes and
 * the public descriptions of errors. Never a token, a code, a secret, a password or an
 * account's personal data.
 *
 * @module
 */
import { ACCOUNT_GONE_DESCRIPTION, LOOPBACK_REDIRECT_ORIGINS } from '../constants.ts';
import type { PlatformAuthEvent, PlatformAuthEventMap, ResourceEndpoint } from '../events/types.ts';
import { DOCUMENT_BODY_LIMIT } from '../policies/metadata-documents.ts';

/** `ok`: it worked; `refused`: the client or the person must change something; `error`: the server failed. */
export type TraceOutcome = 'ok' | 'refused' | 'error';

export interface Explanation {
  readonly outcome: TraceOutcome;
  /** what happened, in plain words */
  readonly summary: string;
  /** what to do about it, for failures */
  readonly action?: string;
}

const WHERE: Readonly<Record<ResourceEndpoint, string>> = {
  userinfo: 'UserInfo',
  account_api: '/account/graphql',
  mcp: '/mcp',
  host: 'a protected route of the platform',
};

const SIGN_IN_AGAIN = 'The person signs in through the app again to get new tokens.';

/**
 * The other cause of an expired code: each instance checks a code's timestamps against its own
 * clock (no tolerance), so with about 60 s of skew a code issued on one instance is expired on
 * another however fast the app redeems it (README "Clocks, and a restart without persistence").
 */
const CLOCKS_DISAGREE = 'this server\'s instances disagree on the time';

/** Known `error_detail`s of oidc-provider's `invalid_grant` (fixed strings) in plain words. */
export const GRANT_DETAILS: Readonly<Record<string, Explanation>> = {
  'authorization code redirect_uri mismatch': {
    outcome: 'refused',
    summary: 'The token request named another redirect_uri than the authorization request did.',
    action: 'Send the token endpoint exactly the redirect_uri the authorization request used.',
  },
  'code_verifier does not match code_challenge': {
    outcome: 'refused',
    summary: 'The code_verifier does not match the code_challenge of the authorization request (PKCE).',
    action: 'Send the code_verifier whose S256 hash was sent as code_challenge, for this very code.',
  },
  'code_verifier must be provided': {
    outcome: 'refused',
    summary: 'The token request had no code_verifier (PKCE).',
    action: 'Send the code_verifier that belongs to the code_challenge of the authorization request.',
  },
  'authorization code is expired': {
    outcome: 'refused',
    summary: `The authorization code had expired before it was redeemed, or ${CLOCKS_DISAGREE}.`,
    action: `Redeem the code at the token endpoint as soon as the browser comes back with it; if the app already does, ${CLOCKS_DISAGREE} (keep their clocks in sync with NTP).`,
  },
  'authorization code not found': {
    outcome: 'refused',
    summary: 'The authorization code is not known here: it expired, or was issued by another server.',
    action: 'Redeem each code once, right away, at the server that issued it.',
  },
  'refresh token not found': {
    outcome: 'refused',
    summary: 'The refresh token is not known here: it expired or was revoked (a revocation request, reuse of a refresh token or code, the member disconnecting the app, the app being deleted).',
    action: SIGN_IN_AGAIN,
  },
  'refresh token is expired': {
    outcome: 'refused',
    summary: 'The refresh token had expired.',
    action: SIGN_IN_AGAIN,
  },
  'grant not found': {
    outcome: 'refused',
    summary: 'The consent behind this token no longer exists: it was revoked or has expired.',
    action: SIGN_IN_AGAIN,
  },
  'grant is expired': {
    outcome: 'refused',
    summary: 'The consent behind this token has expired.',
    action: SIGN_IN_AGAIN,
  },
  'client mismatch': {
    outcome: 'refused',
    summary: 'The code or refresh token was issued to another app than the one that presented it.',
    action: 'Each app must redeem its own codes and refresh tokens; check which client_id the app sends.',
  },
};

const cut = (text: string, max = 300): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

function hostOf(url: string | undefined): string {
  return (url && URL.parse(url)?.host) || 'its host';
}

function authorizationFailed(event: PlatformAuthEventMap['authorization.failed']): Explanation {
  const { error, description } = event;
  switch (error) {
    case 'invalid_redirect_uri': {
      const registered = event.registeredRedirectUris?.length ? event.registeredRedirectUris.join(', ') : 'none';
      return {
        outcome: 'refused',
        summary: `redirect_uri ${event.redirectUri ?? '(none sent)'} is not registered for this app; registered: ${registered}.`,
        action: `Send one of the registered redirect URIs exactly (only the port of a loopback one, ${LOOPBACK_REDIRECT_ORIGINS.join(', ')}, may differ, and only for a native app), or register this one for the app.`,
      };
    }
    case 'invalid_scope':
      return {
        outcome: 'refused',
        summary: `The app asked for scopes it may not have: ${cut(description)}.`,
        action: 'Ask only for the scopes the app was given in its settings.',
      };
    case 'invalid_target':
      return {
        outcome: 'refused',
        summary: `The request named a resource this server does not issue tokens for: ${cut(description)}.`,
        action: 'Send as resource the origin advertised at /.well-known/oauth-protected-resource, or no resource at all.',
      };
    case 'invalid_client':
      return {
        outcome: 'refused',
        summary: `The app was not recognised: ${cut(description)}.`,
        action: 'Check the client_id the app sends.',
      };
    case 'login_required':
    case 'consent_required':
    case 'interaction_required':
      if (description === ACCOUNT_GONE_DESCRIPTION) {
        return {
          outcome: 'refused',
          summary: 'The account the person signed in with no longer exists (accounts.findById no longer knows it), so the sign-in could not go on.',
          action: SIGN_IN_AGAIN,
        };
      }
      return {
        outcome: 'refused',
        summary: `The app asked to continue without showing a page (prompt=none), but the person must ${error === 'login_required' ? 'sign in' : 'consent'} first.`,
        action: 'Start a normal sign-in, without prompt=none.',
      };
    case 'access_denied':
      return { outcome: 'refused', summary: `Authorization was refused: ${cut(description)}.` };
    case 'temporarily_unavailable':
    case 'server_error':
      return { outcome: 'error', summary: `The server could not complete the authorization (${error})${description ? `: ${cut(description)}` : ''}.`, action: 'Try again in a moment.' };
    default:
      return {
        outcome: 'refused',
        summary: `The authorization request was refused (${error}): ${cut(description)}.`,
        action: 'Use the authorization code flow with PKCE (S256), an exact registered redirect_uri and the scopes the app was given.',
      };
  }
}

function tokenFailed(event: PlatformAuthEventMap['token.failed']): Explanation {
  const known = event.detail === undefined ? undefined : GRANT_DETAILS[event.detail];
  if (known) return known;
  switch (event.error) {
    case 'invalid_client':
      return {
        outcome: 'refused',
        summary: `Client authentication failed at the token endpoint: ${cut(event.description)}.`,
        action: 'Check the client_id and, for a confidential app, its client_secret, sent as client_secret_post (HTTP Basic is not accepted).',
      };
    case 'invalid_scope':
      return {
        outcome: 'refused',
        summary: `The token request asked for scopes the app may not have: ${cut(event.description)}.`,
        action: 'Ask only for scopes that were granted.',
      };
    case 'invalid_target':
      return {
        outcome: 'refused',
        summary: `The token request named a resource this server does not issue tokens for: ${cut(event.description)}.`,
        action: 'Send the same single resource as at the authorization request, or none.',
      };
    case 'unsupported_grant_type':
    case 'unauthorized_client':
      return {
        outcome: 'refused',
        summary: `The app used a grant type it may not use (${event.grantType ?? 'unknown'}).`,
        action: 'Use authorization_code, then refresh_token.',
      };
    default:
      return {
        outcome: 'refused',
        summary: `The token request was refused (${event.error}): ${cut(event.description)}.`,
        action: 'Check the grant_type and its parameters against the token endpoint section of /auth.md.',
      };
  }
}

function metadataDocumentFailed(event: PlatformAuthEventMap['metadata_document.failed']): Explanation {
  const host = hostOf(event.clientId);
  const fix = (summary: string, action: string): Explanation => ({ outcome: 'refused', summary, action });
  switch (event.reason) {
    case 'host_not_allowed':
      return fix(`The metadata document was not fetched: documents from ${host} are not accepted here.`, 'Ask the platform to allow this host, or use a client registered with the platform.');
    case 'dns':
      return fix(`The host of the metadata document, ${host}, does not resolve.`, 'Check the client_id URL and the DNS of its host.');
    case 'refused_address':
      return fix(`The host of the metadata document, ${host}, resolves to a private or special-use address, which this server never fetches from.`, 'Publish the document at a public address.');
    case 'timeout':
      return fix(`Fetching the metadata document from ${host} timed out.`, 'Make the document answer within a few seconds.');
    case 'size':
      return fix(`The metadata document is larger than ${DOCUMENT_BODY_LIMIT / 1024} KB.`, 'Keep the document small: client metadata only.');
    case 'status':
      return fix(`The metadata document URL answered HTTP ${event.status ?? '(unknown status)'} instead of 200.`, 'Serve the document at exactly the client_id URL, with status 200 and no redirect.');
    case 'invalid_content':
      return fix(`The metadata document cannot be used: ${cut(event.description)}.`, 'Serve a JSON object whose client_id is exactly its URL, with https URLs and no client secret.');
    case 'over_budget':
      return fix(`The metadata document was not fetched this time: ${cut(event.description)}.`, 'Wait for the time given, then try again; each document is fetched once and then cached, so many distinct document URLs on one host, or many from one address, use up the budget.');
    default:
      return fix(`The metadata document could not be fetched from ${host}: ${cut(event.description)}.`, 'Check that the client_id URL is reachable over https.');
  }
}

function accessRefused(event: PlatformAuthEventMap['access.refused']): Explanation {
  const where = WHERE[event.endpoint];
  const fix = (summary: string, action: string): Explanation => ({ outcome: 'refused', summary, action });
  switch (event.reason) {
    case 'no_token':
      return fix(`A request to ${where} came without an access token.`, 'Send the access token as Authorization: Bearer <token>.');
    case 'malformed':
      return fix(`A request to ${where} was refused: ${cut(event.description)}.`, 'Send the token once, in an Authorization: Bearer header.');
    case 'unknown':
      return fix(`A request to ${where} used an access token this server does not know: it expired, was revoked with its sign-in, or was issued elsewhere.`, 'Get a new access token with the refresh token, or sign in again.');
    case 'expired':
      return fix(`A request to ${where} used an expired access token.`, 'Get a new access token with the refresh token before the old one expires.');
    case 'revoked':
      return fix(`A request to ${where} used an access token that was revoked.`, 'Stop using it; sign in again to get a new one.');
    case 'other_audience':
      return fix(`A request to ${where} used an access token issued for another resource (another origin), not for this server.`, 'Ask this server for the token, with resource set to its origin (see /.well-known/oauth-protected-resource).');
    case 'missing_scope':
      return fix(`A request to ${where} needs the scope ${event.scope ?? '(unnamed)'}, which the access token does not have.`, `Sign in again asking for ${event.scope ?? 'the scope'}; the app must have been given it.`);
    case 'wrong_client_type':
      return fix(`A request to ${where} was refused: ${cut(event.description)}.`, 'Use an app of the right kind: member apps for member data, operator apps for the admin API.');
    case 'client_deleted':
      return fix(`A request to ${where} used a token of an app that has been deleted; the token and its sign-in were revoked.`, 'Create the app again and sign in with it.');
    case 'no_site':
      return fix(`A request to ${where} used a member token that names no site.`, SIGN_IN_AGAIN);
    case 'account_gone':
      return fix(`A request to ${where} used a token whose account no longer exists.`, 'Sign in with an existing account.');
    default:
      return fix(`A request to ${where} was refused (${event.error}): ${cut(event.description)}.`, SIGN_IN_AGAIN);
  }
}

/** The plain words of `event`. */
export function explain(event: PlatformAuthEvent): Explanation {
  switch (event.name) {
    case 'signin.succeeded':
      return { outcome: 'ok', summary: 'A person signed in to authorize this app.' };
    case 'signin.failed':
      return event.reason === 'credentials'
        ? { outcome: 'refused', summary: 'A sign-in failed: the email or the password was wrong.', action: 'Nothing to change in the app; the person can reset their password.' }
        : { outcome: 'refused', summary: 'A sign-in form was sent without an email or a password.' };
    case 'signin.throttled':
      return {
        outcome: 'refused',
        summary: `Sign-in was paused after repeated failures; the next attempt is allowed in ${event.retryAfter} s.`,
        action: 'Wait, then try again; repeated failures for one account or address are slowed down on purpose.',
      };
    case 'consent.granted':
      return { outcome: 'ok', summary: 'A person allowed this app access.' };
    case 'consent.denied':
      return event.reason === 'ineligible'
        ? { outcome: 'refused', summary: 'A person who may not authorize this app tried to: their account has no suitable role at the site.', action: 'Member apps are for people with a role at the app\'s site; operator apps for its owners and admins.' }
        : { outcome: 'refused', summary: 'A person declined to give this app access.', action: 'Nothing is wrong with the app; the person can try again.' };
    case 'authorization.failed':
      return authorizationFailed(event);
    case 'code.issued':
      return { outcome: 'ok', summary: 'An authorization code was sent to the app\'s redirect URI.' };
    case 'code.redeemed':
      return { outcome: 'ok', summary: 'The app exchanged its authorization code for tokens.' };
    case 'code.replayed':
      return {
        outcome: 'refused',
        summary: 'An authorization code was redeemed a second time, so every token issued from it was revoked.',
        action: 'Redeem each code exactly once. If the app did, the code may have leaked: check the redirect URI and the app\'s logs.',
      };
    case 'token.failed':
      return tokenFailed(event);
    case 'refresh.rotated':
      return { outcome: 'ok', summary: 'The app refreshed its tokens; its refresh token was replaced by a new one.' };
    case 'refresh.grace_used':
      return {
        outcome: 'ok',
        summary: 'An already replaced refresh token was used again within the grace period (a retry, or two refreshes at once) and was served.',
        action: 'Fine once in a while. If it happens on every refresh, the app refreshes twice at once or does not keep the new refresh token.',
      };
    case 'refresh.reuse_detected':
      return event.reason === 'other_client'
        ? { outcome: 'refused', summary: 'A refresh token of this app was presented by another app, so every token of that sign-in was revoked.', action: `Find out how another app got it. ${SIGN_IN_AGAIN}` }
        : { outcome: 'refused', summary: 'A refresh token that had already been replaced was used again, so every token of that sign-in was revoked (refresh-token reuse).', action: `The app must keep the new refresh token of each refresh and use only that one. ${SIGN_IN_AGAIN} If the app did keep it, the old token may have been stolen.` };
    case 'token.revoked':
      return event.tokenType === 'refresh_token'
        ? { outcome: 'ok', summary: 'A refresh token of this app was revoked, and with it every token of that sign-in.' }
        : { outcome: 'ok', summary: 'An access token of this app was revoked.' };
    case 'registration.accepted':
      return { outcome: 'ok', summary: 'The app was registered.' };
    case 'registration.refused':
      return { outcome: 'refused', summary: `A registration was refused (${event.error}): ${cut(event.description)}.`, action: 'Fix the metadata the description names, then register again.' };
    case 'metadata_document.fetched':
      return { outcome: 'ok', summary: 'The app\'s metadata document was fetched.' };
    case 'metadata_document.failed':
      return metadataDocumentFailed(event);
    case 'access.refused':
      return accessRefused(event);
    case 'storage.unavailable':
      return { outcome: 'error', summary: 'Storage was unreachable, so a request was answered 503.', action: 'Retry after a few seconds; the platform team is told by the log.' };
    case 'server.error':
      return { outcome: 'error', summary: `The server failed unexpectedly (${event.error}).`, action: 'Give the platform team the request id; the log has the details.' };
  }
}
