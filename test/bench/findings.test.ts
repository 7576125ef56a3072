/**
 * A bench report quotes a profiled cause next to a miss only when the cause was measured on
 * the commit under test; otherwise it says it was not profiled on this commit (a cause found
 * on older code may have been fixed since).
 */
import { FINDINGS } from '../../bench/findings.ts';
import { findingFor } from '../../bench/lib/targets.ts';

const findings = { 'refresh/ratio': { commit: 'abc1234', note: 'the grant index is rewritten at every consent' } };

describe('findingFor', () => {
  it('quotes a finding measured on the commit under test', () => {
    expect(findingFor('refresh/ratio', 'abc1234', findings)).toBe('Profiled: the grant index is rewritten at every consent');
    expect(findingFor('refresh/ratio', 'abc1234567', findings)).toMatch(/^Profiled: /);
  });

  it('does not quote a finding of another commit, and says so', () => {
    const text = findingFor('refresh/ratio', 'def5678', findings);
    expect(text).toBe('Not profiled on this commit (the last profile, on abc1234, may no longer apply).');
    expect(text).not.toContain('grant index');
    expect(findingFor('refresh/ratio', undefined, findings)).toMatch(/^Not profiled on this commit/);
  });

  it('has nothing for a scenario without a finding', () => {
    expect(findingFor('login/throughput', 'abc1234', findings)).toBeUndefined();
  });

  it('every recorded finding names the commit it was measured on', () => {
    for (const [key, finding] of Object.entries(FINDINGS)) {
      expect([key, /^[0-9a-f]{7,40}$/.test(finding.commit)]).toEqual([key, true]);
      expect(finding.note).toContain(finding.commit);
    }
  });
});
