/**
 * `npm run bench` options: the async-context-frame switch that prices oidc-provider's
 * AsyncLocalStorage promise hooks (bench/lib/settings.ts).
 */
import { parseSettings } from '../../bench/lib/settings.ts';
import type { Settings } from '../../bench/lib/settings.ts';

it('runs the servers as Node 22 does by default unless --async-context-frame is given', () => {
  expect((parseSettings([]) as Settings).asyncContextFrame).toBe(false);
  expect((parseSettings(['--async-context-frame', '--only', 'refresh']) as Settings)).toMatchObject({ asyncContextFrame: true, only: ['refresh'] });
  expect(() => parseSettings(['--async-context-frames'])).toThrow('unknown option --async-context-frames');
});
