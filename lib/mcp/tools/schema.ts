/**
 * A tool's input schema, prepared once at start-up: the validator the SDK runs before the
 * handler, and the JSON Schema `tools/list` answers. Whatever the SDK could not use (a zod 3
 * schema, a schema library without JSON Schema output, a schema that does not describe an
 * object) is a `ConfigurationError` naming the tool, never a silently empty schema.
 *
 * @module
 */
import type { StandardSchemaWithJSON, Tool } from '@modelcontextprotocol/server';
import { z } from 'zod';

import { fail } from '../../config/check.ts';
import type { McpInputSchema } from './types.ts';

/** The JSON Schema dialect of MCP tool schemas (2026-07-28 and the SDK's conversion). */
const TARGET = 'draft-2020-12';

export interface PreparedSchema {
  /** what the SDK validates arguments with */
  readonly validator: StandardSchemaWithJSON;
  /** the `inputSchema` of the tool's `tools/list` entry */
  readonly jsonSchema: Tool['inputSchema'];
}

type Standard = { readonly '~standard'?: { readonly vendor?: unknown; readonly validate?: unknown; readonly jsonSchema?: unknown } };

function isStandard(value: unknown): value is Required<Standard> {
  return value !== null && typeof value === 'object' && typeof (value as Standard)['~standard']?.validate === 'function';
}

/** A zod 3 schema: zod's own `~standard` (3.24+) or its `_def`, without zod 4's `_zod`. */
function isZod3(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  return ('_def' in value || (value as Standard)['~standard']?.vendor === 'zod') && !('_zod' in value);
}

function isZod4(value: unknown): value is z.ZodType {
  return value !== null && typeof value === 'object' && '_zod' in value;
}

/** `where` names the tool, e.g. `options.mcp.tools[0] (list_site_courses)`. */
function refuse(where: string, problem: string): never {
  fail(`${where}.inputSchema ${problem}`);
}

/** A plain JSON Schema object (what an MCP tool list shows), passed where a schema object is expected. */
function looksLikeJsonSchema(value: object): boolean {
  const { type, properties } = value as { type?: unknown; properties?: unknown };
  return typeof type === 'string' || (properties !== null && typeof properties === 'object' && !('_zod' in (properties as object)));
}

const ZOD3_FIX = 'is a zod 3 schema, which the MCP SDK cannot turn into JSON Schema (tools/list would show no arguments and every call would fail): install zod >= 4.2 (`npm install zod`) and build the schema with it, or pass any Standard Schema that implements ~standard.jsonSchema';

function toValidator(tool: string, input: McpInputSchema): StandardSchemaWithJSON {
  if (isStandard(input)) {
    if (isZod3(input)) refuse(tool, ZOD3_FIX);
    return input as StandardSchemaWithJSON;
  }
  const expected = 'must be a zod object schema (zod >= 4.2: z.object({ ... })), another Standard Schema that implements ~standard.jsonSchema, or a shape { field: z.string() }; use z.object({}) for no arguments';
  if (input === null || typeof input !== 'object' || Array.isArray(input)) refuse(tool, expected);
  if (looksLikeJsonSchema(input)) refuse(tool, `${expected}. This looks like a plain JSON Schema: wrap it with fromJsonSchema() from @modelcontextprotocol/server`);
  for (const [field, value] of Object.entries(input)) {
    if (isZod3(value)) refuse(tool, `.${field} ${ZOD3_FIX}`);
    if (!isZod4(value)) refuse(tool, `${expected}; .${field} is ${value === null ? 'null' : typeof value}, not a zod 4 schema`);
  }
  return z.object(input as z.ZodRawShape) as unknown as StandardSchemaWithJSON;
}

function toJsonSchema(tool: string, validator: StandardSchemaWithJSON): Record<string, unknown> {
  const std = (validator as Standard)['~standard']!;
  const converter = std.jsonSchema as { input?: (options: { target: string }) => unknown } | undefined;
  try {
    if (typeof converter?.input === 'function') return converter.input({ target: TARGET }) as Record<string, unknown>;
    if (isZod4(validator)) return z.toJSONSchema(validator, { target: TARGET, io: 'input' }) as Record<string, unknown>;
  } catch (cause) {
    refuse(tool, `cannot be expressed as JSON Schema (${cause instanceof Error ? cause.message : String(cause)}); simplify it (no transforms or custom types in the input)`);
  }
  return refuse(tool, `comes from a schema library (${String(std.vendor)}) that does not implement ~standard.jsonSchema, so tools/list could not describe it; use zod >= 4.2 or another library that does`);
}

/** Prepares an input schema; `tool` names it in messages. Throws `ConfigurationError` for one the SDK cannot use. */
export function prepareInputSchema(tool: string, input: McpInputSchema): PreparedSchema {
  const validator = toValidator(tool, input);
  const jsonSchema = toJsonSchema(tool, validator);
  if (jsonSchema.type !== undefined && jsonSchema.type !== 'object') {
    refuse(tool, `must describe an object of named arguments; it describes ${JSON.stringify(jsonSchema.type)} (wrap it in z.object({ ... }))`);
  }
  return Object.freeze({ validator, jsonSchema: Object.freeze({ type: 'object', ...jsonSchema }) as Tool['inputSchema'] });
}
