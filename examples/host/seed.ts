/**
 * The demo seed: two sites, three accounts, two clients, a small catalogue and the
 * student's enrolments, orders and event registrations. Documented in the README.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

import type { Account, AccountStore, Site, SiteStore, StaticClient } from '../../lib/index.ts';

export const SITES: readonly Site[] = [
  { id: 'demo-school', name: 'Demo School' },
  { id: 'other-school', name: 'Other School' },
];

interface DemoAccount extends Account {
  readonly password: string;
}

const ACCOUNTS: readonly DemoAccount[] = [
  { id: 'acc-student', email: 'student@example.com', name: 'Sam Student', password: 'student', roles: { 'demo-school': ['student'] } },
  { id: 'acc-admin', email: 'admin@example.com', name: 'Ada Admin', password: 'admin', roles: { 'demo-school': ['admin'] } },
  { id: 'acc-outsider', email: 'outsider@example.com', name: 'Otto Outsider', password: 'outsider', roles: { 'other-school': ['student'] } },
];

// A demo only: a real host verifies a slow password hash (scrypt, argon2) here.
const sha256 = (value: string) => createHash('sha256').update(value).digest();

function publicAccount({ password: _password, ...account }: DemoAccount): Account {
  return account;
}

/** @param options.digest - how passwords are hashed (SHA-256 by default; tests count its calls) */
export function createAccountStore({ digest = sha256 }: { digest?: (password: string) => Buffer } = {}): AccountStore {
  const byEmail = new Map(ACCOUNTS.map((a) => [a.email.toLowerCase(), { account: a, hash: digest(a.password) }]));
  const byId = new Map(ACCOUNTS.map((a) => [a.id, publicAccount(a)]));
  // what an unknown email's password is compared with, hashed once here
  const noAccount = digest(randomBytes(32).toString('base64url'));
  return {
    async authenticate(email, password) {
      const entry = byEmail.get(email.trim().toLowerCase());
      // one hash per sign-in, known email or not, so timing does not reveal which accounts exist
      const given = digest(password);
      const ok = timingSafeEqual(given, entry?.hash ?? noAccount) && entry !== undefined;
      return ok ? publicAccount(entry.account) : undefined;
    },
    async findById(id) {
      return byId.get(id);
    },
  };
}

export function createSiteStore(): SiteStore {
  const byId = new Map(SITES.map((s) => [s.id, s]));
  return { findById: async (id) => byId.get(id) };
}

export const MEMBER_CLIENT_ID = 'demo-member-app';
export const OPERATOR_CLIENT_ID = 'demo-operator-app';
/** the vendor platform Variant A registration hands out for `client_name: "Acme LMS"` */
export const VENDOR_CLIENT_ID = 'acme-lms';
/** sites with the "MCP connections" beta, where operators may create member clients */
export const BETA_SITES: readonly string[] = ['demo-school'];

export function demoClients(baseUrl: string, operatorSecret: string): StaticClient[] {
  return [
    {
      client_id: MEMBER_CLIENT_ID,
      client_name: 'Demo Member App',
      application_type: 'native',
      token_endpoint_auth_method: 'none',
      // loopback: any port is accepted (RFC 8252 §7.3)
      redirect_uris: ['http://127.0.0.1/callback'],
      scope: 'openid profile email account:read',
      audience: 'member',
      org_id: 'demo-school',
    },
    {
      client_id: OPERATOR_CLIENT_ID,
      client_name: 'Demo Operator App',
      client_secret: operatorSecret,
      token_endpoint_auth_method: 'client_secret_post',
      redirect_uris: [`${baseUrl}/demo/callback`],
      audience: 'operator',
    },
    {
      client_id: VENDOR_CLIENT_ID,
      client_name: 'Acme LMS',
      // a public vendor client: the integration runs on the operator's machine with PKCE
      token_endpoint_auth_method: 'none',
      application_type: 'native',
      redirect_uris: ['http://127.0.0.1/acme/callback'],
      audience: 'operator',
    },
  ];
}
