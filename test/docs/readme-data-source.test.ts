/**
 * The README's "The data source" block says it is `MemberDataSource` as the package declares
 * it: compiled with the package's types (`platform-auth` mapped to lib/index.ts), the two
 * interfaces must be assignable both ways, so a block that drifts from lib/contracts.ts, or
 * stops compiling (untyped members, types it does not import), fails here.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const README = readFileSync(`${ROOT}README.md`, 'utf8');

function dataSourceBlock(): string {
  const section = README.slice(README.indexOf('### The data source'));
  const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block || !block.includes('interface MemberDataSource')) throw new Error('README "The data source" has no ts block declaring MemberDataSource');
  return block;
}

it('compiles against the package and matches MemberDataSource both ways', () => {
  const file = `${ROOT}test/docs/__readme-data-source.ts`;
  const source = `${dataSourceBlock().replace("from 'platform-auth'", "from '../../lib/index.ts'")}
import type { MemberDataSource as Declared } from '../../lib/index.ts';
export const toDeclared = (shown: MemberDataSource): Declared => shown;
export const toShown = (declared: Declared): MemberDataSource => declared;
`;
  const options: ts.CompilerOptions = {
    strict: true, noEmit: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022, allowImportingTsExtensions: true, skipLibCheck: true, types: [],
  };
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  host.readFile = (name) => (name === file ? source : read(name));
  const exists = host.fileExists.bind(host);
  host.fileExists = (name) => name === file || exists(name);
  const program = ts.createProgram([file], options, host);
  const diagnostics = ts.getPreEmitDiagnostics(program).filter((d) => d.file?.fileName === file);
  expect(diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))).toEqual([]);
}, 60_000);
