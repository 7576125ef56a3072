/**
 * The event log: the events worth a line (refresh reuse, code replay, metadata documents that
 * failed) with the request id, at most one line a minute per kind, then a count.
 */
import { EVENT_LOG_QUIET_MS, EventLog } from '../../lib/events/log.ts';

it('writes the events worth a line, once a minute per kind, then sums up', () => {
  let now = 0;
  const lines: string[] = [];
  const log = new EventLog({ info() {}, warn: (m) => lines.push(m), error: (m) => lines.push(`error ${m}`) }, () => now);
  log.record({ name: 'refresh.rotated', at: 1, clientId: 'a' });
  log.record({ name: 'access.refused', at: 1, clientId: 'a', endpoint: 'mcp', status: 401, reason: 'revoked', error: 'invalid_token', description: 'x' });
  log.record({ name: 'refresh.reuse_detected', at: 1, clientId: 'app-1', reason: 'after_grace', requestId: 'req-1' });
  log.record({ name: 'refresh.reuse_detected', at: 1, clientId: 'app-2', reason: 'after_grace', requestId: 'req-2' });
  log.record({ name: 'metadata_document.failed', at: 1, clientId: 'https://x.example/a', reason: 'status', status: 404, description: 'x' });
  now += EVENT_LOG_QUIET_MS;
  log.record({ name: 'refresh.reuse_detected', at: 1, clientId: 'app-3', reason: 'other_client', requestId: 'req-3' });
  expect(lines).toEqual([
    'platform-auth: refresh-token reuse by client "app-1" (after_grace): every token of that grant was revoked [request req-1]',
    'platform-auth: the metadata document of client "https://x.example/a" could not be used (status 404)',
    'platform-auth: refresh-token reuse by client "app-3" (other_client): every token of that grant was revoked [request req-3] (and 1 more like it since the last line)',
  ]);
});
