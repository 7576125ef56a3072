/**
 * bench/lib/callgrind-totals.ts: callgrind's `events:`/`totals:` lines read by name, summed
 * over dumps, and the cache misses weighed into estimated cycles (10 per first-level miss,
 * 200 per last-level one, as valgrind's cachegrind manual puts them).
 */
import { addTotals, estimatedCycles, parseCallgrindTotals } from '../../bench/lib/callgrind-totals.ts';

// the shape of a real dump of `--cache-sim=yes` (2026-11-29, a revocation on Redis)
const WITH_CACHES = `# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 4242
cmd:  node bench/lib/server-child.ts
events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw
fl= (1)
fn= (1)
0 3
summary: 1329827179 368101200 184428886 27738136 17816264 3568991 68258 64744 813189
totals: 1329827179 368101200 184428886 27738136 17816264 3568991 68258 64744 813189
`;

it('reads every counter by its name', () => {
  expect(parseCallgrindTotals(WITH_CACHES)).toEqual({
    Ir: 1329827179, Dr: 368101200, Dw: 184428886, I1mr: 27738136, D1mr: 17816264, D1mw: 3568991, ILmr: 68258, DLmr: 64744, DLmw: 813189,
  });
});

it('reads a dump without the cache simulation, and none from a file without totals', () => {
  expect(parseCallgrindTotals('events: Ir\ntotals: 1264311567\n')).toEqual({ Ir: 1264311567 });
  expect(parseCallgrindTotals('events: Ir\n')).toBeUndefined();
  expect(parseCallgrindTotals('events: Ir\ntotals: many\n')).toBeUndefined();
  // trailing zero counters may be left out
  expect(parseCallgrindTotals('events: Ir I1mr D1mr\ntotals: 10 2\n')).toEqual({ Ir: 10, I1mr: 2, D1mr: 0 });
});

it('sums the dumps of one server counter by counter', () => {
  expect(addTotals([{ Ir: 10, I1mr: 1 }, { Ir: 5, I1mr: 2, D1mr: 3 }])).toEqual({ Ir: 15, I1mr: 3, D1mr: 3 });
  expect(addTotals([])).toEqual({});
});

it('weighs first-level misses at 10 cycles and last-level ones at 200', () => {
  const totals = parseCallgrindTotals(WITH_CACHES)!;
  const { firstLevelMisses, lastLevelMisses, cycles } = estimatedCycles(totals);
  expect(firstLevelMisses).toBe(27738136 + 17816264 + 3568991);
  expect(lastLevelMisses).toBe(68258 + 64744 + 813189);
  expect(cycles).toBe(1329827179 + 10 * firstLevelMisses + 200 * lastLevelMisses);
});

it('refuses totals counted without the cache simulation rather than estimate from instructions alone', () => {
  expect(() => estimatedCycles({ Ir: 100 })).toThrow(/--cache-sim=yes/);
});
