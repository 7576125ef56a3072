/**
 * `Mcp-Param-*` headers (MCP 2026-07-28, Streamable HTTP, "Schema Extension", SEP-2243): a
 * tool's input schema may mark an argument with `x-mcp-header: "<Name>"`, and a client then
 * mirrors that argument in the request header `Mcp-Param-<Name>` of a `tools/call`, so that
 * gateways can route on it. The SDK's `createMcpHandler` refuses a 2026-07-28 call whose
 * header is missing, does not decode or disagrees with the argument (400 `-32020`).
 *
 * The SDK keeps its scan and its check to itself (`scanXMcpHeaderDeclarations` and
 * `validateMcpParamHeaders` are not exported), so they are copied here, rule for rule, for
 * two uses: the headers a browser's CORS preflight must be allowed to send
 * (lib/policies/cors.ts), and the transport checks `/mcp` asks before a call is refused for its
 * token (./standard-headers.ts). Drop the copy once the SDK exports them.
 *
 * @module
 */
import { decodeHeaderValue, headerMismatch } from './header-values.ts';
import type { JsonRpcProblem } from './http.ts';

/** The prefix of every custom-parameter header. */
export const MCP_PARAM_HEADER_PREFIX = 'Mcp-Param-';

/** One argument a tool mirrors in a header. */
export interface ParamHeader {
  /** where the argument is, from the root of `arguments` through `properties` */
  readonly path: readonly string[];
  /** `<Name>` of `Mcp-Param-<Name>`, as the schema spells it */
  readonly headerName: string;
  /** the JSON Schema `type` of the argument */
  readonly type: string | undefined;
}

const X_MCP_HEADER = 'x-mcp-header';
/** RFC 9110 §5.1 `token` */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PERMITTED_TYPES = new Set(['string', 'integer', 'boolean']);
/** subschemas an `x-mcp-header` must not be under: only a chain of `properties` reaches one */
const UNREACHABLE = [
  'items', 'prefixItems', 'contains', 'additionalProperties', 'unevaluatedProperties', 'unevaluatedItems', 'propertyNames',
  'patternProperties', 'dependentSchemas', 'oneOf', 'anyOf', 'allOf', 'not', 'if', 'then', 'else', '$defs', 'definitions',
];
const NAMED_SUBSCHEMAS = new Set(['patternProperties', 'dependentSchemas', '$defs', 'definitions']);
const CANONICAL_DECIMAL = /^-?\d+(\.\d+)?$/;

const pathName = (path: readonly string[]) => (path.length === 0 ? '<root>' : path.join('.'));

/** A scan's outcome: the declarations, or the first rule a declaration breaks. */
type Scan = { readonly declarations: readonly ParamHeader[]; readonly problem?: string };

function scan(inputSchema: unknown): Scan {
  const declarations: ParamHeader[] = [];
  const seen = new Set<string>();
  let problem: string | undefined;
  const refuse = (why: string) => {
    problem = why;
    return false;
  };
  const visit = (node: unknown, path: readonly string[], reachable: boolean): boolean => {
    if (node === null || typeof node !== 'object') return true;
    const schema = node as Record<string, unknown>;
    if (X_MCP_HEADER in schema) {
      const raw = schema[X_MCP_HEADER];
      const at = pathName(path);
      if (!reachable) return refuse(`the ${X_MCP_HEADER} at ${at} is under a subschema (items, anyOf, …): only an argument reached through properties alone can be mirrored in a header`);
      if (path.length === 0) return refuse(`the ${X_MCP_HEADER} is on the input schema itself, not on an argument`);
      if (typeof raw !== 'string' || !TOKEN.test(raw)) return refuse(`the ${X_MCP_HEADER} at ${at}, ${JSON.stringify(raw)}, is not a header-name token (letters, digits and !#$%&'*+-.^_\`|~, no spaces)`);
      const type = typeof schema.type === 'string' ? schema.type : undefined;
      if (type !== 'number' && (type === undefined || !PERMITTED_TYPES.has(type))) {
        return refuse(`the ${X_MCP_HEADER} at ${at} is on an argument of type ${type ?? '(none)'}: only string, integer and boolean ones can be mirrored`);
      }
      if (seen.has(raw.toLowerCase())) return refuse(`the ${X_MCP_HEADER} ${JSON.stringify(raw)} is declared twice (header names ignore case)`);
      seen.add(raw.toLowerCase());
      declarations.push(Object.freeze({ path, headerName: raw, type }));
    }
    const { properties } = schema;
    if (properties !== null && typeof properties === 'object') {
      for (const [key, child] of Object.entries(properties)) if (!visit(child, [...path, key], reachable)) return false;
    }
    for (const keyword of UNREACHABLE) {
      const sub = schema[keyword];
      if (sub === undefined) continue;
      const branches = Array.isArray(sub) ? sub : sub !== null && typeof sub === 'object' && NAMED_SUBSCHEMAS.has(keyword) ? Object.values(sub) : [sub];
      for (const branch of branches) if (!visit(branch, [...path, `<${keyword}>`], false)) return false;
    }
    return true;
  };
  return visit(inputSchema, [], true) ? { declarations: Object.freeze(declarations) } : { declarations: [], problem: problem! };
}

