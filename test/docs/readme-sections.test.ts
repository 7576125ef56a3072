/**
 * The code, the tests and the CHANGELOG point readers at README sections by name
 * (`README "Trace"`, `README, MCP → Discovery`); every name they use must be a heading of
 * README.md, so a renamed section cannot leave pointers to nothing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCANNED = ['lib', 'adapters', 'interactions', 'examples', 'scripts', 'test', 'bench', 'CHANGELOG.md'];
const THIS_FILE = fileURLToPath(import.meta.url);

/** The headings of a markdown text, fenced code left out (a shell comment is no heading). */
function headings(markdown: string): string[] {
  const withoutCode = markdown.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');
  return [...withoutCode.matchAll(/^#{1,6} (.+)$/gm)].map((m) => m[1]!.trim());
}

/** A name a pointer uses matches the heading it names, which may add a parenthesis or a subtitle. */
function names(heading: string, name: string): boolean {
  return heading === name || heading.startsWith(`${name} (`) || heading.startsWith(`${name}: `);
}

/** The section names `text` points at: `README "A", "B"`, `README's "A"`, `README, A → B`. */
function pointers(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/(?<![\w/.])README(?:'s)? ((?:"[^"\n]+"(?:,? (?:and )?)?)+)/g)) {
    for (const quoted of m[1]!.matchAll(/"([^"\n]+)"/g)) found.push(quoted[1]!);
  }
  for (const m of text.matchAll(/(?<![\w/.])README, ([A-Z][^.)\n]*)/g)) found.push(...m[1]!.split(' → ').map((part) => part.trim()));
  return found;
}

function files(path: string): string[] {
  const full = join(ROOT, path);
  if (/\.(ts|js|md)$/.test(path)) return [full];
  return readdirSync(full, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|js|md)$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((file) => !/[/\\](node_modules|dist)[/\\]/.test(file) && file !== THIS_FILE);
}

/** `file: name` for each pointer whose section does not exist. */
function danglingPointers(readme: string, sources: readonly { file: string; text: string }[]): string[] {
  const known = headings(readme);
  return sources.flatMap(({ file, text }) => pointers(text)
    .filter((name) => !known.some((heading) => names(heading, name)))
    .map((name) => `${file}: README "${name}"`));
}

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const sources = SCANNED.flatMap(files).map((file) => ({ file: relative(ROOT, file), text: readFileSync(file, 'utf8') }));

test('every README section the code, tests and CHANGELOG point at is a heading of README.md', () => {
  const all = sources.flatMap(({ text }) => pointers(text));
  // the scan finds pointers of both forms, among them the diagnostics sections of lib/index.ts
  expect(all).toEqual(expect.arrayContaining(['Events', 'Trace', 'Metrics', 'Sign-in options', 'MCP', 'Discovery']));
  expect(danglingPointers(README, sources)).toEqual([]);
});

test('a pointer to a missing section is reported, a heading in a code block does not count', () => {
  const source = { file: 'lib/x.ts', text: '// see README "Trace", "Nowhere" and (README, Storage → Redis Cluster)\n// README, Gone → Trace.' };
  expect(pointers(source.text)).toEqual(['Trace', 'Nowhere', 'Storage', 'Redis Cluster', 'Gone', 'Trace']);
  const readme = '# T\n## Trace\n## Storage (`adapters/`)\n```sh\n# Redis Cluster\n```\n### Redis Cluster: one slot per key\n```sh\n# Gone\n```\n';
  expect(danglingPointers(readme, [source])).toEqual(['lib/x.ts: README "Nowhere"', 'lib/x.ts: README "Gone"']);
  expect(pointers('see bench/README "Results" and READMEs')).toEqual([]);
});
