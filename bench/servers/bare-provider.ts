/**
 * The OAuth baseline: bare oidc-provider with the features ours turns on, and none of our
 * policy layer. Same routes (lib/endpoints.ts), clients, scopes and claims tables, PKCE
 * required, resource indicators binding tokens to the origin, ES256 ID tokens, refresh
 * tokens on every code exchange rotated on every use, tokens not tied to the session, and
 * the same storage adapter as ours (oidc-provider's bundled MemoryAdapter is an LRU of 1000
 * that evicts live tokens under this load, so it would not be a fair baseline).
 *
 * Left out on purpose, because they are what ours adds: scope refusal, audience/site
 * policy, extra token claims (`org_id`, `roles`), client_secret_basic refusal, response
 * shaping, our UserInfo, CSP/CSRF pages.
 *
 * Two differences a bare provider forces:
 * - `defaultResource` is left unset, so a request that names no `resource` gets a token
 *   for oidc-provider's own UserInfo (which refuses resource-bound tokens); the login flow
 *   always sends `resource=<origin>`, so the tokens of every other scenario are bound like ours.
 * - the sign-in and consent pages are the minimal interaction of ./bare-interactions.ts.
 *
 * @module
 */
import Provider, { errors } from 'oidc-provider';
import type { Configuration, FindAccount } from 'oidc-provider';

import { createAccountStore, demoClients } from '../../examples/host/seed.ts';
import { SCOPE_CLAIMS } from '../../lib/claims.ts';
import { ENDPOINTS, providerRoutes } from '../../lib/endpoints.ts';
import { SCOPE_NAMES } from '../../lib/scopes/catalogue.ts';
import type { BuildServer, ServerEnv, ServerTarget } from '../lib/types.ts';
import { createBareInteractions } from './bare-interactions.ts';
import { mintAccessTokens } from './mint.ts';
import { OPERATOR_SECRET } from './ours.ts';

export const bareProvider: ServerTarget = {
  id: 'oidc-provider',
  label: 'bare oidc-provider',
  module: import.meta.url,
  export: 'buildBareProvider',
};

const DAY = 24 * 60 * 60;

function configuration(env: ServerEnv): Configuration {
  const accounts = createAccountStore();
  const findAccount: FindAccount = async (_ctx, sub) => {
    const account = await accounts.findById(sub);
    if (!account) return undefined;
    return {
      accountId: account.id,
      // the same claims ours returns for the demo member client
      claims: async () => ({
        sub: account.id, name: account.name, email: account.email,
        org_id: 'demo-school', roles: [...(account.roles['demo-school'] ?? [])],
      }),
    };
  };
  return {
    adapter: env.createAdapter(),
    // audience/org_id are our client metadata; a bare provider would reject them
    clients: demoClients(env.origin, OPERATOR_SECRET).map(({ audience: _a, org_id: _o, ...client }) => client),
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_post',
      id_token_signed_response_alg: 'ES256',
    },
    clientAuthMethods: ['none', 'client_secret_post'],
    responseTypes: ['code'],
    allowOmittingSingleRegisteredRedirectUri: false,
    pkce: { required: () => true },
    scopes: [...SCOPE_NAMES],
    claims: Object.fromEntries(Object.entries(SCOPE_CLAIMS).map(([k, v]) => [k, [...v]])),
    conformIdTokenClaims: false,
    cookies: { keys: [...env.cookieKeys] },
    jwks: env.jwks,
    enabledJWA: { idTokenSigningAlgValues: ['ES256'] },
    routes: providerRoutes(),
    features: {
      devInteractions: { enabled: false },
      dPoP: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      registration: { enabled: false },
      userinfo: { enabled: true },
      revocation: { enabled: true },
      introspection: { enabled: true },
      resourceIndicators: {
        enabled: true,
        useGrantedResource: async () => true,
        async getResourceServerInfo(_ctx, indicator, client) {
          if (indicator !== env.origin && indicator !== `${env.origin}/`) {
            throw new errors.InvalidTarget();
          }
          return { scope: client.scope ?? '', audience: env.origin, accessTokenTTL: 3600, accessTokenFormat: 'opaque' };
        },
      },
    },
    findAccount,
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: () => true,
    expiresWithSession: async () => false,
    ttl: {
      AccessToken: 3600,
      AuthorizationCode: 60,
      IdToken: 600,
      RefreshToken: 14 * DAY,
      Interaction: 3600,
      Session: 14 * DAY,
      Grant: 14 * DAY,
    },
    interactions: {
      url: (_ctx, interaction) => ENDPOINTS.interaction.path.replace(':uid', interaction.uid),
    },
  };
}

export const buildBareProvider: BuildServer = async (env) => {
  const provider = new Provider(env.origin, configuration(env));
  const providerListener = provider.callback();
  const interactions = createBareInteractions(provider, createAccountStore());
  const prefix = ENDPOINTS.interaction.path.replace(':uid', '');
  return {
    listener(req, res) {
      if (req.url?.startsWith(prefix)) interactions(req, res);
      else providerListener(req, res);
    },
    commands: { mintAccessTokens: mintAccessTokens(provider) },
    close: async () => {},
  };
};
