/**
 * Finds the scenarios: every `.ts` file directly in bench/scenarios/ default-exports one.
 *
 * @module
 */
import { readdirSync } from 'node:fs';

import type { AdapterKind, Scenario, StorageKind } from './types.ts';

const DIR = new URL('../scenarios/', import.meta.url);

function assertScenario(value: unknown, file: string): asserts value is Scenario {
  const s = value as Partial<Scenario> | undefined;
  const problems = [
    typeof s?.id !== 'string' && 'id',
    typeof s?.prepare !== 'function' && 'prepare()',
    !s?.ours && 'ours',
    !(Array.isArray(s?.baselines) && s.baselines.length > 0) && 'baselines (at least one)',
    typeof s?.usesStorage !== 'boolean' && 'usesStorage',
    s?.storages !== undefined && !(s.usesStorage === true && Array.isArray(s.storages) && s.storages.length > 0
      && s.storages.every((a) => a === 'memory' || a === 'redis')) && 'storages (with usesStorage, some of memory, redis)',
  ].filter(Boolean);
  if (problems.length) {
    throw new Error(`bench/scenarios/${file} must default-export a Scenario (bench/lib/types.ts); missing: ${problems.join(', ')}`);
  }
}

/**
 * The storages `scenario` runs on when `--adapter` selects `adapters`: `none` once for a
 * scenario that never reaches storage; none at all for one whose `storages` are not selected.
 */
export function storagesOf(scenario: Pick<Scenario, 'usesStorage' | 'storages'>, adapters: readonly AdapterKind[]): StorageKind[] {
  if (!scenario.usesStorage) return ['none'];
  return adapters.filter((adapter) => !scenario.storages || scenario.storages.includes(adapter));
}

export async function discoverScenarios(): Promise<Scenario[]> {
  const files = readdirSync(DIR).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')).sort();
  const scenarios: Scenario[] = [];
  for (const file of files) {
    const module = await import(new URL(file, DIR).href) as { default?: unknown };
    assertScenario(module.default, file);
    scenarios.push(module.default);
  }
  const ids = new Set<string>();
  for (const s of scenarios) {
    if (ids.has(s.id)) throw new Error(`two scenarios have the id ${s.id}`);
    ids.add(s.id);
  }
  return scenarios.sort((a, b) => a.order - b.order || a.id.localeCompare(b.id));
}
