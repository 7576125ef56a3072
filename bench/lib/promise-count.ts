/**
 * Counts the promises a process creates, for `node bench/instructions.ts --measure promises`:
 * loaded into a server child with `--import`, it installs an async hook whose `init` counts
 * every `PROMISE` resource, and leaves a reader on `globalThis` that the child's `$promises`
 * call answers with (bench/lib/server-child.ts).
 *
 * Why count promises: under oidc-provider's AsyncLocalStorage every promise pays the runtime's
 * promise hooks and a microtask, so on a cheap request (a revocation, an introspection) the
 * promises a layer adds are a large share of what it costs, and unlike seconds their number is
 * the same for the same code however busy the machine is. The hook itself makes each promise
 * dearer; compare servers counted the same way, never against a process without it.
 *
 * @module
 */
import { createHook } from 'node:async_hooks';

import { PROMISE_COUNTER } from './protocol.ts';

let created = 0;
createHook({
  init(_id, type) {
    if (type === 'PROMISE') created += 1;
  },
}).enable();

// the reader the child's `$promises` call answers with
(globalThis as Record<symbol, unknown>)[PROMISE_COUNTER] = () => created;
