/**
 * `options.mcp` is checked once, at start-up: a host tool that could never be called, or
 * would be called without the checks it needs, is a ConfigurationError naming the fix.
 */
import { z } from 'zod';

import { ConfigurationError } from '../../lib/errors.ts';
import { ANSWER_TIMEOUT_MS } from '../../lib/mcp/answer-bound.ts';
import { resolveMcpOptions } from '../../lib/mcp/index.ts';
import type { McpOptions } from '../../lib/mcp/index.ts';
import { MCP_RANGES } from '../../lib/mcp/options.ts';

const tool = (over: Record<string, unknown> = {}) => ({
  name: 'list_site_courses', description: 'courses', audience: 'operator', scopes: ['courses:read'],
  inputSchema: {}, handler: () => ({}), ...over,
});

function refusal(input: unknown): string {
  try {
    resolveMcpOptions(input as McpOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return (error as ConfigurationError).description;
  }
  throw new Error('accepted');
}

describe('resolveMcpOptions', () => {
  it('defaults', () => {
    expect(resolveMcpOptions(undefined)).toEqual(expect.objectContaining({
      enabled: true, tools: [], defaultSite: undefined, maxPageSize: 100, maxBodyBytes: 256 * 1024, maxIdleServers: 16, cors: true,
      answerTimeout: 30,
    }));
    expect(resolveMcpOptions(false).enabled).toBe(false);
  });

  it('refuses a tool whose x-mcp-header declarations clients would leave it out for, naming the rule', () => {
    const at = (schema: z.ZodType) => refusal({ tools: [tool({ inputSchema: schema })] });
    expect(at(z.object({ list: z.array(z.string().meta({ 'x-mcp-header': 'B' })) })))
      .toMatch(/^options\.mcp\.tools\[0\] \(list_site_courses\)\.inputSchema: the x-mcp-header at list\.<items> is under a subschema .*; MCP clients leave such a tool out of tools\/list$/);
    expect(at(z.object({ a: z.string().meta({ 'x-mcp-header': 'Not A Token' }) }))).toMatch(/the x-mcp-header at a, "Not A Token", is not a header-name token/);
    expect(at(z.object({ a: z.string().meta({ 'x-mcp-header': 'A' }), b: z.string().meta({ 'x-mcp-header': 'a' }) }))).toMatch(/the x-mcp-header "a" is declared twice/);
    expect(at(z.object({ n: z.number().meta({ 'x-mcp-header': 'N' }) }))).toMatch(/the x-mcp-header at n is on an argument of type number: .*use an integer, or a string/);
    expect(at(z.object({ o: z.object({}).meta({ 'x-mcp-header': 'O' }) }))).toMatch(/the x-mcp-header at o is on an argument of type object/);
    // what the spec allows is accepted
    const ok = resolveMcpOptions({ tools: [tool({ inputSchema: z.object({ region: z.string().meta({ 'x-mcp-header': 'Region' }), n: z.number().int().meta({ 'x-mcp-header': 'N' }) }) })] as never });
    expect(ok.tools).toHaveLength(1);
  });

  it('accepts a raw shape and a zod object schema', () => {
    const resolved = resolveMcpOptions({ tools: [tool(), tool({ name: 'b', inputSchema: z.object({ a: z.string() }) }), tool({ name: 'c', inputSchema: { a: z.number() } })] as never });
    expect(resolved.tools.map((t) => t.name)).toEqual(['list_site_courses', 'b', 'c']);
  });

  it.each([
    ['a bad name', { tools: [tool({ name: 'list site courses' })] }, /name must be 1 to 128/],
    ['a duplicate name', { tools: [tool(), tool()] }, /same name/],
    ['a library tool\'s name', { tools: [tool({ name: 'whoami' })] }, /library's own tools/],
    ['no description', { tools: [tool({ description: ' ' })] }, /description/],
    ['an unknown audience', { tools: [tool({ audience: 'admin' })] }, /audience must be/],
    ['a public tool with scopes', { tools: [tool({ audience: 'public' })] }, /public tool .* cannot require scopes/],
    ['an operator tool without scopes', { tools: [tool({ scopes: [] })] }, /at least one scope/],
    ['an unknown scope', { tools: [tool({ scopes: ['courses:delete'] })] }, /courses:delete is not a scope/],
    [
      'a misspelt scope, with the one it was likely meant to be',
      { tools: [tool({ scopes: ['course:read'] })] },
      /^options\.mcp\.tools\[0\] \(list_site_courses\)\.scopes: course:read is not a scope of this server \(see SCOPES\); did you mean "courses:read"\?$/,
    ],
    ['an unknown scope like no other, without a guess', { tools: [tool({ scopes: ['teleport'] })] }, /teleport is not a scope of this server \(see SCOPES\)$/],
    ['a member scope on an operator tool', { tools: [tool({ scopes: ['account:read'] })] }, /account:read cannot be held by operator clients/],
    ['an operator scope on a member tool', { tools: [tool({ audience: 'member', scopes: ['courses:read'] })] }, /courses:read cannot be held by member clients/],
    ['a JSON Schema instead of zod', { tools: [tool({ inputSchema: { type: 'object' } })] }, /inputSchema must be a zod object/],
    ['no handler', { tools: [tool({ handler: 'run' })] }, /handler must be a function/],
    ['tools not an array', { tools: tool() }, /tools must be an array/],
    ['an unknown option', { tool: [] }, /options.mcp.tool is not a known option/],
    ['a page cap of 0', { maxPageSize: 0 }, /maxPageSize must be a whole number from 1 to 1000/],
    ['a tiny body limit', { maxBodyBytes: 10 }, /maxBodyBytes/],
    ['an empty defaultSite', { defaultSite: '' }, /defaultSite/],
    ['a serverInfo without version', { serverInfo: { name: 'x' } }, /serverInfo/],
    ['not an object', 'yes', /options.mcp must be an object/],
  ])('refuses %s', (_label, input, message) => {
    expect(refusal(input)).toMatch(message);
  });

  describe('answerTimeout', () => {
    it('is 30 seconds by default, the endpoint\'s bound', () => {
      expect(resolveMcpOptions({}).answerTimeout).toBe(ANSWER_TIMEOUT_MS / 1000);
      expect(MCP_RANGES.answerTimeout.default * 1000).toBe(ANSWER_TIMEOUT_MS);
    });

    it.each([1, 30, 600, false] as const)('accepts %s', (answerTimeout) => {
      expect(resolveMcpOptions({ answerTimeout }).answerTimeout).toBe(answerTimeout);
    });

    const WHAT = 'options.mcp.answerTimeout must be a whole number of seconds from 1 to 600, or false for no bound';
    const FIX = 'Leave it out for the default, 30 (false is not recommended: a stuck tool then holds its connection until the client gives up)';
    it.each([
      [0, `${WHAT}; got 0. ${FIX}`],
      [601, `${WHAT}; got 601. ${FIX}`],
      [2.5, `${WHAT}; got 2.5. ${FIX}`],
      ['30', `${WHAT}; got "30". ${FIX}`],
      [true, `${WHAT}; got true. ${FIX}`],
      [null, `${WHAT}; got null. ${FIX}`],
      // milliseconds, most likely
      [30_000, `${WHAT}; got 30000; it counts seconds, not milliseconds: write 30. ${FIX}`],
    ])('refuses %p, saying what to write', (answerTimeout, message) => {
      expect(refusal({ answerTimeout })).toBe(message);
    });
  });
});

describe('a host tool\'s members and serverInfo: nothing misspelt is dropped, nothing mistyped reaches tools/list', () => {
  it.each([
    ['a misspelt annotations (the write tool would be advertised read-only)', { annotation: { readOnlyHint: false } }, /options\.mcp\.tools\[0\] \(list_site_courses\)\.annotation is not a known tool member.*did you mean "annotations"\?/],
    ['annotations that are not an object', { annotations: 'destructive' }, /options\.mcp\.tools\[0\] \(list_site_courses\)\.annotations must be an object of hints/],
    ['a hint that is not a boolean', { annotations: { readOnlyHint: 'no' } }, /annotations\.readOnlyHint must be/],
    ['a misspelt hint', { annotations: { readonlyHint: true } }, /annotations\.readonlyHint is not a known annotation.*did you mean "readOnlyHint"\?/],
    ['a title that is not a string', { title: 5 }, /options\.mcp\.tools\[0\] \(list_site_courses\)\.title must be a non-empty string; got 5/],
  ])('refuses %s', (_label, over, message) => {
    expect(refusal({ tools: [tool(over)] })).toMatch(message);
  });

  it('takes every member a tool has, annotations included', () => {
    const resolved = resolveMcpOptions({ tools: [tool({ title: 'Courses', annotations: { title: 'Courses', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } })] } as McpOptions);
    expect(resolved.tools).toHaveLength(1);
  });

  it('refuses a misspelt or mistyped serverInfo member', () => {
    expect(refusal({ serverInfo: { name: 'x', version: '1', titel: 'X' } })).toMatch(/options\.mcp\.serverInfo\.titel is not a known option.*did you mean "title"\?/);
    expect(refusal({ serverInfo: { name: 'x', version: '1', title: 5 } })).toMatch(/options\.mcp\.serverInfo\.title must be a string/);
  });
});

it('takes an allowed host with the default port, as a client\'s Host header leaves it out', () => {
  expect(resolveMcpOptions({ allowedHosts: ['Learn.Example.com:80', 'localhost:3000'] } as McpOptions).allowedHosts).toEqual(['learn.example.com', 'localhost:3000']);
  expect(refusal({ allowedHosts: ['learn.example.com:80x'] })).toMatch(/allowedHosts\[0\] must be a host name with an optional port/);
});
