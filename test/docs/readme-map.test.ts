// README's "Where things are" map stays true: every module it names exists, and every policy
// module (lib/policies/*.ts) is named, so a new rule cannot land without a home in the map.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`README has no "${heading}" section`);
  const rest = markdown.slice(start + heading.length + 2);
  const end = rest.search(/\n## /);
  return end < 0 ? rest : rest.slice(0, end);
}

/** The problems of a map: named files that do not exist, and policy modules it leaves out. */
function mapProblems(map: string, exists: (path: string) => boolean, policies: readonly string[]): string[] {
  const named = [...new Set([...map.matchAll(/`((?:lib|adapters|interactions|examples|scripts|test)\/[\w./-]+\.ts)`/g)].map((m) => m[1]!))];
  const problems = named.filter((path) => !exists(path)).map((path) => `${path} does not exist`);
  for (const policy of policies) {
    if (!named.includes(policy)) problems.push(`${policy} is not in the map`);
  }
  if (named.length === 0) problems.push('the map names no module');
  return problems;
}

const policies = readdirSync(join(ROOT, 'lib', 'policies')).filter((f) => f.endsWith('.ts')).map((f) => `lib/policies/${f}`);
const existsInRepo = (path: string) => existsSync(join(ROOT, path));

test('every module in the map exists and every policy module is in it', () => {
  expect(policies.length).toBeGreaterThan(10);
  expect(mapProblems(section(README, '## Where things are'), existsInRepo, policies)).toEqual([]);
});

test('every policy module has its unit test at the mirrored path', () => {
  // provider-answer.ts holds types only
  const untested = policies.filter((p) => !p.endsWith('/provider-answer.ts'))
    .map((p) => p.replace(/^lib\//, 'test/').replace(/\.ts$/, '.test.ts'))
    .filter((test) => !existsInRepo(test));
  expect(untested).toEqual([]);
});

test('the check fails for a missing file and for a policy left out', () => {
  const map = section(README, '## Where things are');
  const broken = map.replaceAll('`lib/policies/refresh.ts`', '`lib/policies/refresh-tokens.ts`');
  expect(mapProblems(broken, existsInRepo, policies)).toEqual([
    'lib/policies/refresh-tokens.ts does not exist',
    'lib/policies/refresh.ts is not in the map',
  ]);
});
