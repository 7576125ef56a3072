/**
 * Generates README.md's options table from the option declarations, so the table, the TSDoc
 * and the defaults cannot drift apart.
 *
 * It walks `PlatformAuthOptions` (lib/config/options.ts) with the TypeScript compiler API,
 * descending into every property whose type is an interface declared in an `options.ts` file
 * (`ttl` → TokenLifetimes, `mcp` → McpOptions, `docs.openapi` → OpenApiOptions, …), and
 * writes one row per option: its path, its declared type, its default and its TSDoc.
 *
 * The default comes from the `@default` tag. `{@link NAME}` or `{@link NAME}.a.b` is
 * resolved to the exported constant the validator reads, and its runtime value is printed;
 * anything else is prose, printed as written. Every optional option must have a `@default`
 * (options that only group others may leave it out).
 *
 *   node scripts/options-table.ts           print the table
 *   node scripts/options-table.ts --check   exit 1 when README.md is out of date
 *   node scripts/options-table.ts --write   rewrite README.md between the markers
 *
 * test/config/options-table.test.ts fails when README.md is out of date.
 *
 * @module
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import ts from 'typescript';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const README_PATH = join(ROOT, 'README.md');
export const START_MARKER = '<!-- options-table:start -->';
export const END_MARKER = '<!-- options-table:end -->';
export const OUT_OF_DATE = 'README options table is out of date: run node scripts/options-table.ts --write';

const ENTRY = join(ROOT, 'lib/config/options.ts');
const ROOT_INTERFACE = 'PlatformAuthOptions';
const NOTE = '<!-- Generated from the TSDoc of PlatformAuthOptions (lib/config/options.ts) by '
  + '`node scripts/options-table.ts --write`: edit the TSDoc, not this table. -->';

export interface OptionRow {
  /** `ttl.accessToken` */
  readonly path: string;
  /** the declared type, as written */
  readonly type: string;
  /** the default, resolved */
  readonly default: string;
  readonly description: string;
}

/** A `@default {@link NAME}.a.b`: where the constant is declared and the path into it. */
interface DefaultLink {
  readonly file: string;
  readonly name: string;
  readonly path: readonly string[];
  /** prose after the link, if any */
  readonly rest: string;
}

interface RawRow {
  readonly path: string;
  readonly type: string;
  readonly default: string | DefaultLink;
  readonly description: string;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** `a.b.c` of a link's name, whatever node spells it. */
function nameParts(node: ts.Node): string[] {
  if (ts.isIdentifier(node)) return [node.text];
  if (ts.isQualifiedName(node)) return [...nameParts(node.left), node.right.text];
  if (ts.isPropertyAccessExpression(node)) return [...nameParts(node.expression), node.name.text];
  if (ts.isJSDocMemberName(node)) return [...nameParts(node.left), node.right.text];
  return [node.getText()];
}

function leftmost(node: ts.Node): ts.Node {
  if (ts.isQualifiedName(node) || ts.isJSDocMemberName(node)) return leftmost(node.left);
  if (ts.isPropertyAccessExpression(node)) return leftmost(node.expression);
  return node;
}

function isLink(node: ts.Node): node is ts.JSDocLink | ts.JSDocLinkCode | ts.JSDocLinkPlain {
  return ts.isJSDocLink(node) || ts.isJSDocLinkCode(node) || ts.isJSDocLinkPlain(node);
}

/** TSDoc text with `{@link X}` as `X` in code. */
function commentText(comment: string | readonly ts.JSDocComment[] | undefined): string {
  if (comment === undefined) return '';
  if (typeof comment === 'string') return comment;
  return comment.map((part) => {
    if (!isLink(part)) return part.text;
    const name = part.name ? nameParts(part.name).join('.') : '';
    return part.text.trim() ? part.text.trim() : `\`${name}\``;
  }).join('');
}

class Walker {
  readonly #checker: ts.TypeChecker;

  constructor(checker: ts.TypeChecker) {
    this.#checker = checker;
  }

