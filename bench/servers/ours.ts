/**
 * Ours: the demo host (examples/host/app.ts), i.e. platform-auth mounted in Koa exactly as a
 * host mounts it, with the scenario's storage, the run's ES256 key and cookie secrets.
 *
 * @module
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import { buildApp } from '../../examples/host/app.ts';
import { demoMcpOptions } from '../../examples/host/mcp-tools.ts';
import { createAccountStore } from '../../examples/host/seed.ts';
import type { Logger, PlatformAuthOptions } from '../../lib/index.ts';
import type { BuildServer, ServerTarget } from '../lib/types.ts';
import { mintAccessTokens } from './mint.ts';

export const OPERATOR_SECRET = 'bench-operator-secret-0123456789abcdef';

export const ours: ServerTarget = {
  id: 'ours',
  label: 'platform-auth',
  module: import.meta.url,
  export: 'buildOurs',
};

// start-up warnings are expected (no production settings); errors still reach stderr
const quiet: Logger = { info() {}, warn() {}, error: (m) => console.error(m) };

/**
 * Every flow of a run comes from one address (the load generator's), far faster than people
 * behind one address sign in: the authorization-request rate is raised out of reach, not
 * turned off, so each authorization request still pays for its count (what it costs is
 * bench/scenarios/login-authorization-rate.ts).
 */
const BENCH_AUTHORIZATION_RATE = Object.freeze({ perIp: 1_000_000, windowSeconds: 1 });

/**
 * Each connection of the refresh workload refreshes one grant hundreds of times a second, as
 * no client does: the refresh rate per grant is raised out of reach, not turned off, so each
 * refresh still pays for its count (what it costs is bench/scenarios/refresh-rate.ts).
 */
const BENCH_REFRESH_RATE = Object.freeze({ perGrant: 1_000_000, windowSeconds: 1 });

/**
 * The demo host with some options of createPlatformAuth changed, for a scenario that
 * measures ours against ours (e.g. `refreshTokenGrace: 0`, bench/scenarios/refresh-grace.ts).
 */
export function buildOursWith(auth: Partial<PlatformAuthOptions>): BuildServer {
  return async (env) => {
    const demo = await buildApp({
      baseUrl: env.origin,
      operatorSecret: OPERATOR_SECRET,
      auth: {
        adapter: env.createAdapter(),
        jwks: env.jwks,
        cookieKeys: env.cookieKeys,
        logger: quiet,
        authorizationRateLimit: BENCH_AUTHORIZATION_RATE,
        refreshTokenRateLimit: BENCH_REFRESH_RATE,
        ...auth,
      },
    });
    return {
      listener: demo.app.callback(),
      commands: { mintAccessTokens: mintAccessTokens(demo.auth.provider) },
      close: () => demo.close(),
    };
  };
}

export const buildOurs: BuildServer = buildOursWith({});

/** Ours with the refresh-token grace wrapper off (`refreshTokenGrace: 0`): strict single use. */
export const oursNoGrace: ServerTarget = {
  id: 'ours-no-grace',
  label: 'platform-auth, refreshTokenGrace: 0',
  module: import.meta.url,
  export: 'buildOursNoGrace',
};

export const buildOursNoGrace: BuildServer = buildOursWith({ refreshTokenGrace: 0 });

/**
 * Ours on the memory adapter whatever the scenario's storage: the other side of ours on Redis
 * in the same run (bench/scenarios/refresh-redis.ts), so that what Redis costs ours is read as
 * a same-run ratio, like every other target, not from two runs minutes apart.
 */
export const oursOnMemory: ServerTarget = {
  id: 'ours-memory',
  label: 'platform-auth on the memory adapter',
  module: import.meta.url,
  export: 'buildOursOnMemory',
};

export const buildOursOnMemory: BuildServer = (env) => buildOurs({ ...env, storage: 'memory', createAdapter: () => createMemoryAdapter() });

/** Ours with sign-in throttling off (`signInThrottle: false`), for what the throttle costs a login. */
export const oursNoThrottle: ServerTarget = {
  id: 'ours-no-throttle',
  label: 'platform-auth, signInThrottle: false',
  module: import.meta.url,
  export: 'buildOursNoThrottle',
};

export const buildOursNoThrottle: BuildServer = buildOursWith({ signInThrottle: false });

/** Ours without the authorization-request rate (`authorizationRateLimit: false`), for what counting costs a login. */
export const oursNoAuthorizationRate: ServerTarget = {
  id: 'ours-no-authorization-rate',
  label: 'platform-auth, authorizationRateLimit: false',
  module: import.meta.url,
  export: 'buildOursNoAuthorizationRate',
};

export const buildOursNoAuthorizationRate: BuildServer = buildOursWith({ authorizationRateLimit: false });

/** Ours without the refresh rate per grant (`refreshTokenRateLimit: false`), for what counting costs a refresh. */
export const oursNoRefreshRate: ServerTarget = {
  id: 'ours-no-refresh-rate',
  label: 'platform-auth, refreshTokenRateLimit: false',
  module: import.meta.url,
  export: 'buildOursNoRefreshRate',
};

export const buildOursNoRefreshRate: BuildServer = buildOursWith({ refreshTokenRateLimit: false });

/**
 * Ours with diagnostics off (`events: false`: no event is built, so nothing is traced,
 * counted or logged from events), for what events, the trace and metrics cost.
 */
export const oursNoDiagnostics: ServerTarget = {
  id: 'ours-no-diagnostics',
  label: 'platform-auth, events: false',
  module: import.meta.url,
  export: 'buildOursNoDiagnostics',
};

export const buildOursNoDiagnostics: BuildServer = buildOursWith({ events: false });

/**
 * Ours on a Redis adapter that writes each command at once (`coalesceWrites: false`), for
 * what holding a loop iteration's commands for one socket write gains (adapters/redis.ts).
 */
export const oursNoCoalescing: ServerTarget = {
  id: 'ours-no-coalescing',
  label: 'platform-auth, Redis coalesceWrites: false',
  module: import.meta.url,
  export: 'buildOursNoCoalescing',
};

export const buildOursNoCoalescing: BuildServer = (env) => buildOurs({ ...env, createAdapter: () => env.createAdapter({ coalesceWrites: false }) });

/**
 * Ours without the bound on the wait for an `/mcp` answer (`mcp.answerTimeout: false`: no
 * timer, no race per POST), for what the bound costs a tools/call
 * (bench/scenarios/mcp-answer-bound.ts). The demo host replaces, not merges, `options.mcp`
 * given through `auth`, so the demo's own MCP options are restated here: the same tools and
 * default site (its operator tools get an account store of their own, which the member
 * workload never calls).
 */
export const oursNoAnswerBound: ServerTarget = {
  id: 'ours-no-answer-bound',
  label: 'platform-auth, mcp.answerTimeout: false',
  module: import.meta.url,
  export: 'buildOursNoAnswerBound',
};

export const buildOursNoAnswerBound: BuildServer = buildOursWith({
  mcp: { ...demoMcpOptions({ accounts: createAccountStore() }), answerTimeout: false },
});
