/**
 * lib/policies/audience.ts without HTTP: who a client acts for, which site a member client
 * belongs to, and which sites an account may authorize a client for.
 */
import type { Account } from '../../lib/contracts.ts';
import {
  checkEligibility, clientAudience, memberClientSite, operatorSites, rolesAt,
} from '../../lib/policies/audience.ts';

const OPERATOR_ROLES = ['owner', 'admin'] as const;

function account(roles: Record<string, string[]>): Account {
  return { id: 'acc-1', email: 'a@example.com', name: 'Ada', roles };
}

const memberClient = { clientId: 'member-app', audience: 'member', org_id: 'site-b' };
const operatorClient = { clientId: 'operator-app', audience: 'operator' };

describe('clientAudience', () => {
  it('is member only for audience "member"', () => {
    expect(clientAudience(memberClient)).toBe('member');
  });

  it.each([
    ['operator', 'operator'],
    ['absent', undefined],
    ['an unknown value', 'students'],
    ['a non-string', 1],
    ['a differently cased "member"', 'Member'],
  ])('is operator when audience is %s', (_label, audience) => {
    expect(clientAudience({ clientId: 'c', audience })).toBe('operator');
  });
});

describe('memberClientSite', () => {
  it('is the org_id of a member client', () => {
    expect(memberClientSite(memberClient)).toBe('site-b');
  });

  it('is undefined for an operator client even with an org_id', () => {
    expect(memberClientSite({ clientId: 'c', audience: 'operator', org_id: 'site-b' })).toBeUndefined();
    expect(memberClientSite({ clientId: 'c', org_id: 'site-b' })).toBeUndefined();
  });

  it('is undefined for a member client whose org_id is missing or not a string', () => {
    expect(memberClientSite({ clientId: 'c', audience: 'member' })).toBeUndefined();
    expect(memberClientSite({ clientId: 'c', audience: 'member', org_id: 42 })).toBeUndefined();
  });
});

describe('operatorSites', () => {
  it('lists the sites with an operator role, sorted', () => {
    const a = account({ 'site-z': ['admin'], 'site-a': ['student', 'owner'], 'site-m': ['student'], 'site-c': ['admin'] });
    expect(operatorSites(a, OPERATOR_ROLES)).toEqual(['site-a', 'site-c', 'site-z']);
  });

  it('is empty for an account with no operator role anywhere', () => {
    expect(operatorSites(account({ 'site-a': ['student'], 'site-b': [] }), OPERATOR_ROLES)).toEqual([]);
  });

  it('reads which roles count from its argument', () => {
    const a = account({ 'site-a': ['lecturer'], 'site-b': ['admin'] });
    expect(operatorSites(a, ['lecturer'])).toEqual(['site-a']);
    expect(operatorSites(a, [])).toEqual([]);
  });
});

describe('rolesAt', () => {
  const a = account({ 'site-a': ['student', 'admin'] });

  it('returns the roles at a site as a copy', () => {
    const roles = rolesAt(a, 'site-a');
    expect(roles).toEqual(['student', 'admin']);
    roles.push('owner');
    expect(a.roles['site-a']).toEqual(['student', 'admin']);
  });

  it('is empty for an unknown site, no site, or an inherited property name', () => {
    expect(rolesAt(a, 'site-x')).toEqual([]);
    expect(rolesAt(a, undefined)).toEqual([]);
    expect(rolesAt(a, '')).toEqual([]);
    expect(rolesAt(a, 'constructor')).toEqual([]);
    expect(rolesAt(a, '__proto__')).toEqual([]);
  });
});

describe('checkEligibility', () => {
  describe('member client', () => {
    it('allows a student of its site, for that site only', () => {
      const a = account({ 'site-b': ['student'], 'site-c': ['admin'] });
      expect(checkEligibility(memberClient, a, OPERATOR_ROLES)).toEqual({ allowed: true, sites: ['site-b'] });
    });

    it('allows an operator of its site', () => {
      expect(checkEligibility(memberClient, account({ 'site-b': ['admin'] }), OPERATOR_ROLES))
        .toEqual({ allowed: true, sites: ['site-b'] });
    });

    it('refuses an account with no role at its site, even an operator elsewhere', () => {
      const result = checkEligibility(memberClient, account({ 'site-a': ['owner'], 'site-b': [] }), OPERATOR_ROLES);
      expect(result).toEqual({ allowed: false, reason: expect.stringMatching(/school you are not a member of/) });
    });

    it('refuses everyone when the member client has no site', () => {
      const result = checkEligibility({ clientId: 'c', audience: 'member' }, account({ 'site-b': ['admin'] }), OPERATOR_ROLES);
      expect(result.allowed).toBe(false);
    });
  });

  describe('operator client', () => {
    it('allows the sites where the account holds an operator role, sorted', () => {
      const a = account({ 'site-c': ['owner'], 'site-a': ['admin'], 'site-b': ['student'] });
      expect(checkEligibility(operatorClient, a, OPERATOR_ROLES)).toEqual({ allowed: true, sites: ['site-a', 'site-c'] });
    });

    it('ignores org_id on an operator client', () => {
      const a = account({ 'site-a': ['admin'] });
      expect(checkEligibility({ clientId: 'c', audience: 'operator', org_id: 'site-b' }, a, OPERATOR_ROLES))
        .toEqual({ allowed: true, sites: ['site-a'] });
    });

    it('refuses a student-only account', () => {
      const result = checkEligibility(operatorClient, account({ 'site-a': ['student'] }), OPERATOR_ROLES);
      expect(result).toEqual({ allowed: false, reason: expect.stringMatching(/for school administrators/) });
    });

    it('treats a client without audience as an operator client', () => {
      const result = checkEligibility({ clientId: 'c' }, account({ 'site-a': ['student'] }), OPERATOR_ROLES);
      expect(result).toEqual({ allowed: false, reason: expect.stringMatching(/for school administrators/) });
    });
  });
});
