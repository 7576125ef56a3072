/**
 * Accounts beyond the demo's seed, for tests of the audience rules: one operator of two sites.
 */
import { createAccountStore } from '../../examples/host/seed.ts';
import type { Account, AccountStore } from '../../lib/index.ts';

/** Owner at demo-school, admin and lecturer at other-school; signs in with password `multi`. */
export const MULTI_SITE_OPERATOR: Account = {
  id: 'acc-multi', email: 'multi@example.com', name: 'Mo Multi',
  roles: { 'demo-school': ['owner'], 'other-school': ['admin', 'lecturer'] },
};

/** The demo accounts plus {@link MULTI_SITE_OPERATOR}. */
export function accountsWithMultiSiteOperator(): AccountStore {
  const base = createAccountStore();
  return {
    authenticate: async (email, password) => (email === MULTI_SITE_OPERATOR.email && password === 'multi' ? MULTI_SITE_OPERATOR : base.authenticate(email, password)),
    findById: async (id) => (id === MULTI_SITE_OPERATOR.id ? MULTI_SITE_OPERATOR : base.findById(id)),
  };
}
