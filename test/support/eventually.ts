/**
 * Waiting for what another instance, a timer or a background write makes true, without
 * betting on how long it takes: `read` until `done` holds or `timeoutMs` has passed, then
 * hand back the last reading for the test to assert on (so a timeout fails on the test's own
 * expectation, with the value it saw).
 *
 * @module
 */
export interface EventuallyOptions {
  /** how long to keep reading; far above the expected time, so a slow CI machine still passes */
  readonly timeoutMs?: number;
  readonly intervalMs?: number;
}

export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, options: EventuallyOptions = {}): Promise<T> {
  const { timeoutMs = 5000, intervalMs = 50 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() >= deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
