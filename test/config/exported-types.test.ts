/**
 * Every type the README's options table names for an option (`jwks: JWKS`, `accountApi:
 * AccountApiOptions`, `docs.authMd.limits: readonly LimitRow[]`, …) is exported from the
 * package root, so a host can type its settings without reaching into the package's files
 * (which its `exports` map does not allow anyway).
 */
import ts from 'typescript';

// the modules whose constants the table's defaults come from, linked before collectOptions()
// imports them by path (jest's VM modules refuse a graph linked halfway)
import '../../lib/account-api/options.ts';
import '../../lib/config/options.ts';
import '../../lib/constants.ts';
import '../../lib/mcp/options.ts';
import '../../lib/pages/options.ts';
import { collectOptions } from '../../scripts/options-table.ts';

const BUILT_IN = new Set(['Readonly', 'ReadonlyArray', 'Record', 'Partial', 'Promise', 'Array', 'Date', 'URL', 'Set', 'ReadonlySet', 'Map', 'Error']);
/** types of the libraries a host brings for that option: OpenTelemetry's, for `metrics.meterProvider` */
const THE_HOSTS_OWN = new Set(['MeterProvider']);

function rootExports(): Set<string> {
  const program = ts.createProgram(['lib/index.ts'], {
    allowImportingTsExtensions: true, noEmit: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022,
  });
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile('lib/index.ts')!)!;
  return new Set(checker.getExportsOfModule(module).map((symbol) => symbol.getName()));
}

let rows: Awaited<ReturnType<typeof collectOptions>>;
let exported: Set<string>;
beforeAll(async () => {
  rows = await collectOptions();
  exported = rootExports();
}, 60_000);

it('exports every type the options table names', () => {
  const named = new Set<string>();
  for (const row of rows) {
    // identifiers that start with a capital: type names, not `string`, `false` or literals in quotes
    for (const [name] of row.type.replace(/'[^']*'/g, '').matchAll(/\b[A-Z][A-Za-z0-9]*\b/g)) {
      if (!BUILT_IN.has(name) && !THE_HOSTS_OWN.has(name)) named.add(name);
    }
  }
  expect(named.size).toBeGreaterThan(10);
  expect([...named].filter((name) => !exported.has(name))).toEqual([]);
});

it('exports the member-data service the README describes for host tools', () => {
  for (const name of ['createMemberDataService', 'MemberAccount', 'MemberDataService']) expect(exported.has(name)).toBe(true);
});
