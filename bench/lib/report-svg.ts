/**
 * bench/results/*.svg: one group per scenario and storage, ours beside its baselines.
 * Each group is scaled to its own largest bar, because throughputs span two orders of
 * magnitude (login flows vs Koa hello): bar lengths compare within a group, which is where
 * the ratios are; the printed figures give the absolute values.
 *
 * @module
 */
import type { BenchResults } from './results.ts';

const WIDTH = 880;
const LABEL_W = 250;
const BAR_W = 420;
const BAR_H = 16;
const GAP = 4;
const GROUP_GAP = 14;
const TITLE_H = 18;
const COLORS = ['#2b6cb0', '#a0aec0', '#718096', '#cbd5e0'];

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const int = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

export function renderSvg(results: BenchResults): string {
  const parts: string[] = [];
  let y = 50;
  for (const result of results.scenarios) {
    if (!result.subjects.length) continue;
    const max = Math.max(...result.subjects.map((s) => s.medianThroughput), 1);
    const ratio = result.ratios[0];
    parts.push(`<text x="10" y="${y + 13}" class="title">${escape(result.storage === 'none' ? result.title : `${result.title} (${result.storage})`)}</text>`);
    if (ratio) {
      // green or red when the issue holds this ratio to a target
      const held = results.targets.find((t) => t.scenario === result.id && t.storage === result.storage && t.target.startsWith(`ours/${ratio.against}`));
      const color = held?.status === 'met' ? '#2f855a' : held?.status === 'missed' ? '#c53030' : '#2b6cb0';
      const mark = held?.status === 'met' ? ' ✓' : held?.status === 'missed' ? ` ✗ (target ${held.target.split('≥ ')[1]})` : '';
      parts.push(`<text x="${WIDTH - 10}" y="${y + 13}" class="ratio" fill="${color}" style="fill:${color}" text-anchor="end">ours/${escape(ratio.against)} ${ratio.median.toFixed(2)}${escape(mark)}</text>`);
    }
    y += TITLE_H;
    // an absolute target (login flows/s) is marked beside ours' figure
    const absolute = results.targets.find((t) => t.scenario === result.id && t.storage === result.storage && t.target.startsWith('≥'));
    result.subjects.forEach((subject, i) => {
      const w = Math.max(1, (subject.medianThroughput / max) * BAR_W);
      const value = `${result.unit === 'flows/s' ? subject.medianThroughput.toFixed(1) : int.format(subject.medianThroughput)} ${result.unit}`;
      const mark = i === 0 && absolute && absolute.status !== 'not measured'
        ? `<tspan fill="${absolute.status === 'met' ? '#2f855a' : '#c53030'}" style="fill:${absolute.status === 'met' ? '#2f855a' : '#c53030'}" font-weight="600">${escape(` ${absolute.status === 'met' ? '✓' : '✗'} (target ${absolute.target})`)}</tspan>`
        : '';
      parts.push(
        `<text x="${LABEL_W - 8}" y="${y + 12}" text-anchor="end">${escape(subject.label)}</text>`,
        `<rect x="${LABEL_W}" y="${y}" width="${w.toFixed(1)}" height="${BAR_H}" fill="${COLORS[Math.min(i, COLORS.length - 1)]}"><title>${escape(`${subject.label}: ${value}`)}</title></rect>`,
        `<text x="${(LABEL_W + w + 6).toFixed(1)}" y="${y + 12}">${escape(value)}${mark}</text>`,
      );
      y += BAR_H + GAP;
    });
    y += GROUP_GAP;
  }
  const height = y + 10;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="system-ui, sans-serif" font-size="12">`,
    '<style>.title{font-weight:600}.ratio{font-weight:600}text{fill:#1a202c}</style>',
    `<rect width="${WIDTH}" height="${height}" fill="#fff"/>`,
    `<text x="10" y="20" class="title" font-size="14">${escape(`Median throughput per scenario (${results.mode} run, ${results.startedAt.slice(0, 16)}Z)`)}</text>`,
    `<rect x="10" y="30" width="12" height="10" fill="${COLORS[0]}"/><text x="26" y="39">platform-auth</text>`,
    `<rect x="120" y="30" width="12" height="10" fill="${COLORS[1]}"/><text x="136" y="39">baseline (each group scaled to its largest bar)</text>`,
    ...parts,
    '</svg>',
    '',
  ].join('\n');
}
