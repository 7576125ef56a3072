/**
 * Reading the self-description documents in tests: fetch them, validate the OpenAPI
 * document, take the markdown tables of /auth.md apart, and run its curl examples.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
// the validator above is built on them (its dependencies)
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

import type { OpenApiDocument } from '../../lib/docs/index.ts';

export interface Documents {
  readonly openapi: OpenApiDocument;
  readonly authMd: string;
  readonly discovery: Record<string, unknown>;
}

export async function fetchDocuments(baseUrl: string): Promise<Documents> {
  const [openapi, authMd, discovery] = await Promise.all([
    fetch(`${baseUrl}/openapi.json`).then((r) => r.json()),
    fetch(`${baseUrl}/auth.md`).then((r) => r.text()),
    fetch(`${baseUrl}/.well-known/openid-configuration`).then((r) => r.json()),
  ]);
  return { openapi, authMd, discovery };
}

/** Validates against the OpenAPI 3.1 schema and resolves every `$ref`; returns the errors. */
export async function openApiErrors(doc: unknown): Promise<unknown[]> {
  const validator = new Validator();
  const result = await validator.validate(structuredClone(doc) as Record<string, unknown>);
  if (!result.valid) return Array.isArray(result.errors) ? result.errors : [result.errors];
  try {
    validator.resolveRefs();
  } catch (error) {
    return [String(error)];
  }
  return [];
}

/** A documented response: its description, headers and bodies by media type. */
export interface DescribedResponse {
  readonly description: string;
  readonly headers?: Record<string, { readonly required?: boolean; readonly $ref?: string; readonly schema?: unknown }>;
  readonly content?: Record<string, { readonly schema: unknown }>;
}

/** The response `status` of `method path` in `doc`, a `$ref` to `components.responses` followed. */
export function describedResponse(doc: OpenApiDocument, path: string, method: string, status: number | string): DescribedResponse | undefined {
  const operation = (doc.paths[path] as Record<string, { responses: Record<string, unknown> }> | undefined)?.[method.toLowerCase()];
  const response = operation?.responses[String(status)] as (DescribedResponse & { $ref?: string }) | undefined;
  if (!response?.$ref) return response;
  return doc.components.responses[response.$ref.replace('#/components/responses/', '')] as DescribedResponse;
}

/**
 * Checks values against schemas of `doc` (JSON Schema 2020-12 with formats, `$ref`s into its
 * components resolved); returns the errors, `[]` for a valid value.
 */
export function schemaChecker(doc: OpenApiDocument): (schema: unknown, value: unknown) => unknown[] {
  const ajv = new (Ajv2020 as unknown as typeof Ajv2020.default)({ strict: false, allErrors: true });
  (addFormats as unknown as (a: unknown) => void)(ajv);
  const base = 'https://openapi.test/document';
  ajv.addSchema({ $id: base, components: doc.components });
  return (schema, value) => {
    const rooted = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${base}#/components/`));
    const validate = ajv.compile(rooted);
    return validate(value) ? [] : [...(validate.errors ?? [])];
  };
}

/** `[method, path]` of every operation in the document. */
export function operations(doc: OpenApiDocument): [string, string][] {
  const methods = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
  return Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).filter((k) => methods.has(k)).map((m): [string, string] => [m.toUpperCase(), path]));
}

export interface MarkdownTable {
  /** the nearest heading above the table */
  readonly heading: string;
  readonly header: string[];
  readonly rows: string[][];
}

function splitRow(line: string): string[] {
  const cells: string[] = [];
  let current = '';
  for (let i = 1; i < line.length - 1; i += 1) {
    const c = line[i]!;
    if (c === '\\' && (line[i + 1] === '|' || line[i + 1] === '\\')) {
      current += line[i + 1];
      i += 1;
    } else if (c === '|') {
      cells.push(current.trim());
      current = '';
    } else current += c;
  }
  cells.push(current.trim());
  return cells;
}

export function markdownTables(md: string): MarkdownTable[] {
  const tables: MarkdownTable[] = [];
  let heading = '';
  let block: string[] = [];
  const flush = () => {
    if (block.length >= 2) tables.push({ heading, header: splitRow(block[0]!), rows: block.slice(2).map(splitRow) });
    block = [];
  };
  for (const line of md.split('\n')) {
    if (line.startsWith('|')) {
      block.push(line);
      continue;
    }
    flush();
    if (/^#{1,4} /.test(line)) heading = line;
  }
  flush();
  return tables;
}

export function tableUnder(md: string, heading: string | RegExp): MarkdownTable {
  const found = markdownTables(md).find((t) => (typeof heading === 'string' ? t.heading === heading : heading.test(t.heading)));
  if (!found) throw new Error(`no table under the heading ${String(heading)}`);
  return found;
}

/** `` `a`, `b` `` → `['a', 'b']` */
export function codeSpans(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
}

export function headings(md: string): string[] {
  return md.split('\n').filter((l) => /^#{1,3} /.test(l));
}

/** The fenced code blocks of a markdown text, in order, with the paragraph before each. */
export function codeBlocks(md: string): { intro: string; language: string; body: string }[] {
  return [...md.matchAll(/([^\n]*)\n\n```(\w*)\n([\s\S]*?)\n```/g)].map((m) => ({ intro: m[1]!, language: m[2]!, body: m[3]! }));
}

export interface CurlRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  /** form fields (`-d k=v`, `--data-urlencode k=v`) */
  readonly form: [string, string][];
  /** a `-d '{…}'` body */
  readonly body: string | undefined;
}

function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const m of line.matchAll(/'([^']*)'|(\S+)/g)) words.push(m[1] ?? m[2]!);
  return words;
}

/** Parses the curl commands the page shows (`-X`, `-H`, `-d`, `--data-urlencode`); `fill` replaces `<PLACEHOLDERS>`. */
export function parseCurl(command: string, fill: (text: string) => string = (t) => t): CurlRequest {
  const words = shellWords(command.replace(/\\\n/g, ' '));
  if (words[0] !== 'curl') throw new Error(`not a curl command: ${command}`);
  let method = 'GET';
  let url = '';
  const headers: Record<string, string> = {};
  const form: [string, string][] = [];
  let body: string | undefined;
  for (let i = 1; i < words.length; i += 1) {
    const word = words[i]!;
    if (word === '-X') method = words[++i]!;
    else if (word === '-H') {
      const [name, ...value] = words[++i]!.split(':');
      headers[name!.trim().toLowerCase()] = fill(value.join(':').trim());
    } else if (word === '-d' || word === '--data-urlencode') {
      const value = words[++i]!;
      if (value.startsWith('{')) body = fill(value);
      else {
        const eq = value.indexOf('=');
        form.push([value.slice(0, eq), fill(value.slice(eq + 1))]);
      }
      if (method === 'GET') method = 'POST';
    } else url = fill(word);
  }
  return { method, url, headers, form, body };
}

export function sendCurl(request: CurlRequest): Promise<Response> {
  const headers = { ...request.headers };
  let body: string | URLSearchParams | undefined = request.body;
  if (request.form.length > 0) {
    body = new URLSearchParams(request.form);
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
  }
  return fetch(request.url, { method: request.method, headers, ...(body === undefined ? {} : { body }) });
}

/** Replaces `<NAME>` placeholders from `values`; fails on one it does not know. */
export function filler(values: Record<string, string>): (text: string) => string {
  return (text) => text.replace(/<([A-Z_ ]+)>/g, (whole, name: string) => {
    if (!(name in values)) throw new Error(`no value for the placeholder ${whole}`);
    return values[name]!;
  });
}
