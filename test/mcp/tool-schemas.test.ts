/**
 * Host MCP tools take what `npm install zod` gives a host today (zod 4) or any Standard Schema
 * with JSON Schema; a schema the SDK could not use is a ConfigurationError at start-up naming
 * the tool, never a silently empty schema (which used to list `properties: {}` and fail every
 * call with "keyValidator._parse is not a function").
 */
import { z } from 'zod';
import { z as z3 } from 'zod/v3';

import { ConfigurationError, createPlatformAuth, defineMcpTool } from '../../lib/index.ts';
import type { McpInputSchema, PlatformAuthOptions } from '../../lib/index.ts';
import { resolveMcpOptions } from '../../lib/mcp/options.ts';
import { prepareInputSchema } from '../../lib/mcp/tools/schema.ts';

const accounts = { authenticate: async () => undefined, findById: async () => undefined };
const quiet = { info() {}, warn() {}, error() {} };

function tool(inputSchema: unknown) {
  return { name: 'host_tool', description: 'A host tool.', audience: 'public', scopes: [], inputSchema, handler: () => ({}) };
}

function refusal(inputSchema: unknown): string {
  try {
    resolveMcpOptions({ tools: [tool(inputSchema) as never] });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigurationError');
}

describe('schemas a host cannot use are refused at start-up, naming the tool', () => {
  it('a zod 3 object', () => {
    expect(refusal(z3.object({ slug: z3.string() }))).toMatch(/^options\.mcp\.tools\[0\] \(host_tool\)\.inputSchema is a zod 3 schema.*npm install zod/);
  });

  it('a shape of zod 3 schemas', () => {
    expect(refusal({ slug: z3.string() })).toMatch(/\(host_tool\)\.inputSchema \.slug is a zod 3 schema/);
  });

  it('a plain JSON Schema', () => {
    expect(refusal({ type: 'object', properties: { slug: { type: 'string' } } })).toMatch(/\(host_tool\)\.inputSchema must be a zod object schema.*fromJsonSchema\(\)/);
  });

  it('a Standard Schema that cannot describe itself as JSON Schema', () => {
    const standardOnly = { '~standard': { version: 1, vendor: 'acme', validate: (v: unknown) => ({ value: v }) } };
    expect(refusal(standardOnly)).toMatch(/\(host_tool\)\.inputSchema comes from a schema library \(acme\) that does not implement ~standard\.jsonSchema/);
  });

  it('a schema of something other than an object', () => {
    expect(refusal(z.string())).toMatch(/\(host_tool\)\.inputSchema must describe an object of named arguments; it describes "string"/);
  });

  it('and createPlatformAuth refuses the same at start-up', async () => {
    const options: PlatformAuthOptions = { baseUrl: 'http://localhost:3000', accounts, logger: quiet, mcp: { tools: [tool(z3.object({})) as never] } };
    await expect(createPlatformAuth(options)).rejects.toThrow(ConfigurationError);
  });
});

describe('schemas a host can use', () => {
  it('a zod 4 object: validated by the SDK, described as JSON Schema 2020-12', () => {
    const prepared = prepareInputSchema('t', z.object({ slug: z.string().min(1), first: z.number().int().default(10) }));
    expect(prepared.jsonSchema).toMatchObject({
      type: 'object',
      properties: { slug: { type: 'string', minLength: 1 }, first: { type: 'integer', default: 10 } },
      required: ['slug'],
    });
  });

  it('a shape of zod 4 schemas, wrapped in z.object', () => {
    const prepared = prepareInputSchema('t', { slug: z.string() } as McpInputSchema);
    expect(prepared.jsonSchema).toMatchObject({ type: 'object', properties: { slug: { type: 'string' } }, required: ['slug'] });
  });

  it('types the handler arguments from the schema', () => {
    const defined = defineMcpTool({
      name: 'typed', description: 'd', audience: 'public', scopes: [],
      inputSchema: z.object({ slug: z.string(), first: z.number().default(5) }),
      handler: ({ slug, first }) => ({ slug: slug.toUpperCase(), double: first * 2 }),
    });
    expect(defined.handler({ slug: 'a', first: 2 }, undefined, { signal: new AbortController().signal })).toEqual({ slug: 'A', double: 4 });
  });
});