  walk(decl: ts.InterfaceDeclaration, prefix: string, rows: RawRow[]): RawRow[] {
    if (decl.heritageClauses?.length) throw new Error(`options-table: ${decl.name.text} extends another type; list its options in it instead`);
    for (const member of decl.members) {
      if (!ts.isPropertySignature(member) || !member.type) {
        throw new Error(`options-table: ${prefix}${member.name?.getText() ?? '?'} is not a property with a type`);
      }
      const path = `${prefix}${member.name.getText()}`;
      const doc = ts.getJSDocCommentsAndTags(member).filter(ts.isJSDoc).at(-1);
      const nested = this.#nestedOptions(member.type);
      const tag = doc?.tags?.find((t) => t.tagName.text === 'default');
      let value: RawRow['default'];
      if (tag) value = this.#defaultOf(path, tag);
      else if (!member.questionToken) value = 'required';
      else if (nested) value = '—';
      else throw new Error(`options-table: ${path} has no @default; add one to its TSDoc`);
      rows.push({
        path,
        type: oneLine(member.type.getText()),
        default: value,
        description: oneLine(commentText(doc?.comment)),
      });
      if (nested) this.walk(nested, `${path}.`, rows);
    }
    return rows;
  }

  /** The options interface a property holds (`McpOptions` of `McpOptions | false`), if any. */
  #nestedOptions(typeNode: ts.TypeNode): ts.InterfaceDeclaration | undefined {
    const type = this.#checker.getTypeFromTypeNode(typeNode);
    const found = (type.isUnion() ? type.types : [type])
      .flatMap((part) => part.getSymbol()?.declarations ?? [])
      .filter(ts.isInterfaceDeclaration)
      .filter((d) => basename(d.getSourceFile().fileName) === 'options.ts');
    if (found.length > 1) throw new Error(`options-table: ${typeNode.getText()} names more than one options interface`);
    return found[0];
  }

  #defaultOf(path: string, tag: ts.JSDocTag): string | DefaultLink {
    const comment = tag.comment;
    if (comment === undefined) throw new Error(`options-table: the @default of ${path} is empty`);
    // the parser puts an empty text before a leading link
    const parts = typeof comment === 'string' ? [] : comment.filter((part) => isLink(part) || part.text !== '');
    const [link, ...after] = parts;
    if (!link || !isLink(link)) return oneLine(commentText(comment));
    if (!link.name) throw new Error(`options-table: the @default of ${path} links to nothing`);
    let symbol = this.#checker.getSymbolAtLocation(leftmost(link.name));
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = this.#checker.getAliasedSymbol(symbol);
    const declaration = symbol?.valueDeclaration;
    const [name, ...inside] = nameParts(link.name);
    if (!symbol || !declaration || !ts.isVariableDeclaration(declaration)) {
      throw new Error(`options-table: the @default of ${path}, {@link ${name}}, does not name a constant in scope; import it (import type is enough)`);
    }
    const rest = commentText(after);
    const [, dotted = '', prose = ''] = /^((?:\.[A-Za-z_$][\w$]*)*)(.*)$/s.exec(rest) ?? [];
    return {
      file: declaration.getSourceFile().fileName,
      name: symbol.name,
      path: [...inside, ...dotted.split('.').filter(Boolean)],
      rest: oneLine(prose),
    };
  }
}

/** The rows of the table, defaults still unresolved. */
function collectRows(): RawRow[] {
  const config = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.json'), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n')); },
  });
  if (!config) throw new Error('options-table: cannot read tsconfig.json');
  const program = ts.createProgram({ rootNames: [ENTRY], options: { ...config.options, noEmit: true } });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(ENTRY);
  const root = source?.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === ROOT_INTERFACE);
  if (!root) throw new Error(`options-table: ${ROOT_INTERFACE} is not declared in lib/config/options.ts`);
  return new Walker(checker).walk(root, '', []);
}

/** A default value the way the TSDoc would write it: `['owner', 'admin']`, `{ a: 1 }`. */
export function formatValue(value: unknown): string {
  if (typeof value === 'string') return `'${value.replace(/'/g, '\\\'')}'`;
  if (Array.isArray(value)) return `[${value.map(formatValue).join(', ')}]`;
  if (typeof value === 'function') return 'a function';
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    return entries.length ? `{ ${entries.map(([k, v]) => `${k}: ${formatValue(v)}`).join(', ')} }` : '{}';
  }
  return String(value);
}

