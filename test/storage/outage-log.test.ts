import type { Logger } from '../../lib/contracts.ts';
import { OUTAGE_QUIET_MS, outageLog } from '../../lib/storage/outage-log.ts';

function recorder(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (m) => lines.push(`info ${m}`), warn: (m) => lines.push(`warn ${m}`), error: (m) => lines.push(`error ${m}`) };
}

describe('outage log', () => {
  it('warns on the first refusal, then at most once per quiet period with a count', () => {
    const logger = recorder();
    let now = 1_000_000;
    const log = outageLog(logger, () => now);

    log.refused('redis: ECONNREFUSED');
    expect(logger.lines).toEqual([expect.stringMatching(/^warn platform-auth: storage is unavailable \(redis: ECONNREFUSED\); requests that need it are answered 503/)]);

    for (let i = 0; i < 100; i += 1) {
      now += 500;
      log.refused(undefined);
    }
    // 50 s later: still within the quiet period
    expect(logger.lines).toHaveLength(1);

    now += 10_000;
    log.refused('redis: ECONNREFUSED');
    expect(logger.lines).toHaveLength(2);
    expect(logger.lines[1]).toBe('warn platform-auth: storage is still unavailable (redis: ECONNREFUSED); 101 requests answered 503 in the last 60 s');
  });

  it('a refusal after a quiet period is a new outage', () => {
    const logger = recorder();
    let now = 0;
    const log = outageLog(logger, () => now);
    log.refused(undefined);
    now += OUTAGE_QUIET_MS;
    log.refused('test: down');
    expect(logger.lines).toEqual([
      'warn platform-auth: storage is unavailable; requests that need it are answered 503 temporarily_unavailable until it is back',
      'warn platform-auth: storage is unavailable (test: down); requests that need it are answered 503 temporarily_unavailable until it is back',
    ]);
  });

  it('one log per logger: the two guards of an instance do not double the lines', () => {
    const logger = recorder();
    outageLog(logger).refused(undefined);
    outageLog(logger).refused(undefined);
    expect(logger.lines).toHaveLength(1);
    outageLog(recorder()).refused(undefined);
    expect(logger.lines).toHaveLength(1);
  });
});