/**
 * The `x-mcp-header` declarations of a tool's JSON Schema, as the SDK finds them: none when a
 * declaration breaks a rule other than its type being `number` (conforming clients then leave
 * the tool out, and the SDK checks nothing for it); a `number`-typed one is invalid too, but
 * the SDK still checks the headers of such a schema.
 */
export function scanParamHeaders(inputSchema: unknown): readonly ParamHeader[] {
  return scan(inputSchema).declarations;
}

/**
 * Why a tool's `x-mcp-header` declarations would make conforming clients leave it out, or
 * `undefined`: checked when the options are (lib/mcp/options.ts), so that a host tool is not
 * served to no one without a word. A `number`-typed argument is refused too: the spec allows
 * string, integer and boolean.
 */
export function paramHeaderProblem(inputSchema: unknown): string | undefined {
  const { declarations, problem } = scan(inputSchema);
  if (problem) return problem;
  const numeric = declarations.find((d) => d.type === 'number');
  return numeric && `the ${X_MCP_HEADER} at ${pathName(numeric.path)} is on an argument of type number: only string, integer and boolean ones can be mirrored (use an integer, or a string)`;
}

/** An argument as its header carries it; `undefined`: no header is expected for it. */
function headerForm(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value !== 'number' || !Number.isFinite(value) || (Number.isInteger(value) && !Number.isSafeInteger(value))) return undefined;
  return String(value);
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/**
 * Why the SDK would refuse a 2026-07-28 `tools/call` of a tool with `declarations` for its
 * `Mcp-Param-*` headers, or `undefined`: for an argument present (not `null`), its header must
 * be there, decode (the Base64 sentinel) and equal it (numbers compared as numbers). `header`
 * reads `Mcp-Param-<Name>`: `undefined` when absent.
 */
export function paramHeaderRejection(declarations: readonly ParamHeader[], args: unknown, header: (name: string) => string | undefined): JsonRpcProblem | undefined {
  for (const { path, headerName, type } of declarations) {
    const name = `${MCP_PARAM_HEADER_PREFIX}${headerName}`;
    const value = valueAt(args, path);
    if (value === undefined || value === null) continue;
    const expected = headerForm(value);
    if (expected === undefined) continue;
    const sent = header(name);
    if (sent === undefined) return headerMismatch(name, `the body carries ${pathName(path)}=${JSON.stringify(value)} but the ${name} header is absent`);
    const decoded = decodeHeaderValue(sent);
    if (decoded === undefined) return headerMismatch(name, `the ${name} header carries an invalid Base64 sentinel value`);
    const numeric = (type === 'integer' || type === 'number') && CANONICAL_DECIMAL.test(decoded) && typeof value === 'number';
    if (!(numeric ? Number(decoded) === value : decoded === expected)) {
      return headerMismatch(name, `the ${name} header decodes to ${JSON.stringify(decoded)} but the body carries ${pathName(path)}=${JSON.stringify(value)}`);
    }
  }
  return undefined;
}