/** `From <min> to <max> (<unit>).` when a linked default sits in a range constant ({ min, max, default }). */
async function rangeOf(value: string | DefaultLink): Promise<string | undefined> {
  if (typeof value === 'string' || value.path.at(-1) !== 'default') return undefined;
  const module = await import(pathToFileURL(value.file).href) as Record<string, unknown>;
  let current: unknown = module[value.name];
  for (const key of value.path.slice(0, -1)) current = (current as Record<string, unknown> | undefined)?.[key];
  const range = current as { min?: unknown; max?: unknown; unit?: unknown } | undefined;
  if (typeof range?.min !== 'number' || typeof range.max !== 'number') return undefined;
  return `From ${range.min} to ${range.max}${typeof range.unit === 'string' && range.unit ? ` ${range.unit}` : ''}.`;
}

async function resolveDefault(path: string, value: string | DefaultLink): Promise<string> {
  if (typeof value === 'string') return value;
  const module = await import(pathToFileURL(value.file).href) as Record<string, unknown>;
  if (!(value.name in module)) throw new Error(`options-table: the @default of ${path}: ${value.file} does not export ${value.name}`);
  let current: unknown = module[value.name];
  for (const key of value.path) {
    if (current === null || typeof current !== 'object' || !(key in current)) {
      throw new Error(`options-table: the @default of ${path}: ${[value.name, ...value.path].join('.')} does not exist`);
    }
    current = (current as Record<string, unknown>)[key];
  }
  return `\`${formatValue(current)}\`${value.rest ? ` ${value.rest}` : ''}`;
}

/** The option rows, defaults resolved to the constants' values. */
export async function collectOptions(): Promise<OptionRow[]> {
  const rows = collectRows();
  return Promise.all(rows.map(async (row) => {
    // a range is printed from the constant the validator reads, never restated in the TSDoc
    const range = await rangeOf(row.default);
    return { ...row, default: await resolveDefault(row.path, row.default), description: range ? `${row.description} ${range}`.trim() : row.description };
  }));
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

/** The markdown table of the rows. */
export function renderTable(rows: readonly OptionRow[]): string {
  return [
    '| option | type | default | description |',
    '| --- | --- | --- | --- |',
    ...rows.map((r) => `| \`${cell(r.path)}\` | \`${cell(r.type)}\` | ${cell(r.default)} | ${cell(r.description)} |`),
  ].join('\n');
}

/** The table as it belongs in README.md, from the declarations as they are now. */
export async function generateOptionsTable(): Promise<string> {
  return renderTable(await collectOptions());
}

/** `readme` with the text between the markers replaced by `table`. */
export function replaceTable(readme: string, table: string): string {
  const start = readme.indexOf(START_MARKER);
  const end = readme.indexOf(END_MARKER);
  if (start < 0 || end < start) throw new Error(`README.md needs ${START_MARKER} and, after it, ${END_MARKER} around the options table`);
  return `${readme.slice(0, start)}${START_MARKER}\n${NOTE}\n\n${table}\n${END_MARKER}${readme.slice(end + END_MARKER.length)}`;
}

/** Throws {@link OUT_OF_DATE} when `readme`'s table is not `table`. */
export function checkReadme(readme: string, table: string): void {
  if (replaceTable(readme, table) !== readme) throw new Error(OUT_OF_DATE);
}

async function main(args: readonly string[]): Promise<void> {
  const table = await generateOptionsTable();
  if (args.includes('--write')) {
    const readme = readFileSync(README_PATH, 'utf8');
    const next = replaceTable(readme, table);
    if (next !== readme) writeFileSync(README_PATH, next);
    console.log(next === readme ? 'README.md options table is up to date' : 'README.md options table written');
  } else if (args.includes('--check')) {
    checkReadme(readFileSync(README_PATH, 'utf8'), table);
    console.log('README.md options table is up to date');
  } else {
    process.stdout.write(`${table}\n`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
