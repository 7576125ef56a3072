/**
 * README.md's event and metric tables are generated from the code by
 * scripts/diagnostics-tables.ts. This fails when an event, a field of one, a metric or an
 * endpoint label changed without the tables being regenerated (`npm run docs:diagnostics`).
 */
import { readFileSync } from 'node:fs';

import { EVENT_NAMES } from '../../lib/events/types.ts';
import { ENDPOINT_LABELS } from '../../lib/metrics/endpoint-label.ts';
import { METRICS } from '../../lib/metrics/instruments.ts';
import {
  checkReadme, collectEndpointLabels, collectEvents, collectMetrics, EVENT_WHEN, generateSections, OUT_OF_DATE, README_PATH,
  renderEvents, replaceSections, SECTIONS,
} from '../../scripts/diagnostics-tables.ts';
import type { EventRow, MetricRow, SectionName } from '../../scripts/diagnostics-tables.ts';

const readme = readFileSync(README_PATH, 'utf8');
let sections: Record<SectionName, string>;
let events: EventRow[];
let metrics: MetricRow[];

beforeAll(() => {
  sections = generateSections();
  events = collectEvents();
  metrics = collectMetrics();
});

describe('README event and metric tables', () => {
  it('are what scripts/diagnostics-tables.ts generates from the code', () => {
    // throws OUT_OF_DATE, which says how to fix it
    checkReadme(readme, sections);
  });

  it('the check fails on a README that differs', () => {
    const renamed = readme.replace('| `code.replayed` |', '| `code.reused` |');
    expect(renamed).not.toBe(readme);
    expect(() => checkReadme(renamed, sections)).toThrow(OUT_OF_DATE);
    // a value added to an event type, the README not regenerated
    const withNewField = { ...sections, events: sections.events.replace('`tokenType`: `access_token`, `refresh_token`', '`tokenType`: `access_token`, `refresh_token`, `id_token`') };
    expect(() => checkReadme(readme, withNewField)).toThrow(OUT_OF_DATE);
    expect(() => checkReadme(readme, { ...sections, metrics: sections.metrics.replace('platform_auth.errors', 'platform_auth.failures') })).toThrow(OUT_OF_DATE);
    expect(() => checkReadme(readme.replace(SECTIONS.metrics.end, ''), sections)).toThrow(/needs <!-- metrics-table:start -->/);
  });

  it('keeps the prose around the markers', () => {
    const { events: e, metrics: m } = SECTIONS;
    const replaced = replaceSections(`a\n${e.start}\nold\n${e.end}\nb\n${m.start}\n${m.end}\nc\n`, { events: '| e |', metrics: '| m |' });
    expect(replaced).toBe(`a\n${e.start}\n${e.note}\n\n| e |\n${e.end}\nb\n${m.start}\n${m.note}\n\n| m |\n${m.end}\nc\n`);
  });
});

describe('the event rows', () => {
  const row = (name: string) => events.find((r) => r.name === name)!;

  it('are the events of EVENT_NAMES, in its order, each with when it happens', () => {
    expect(events.map((r) => r.name)).toEqual([...EVENT_NAMES]);
    expect(Object.keys(EVENT_WHEN).sort()).toEqual([...EVENT_NAMES].sort());
    expect(events.every((r) => r.when.length > 10)).toBe(true);
  });

  it('carry the fields of each event type, with their fixed values spelled out', () => {
    expect(row('code.issued').carries).toEqual([]);
    expect(row('signin.failed').carries).toEqual([{ field: 'reason', values: ['credentials', 'incomplete'] }]);
    expect(row('signin.throttled').carries).toEqual([{ field: 'retryAfter' }]);
    // through the type alias, in the order written
    const reason = row('access.refused').carries.find((c) => c.field === 'reason')!;
    expect(reason.values?.[0]).toBe('no_token');
    expect(reason.values).toContain('other_audience');
    expect(row('access.refused').carries.map((c) => c.field)).toEqual(['endpoint', 'status', 'reason', 'error', 'description', 'scope']);
    expect(row('metadata_document.failed').carries[0]).toEqual({
      field: 'reason', values: expect.arrayContaining(['host_not_allowed', 'dns', 'refused_address', 'timeout', 'network']),
    });
  });

  it('render fields and values as code, a row per event', () => {
    const table = renderEvents([{ name: 'a.b', when: 'x | y', carries: [{ field: 'f', values: ['1', '2'] }, { field: 'g' }] }]);
    expect(table.split('\n')[2]).toBe('| `a.b` | x \\| y | `f`: `1`, `2`; `g` |');
  });
});

describe('the metric rows', () => {
  it('are the metrics of METRICS, each with the instrument createInstruments() makes', () => {
    expect(metrics.map((m) => m.name)).toEqual(Object.values(METRICS).map((m) => m.name));
    expect(metrics.filter((m) => m.instrument === 'histogram').map((m) => m.name)).toEqual([METRICS.requestDuration.name]);
    expect(metrics.find((m) => m.name === METRICS.tokensRevoked.name)).toMatchObject({
      instrument: 'counter', unit: METRICS.tokensRevoked.unit, attributes: ['token_type', 'reason'], description: METRICS.tokensRevoked.description,
    });
  });

  it('list every value of the endpoint attribute', () => {
    const labels = collectEndpointLabels();
    for (const label of Object.values(ENDPOINT_LABELS)) expect(labels).toContain(label);
    expect(labels).toEqual(expect.arrayContaining(['userinfo', 'account_api', 'mcp', 'host', 'other']));
    expect(new Set(labels).size).toBe(labels.length);
    expect(sections.metrics).toContain(`\`endpoint\` is one of ${labels.map((l) => `\`${l}\``).join(', ')}.`);
  });
});
