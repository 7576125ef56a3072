/**
 * The Account API, `POST /account/graphql`. Placeholder: mounted by the composition root
 * when `options.memberData` is set; the implementation lands with the Account API work.
 *
 * @module
 */
import type { Middleware } from 'koa';

import type { Logger } from '../config/options.ts';
import type { MemberDataSource } from '../member-data/types.ts';
import type { BearerVerifier } from '../resource/bearer.ts';

// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- placeholder
export interface AccountApiOptions {}

export type ResolvedAccountApiOptions = Required<AccountApiOptions>;

/** Defaults and checks `options.accountApi`; throws ConfigurationError naming the fix. */
export function resolveAccountApiOptions(input: AccountApiOptions | undefined, _production: boolean): ResolvedAccountApiOptions {
  return { ...input };
}

export interface AccountApiDeps {
  readonly bearer: BearerVerifier;
  /** the RFC 9728 metadata URL for `WWW-Authenticate` challenges */
  readonly resourceMetadata: string;
  readonly dataSource: MemberDataSource;
  readonly options: ResolvedAccountApiOptions;
  readonly production: boolean;
  readonly logger: Logger;
}

export function createAccountApi(_deps: AccountApiDeps): Middleware {
  return async function accountApi(_ctx, next) {
    await next();
  };
}
