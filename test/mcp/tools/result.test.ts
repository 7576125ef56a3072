/**
 * What a member tool answers when its member-data source fails, through the SDK's client: an
 * outage (the adapters' `StorageUnavailableError`, which the README tells custom sources to
 * throw, also wrapped as a cause, or `TemporarilyUnavailableError`) is a tool error saying to
 * retry later, with no log line; anything else is masked and logged.
 */
import { StorageUnavailableError } from '../../../adapters/types.ts';
import { createDemoMemberData } from '../../../examples/host/member-data.ts';
import { TEMPORARILY_UNAVAILABLE_DESCRIPTION, TemporarilyUnavailableError } from '../../../lib/errors.ts';
import { UNEXPECTED_TOOL_ERROR } from '../../../lib/mcp/index.ts';
import { MEMBER, obtainTokens, STUDENT } from '../../support/flows.ts';
import { startApp } from '../../support/start-app.ts';
import type { RunningApp } from '../../support/start-app.ts';
import { connect, toolErrorText } from '../support.ts';
import type { Connected } from '../support.ts';

let app: RunningApp;
let sam: Connected;
/** what `listOrders` throws next */
let failure: unknown;

beforeAll(async () => {
  const memberData = { ...createDemoMemberData(), listOrders: async () => { throw failure; } };
  app = await startApp({ auth: { memberData } });
  const token = (await obtainTokens(app.baseUrl, MEMBER, { scope: 'openid account:read', resource: app.baseUrl }, STUDENT)).access_token;
  sam = await connect(app, { token });
});
afterAll(async () => {
  await sam.close();
  await app.stop();
});

async function listOrdersFailingWith(error: unknown): Promise<{ text: string; logged: string[] }> {
  failure = error;
  const before = app.warnings.length;
  const text = toolErrorText(await sam.client.callTool({ name: 'list_my_orders', arguments: {} }));
  return { text, logged: app.warnings.slice(before) };
}

it.each([
  ['StorageUnavailableError', () => new StorageUnavailableError('orders database unreachable')],
  ['an error caused by StorageUnavailableError', () => new Error('orders lookup failed', { cause: new StorageUnavailableError() })],
  ['TemporarilyUnavailableError', () => new TemporarilyUnavailableError()],
])('%s: "temporarily unavailable, retry later", and no log line', async (_label, make) => {
  expect(await listOrdersFailingWith(make())).toEqual({ text: TEMPORARILY_UNAVAILABLE_DESCRIPTION, logged: [] });
});

it('anything else is masked and logged once', async () => {
  const { text, logged } = await listOrdersFailingWith(new Error('a bug in the orders query'));
  expect(text).toBe(UNEXPECTED_TOOL_ERROR);
  expect(logged).toEqual([expect.stringMatching(/^platform-auth: the MCP tool list_my_orders failed \[request [0-9a-f-]{36}\]: Error: a bug in the orders query$/)]);
});
