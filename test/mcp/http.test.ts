/**
 * The HTTP helpers of lib/mcp/http.ts that the end-to-end tests cannot pin down.
 */
import { calledTools } from '../../lib/mcp/http.ts';

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
