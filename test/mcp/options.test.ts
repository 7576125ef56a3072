/**
 * `options.mcp` is checked once, at start-up: a host tool that could never be called, or
 * would be called without the checks it needs, is a ConfigurationError naming the fix.
 */
import { z } from 'zod';

import { ConfigurationError } from '../../lib/errors.ts';
import { resolveMcpOptions } from '../../lib/mcp/index.ts';
import type { McpOptions } from '../../lib/mcp/index.ts';

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
    }));
    expect(resolveMcpOptions(false).enabled).toBe(false);
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
});
