/**
 * Self-description: `GET /openapi.json` and `GET /auth.md`, rendered from the scope
 * catalogue, the endpoint table and the resolved options. Placeholder until it lands.
 *
 * @module
 */
import type { Middleware } from 'koa';

import type { ResolvedOptions } from '../config/options.ts';

// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- placeholder
export interface DocsOptions {}

export type ResolvedDocsOptions = DocsOptions;

/** Defaults and checks `options.docs`; throws ConfigurationError naming the fix. */
export function resolveDocsOptions(input: DocsOptions | undefined): ResolvedDocsOptions {
  return { ...input };
}

export interface DocsDeps {
  readonly options: ResolvedOptions;
}

export function createDocsRouter(_deps: DocsDeps): Middleware {
  return async function docs(_ctx, next) {
    await next();
  };
}
