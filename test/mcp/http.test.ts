/**
 * The HTTP helpers of lib/mcp/http.ts that the end-to-end tests cannot pin down.
 */
import { calledTools, withoutStackTraces } from '../../lib/mcp/http.ts';

describe('withoutStackTraces', () => {
  it('captures no stack inside, and restores the limit after', () => {
    const before = Error.stackTraceLimit;
    const inside = withoutStackTraces(() => new Error('inside'));
    expect(inside.stack).toBe('Error: inside');
    expect(Error.stackTraceLimit).toBe(before);
    expect(new Error('after').stack!.split('\n').length).toBeGreaterThan(1);
  });

  it('restores the limit when the dispatch throws', () => {
    const before = Error.stackTraceLimit;
    expect(() => withoutStackTraces(() => { throw new TypeError('boom'); })).toThrow('boom');
    expect(Error.stackTraceLimit).toBe(before);
  });
});

describe('calledTools', () => {
  it('finds the tool names of tools/call requests in a message or a batch, and nothing else', () => {
    expect(calledTools({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami' } })).toEqual(['whoami']);
    expect(calledTools([
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'a' } },
      null, 7, 'x',
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 42 } },
      { jsonrpc: '2.0', id: 4, method: 'tools/call' },
      { jsonrpc: '2.0', method: 'tools/call', params: { name: 'b' } },
    ])).toEqual(['a', 'b']);
    expect(calledTools(null)).toEqual([]);
  });
});
