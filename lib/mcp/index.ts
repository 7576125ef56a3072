/**
 * The MCP endpoint, `/mcp`. Placeholder: mounted by the composition root; the
 * implementation lands with the MCP work.
 *
 * @module
 */
import type { Middleware } from 'koa';

import type { Logger } from '../config/options.ts';
import type { MemberDataSource } from '../member-data/types.ts';
import type { BearerVerifier } from '../resource/bearer.ts';

// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- placeholder
export interface McpOptions {}

export type ResolvedMcpOptions = McpOptions & { readonly enabled: boolean };

/** Defaults and checks `options.mcp`; throws ConfigurationError naming the fix. */
export function resolveMcpOptions(input: McpOptions | false | undefined): ResolvedMcpOptions {
  return { ...(input || {}), enabled: input !== false };
}

export interface McpDeps {
  readonly baseUrl: string;
  readonly bearer: BearerVerifier;
  /** the RFC 9728 metadata URL for `WWW-Authenticate` challenges */
  readonly resourceMetadata: string;
  readonly dataSource: MemberDataSource | undefined;
  readonly options: ResolvedMcpOptions;
  readonly logger: Logger;
}

export function createMcpEndpoint(_deps: McpDeps): Middleware {
  return async function mcp(_ctx, next) {
    await next();
  };
}
