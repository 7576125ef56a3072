/**
 * What the README's snippets take as given: a host's own objects, declared here with the types
 * a host would have, so that scripts/test-dist.ts can compile each ```ts block between the
 * README's `dist-host:start` and `dist-host:end` markers as a file of its own
 * (src/readme-<n>.generated.ts), against the installed package only.
 */
import type { Router } from '@koa/router';
import type Koa from 'koa';
import type { AccountStore, PlatformAuth, PlatformAuthOptions } from 'platform-auth';

declare global {
  /** the host's accounts */
  const accounts: AccountStore;
  /** what `npx platform-auth keys` printed, read from a secret manager */
  const secrets: Pick<Required<PlatformAuthOptions>, 'jwks' | 'cookieKeys'>;
  const baseUrl: string;
  /** the host's storage, e.g. createRedisAdapter(…) (README "Storage") */
  const adapter: NonNullable<PlatformAuthOptions['adapter']>;
  /** from an earlier snippet */
  const auth: PlatformAuth;
  const app: Koa;
  /** the host's own routers */
  const router: Router;
  const adminRouter: Router;
  /** the host's own data access */
  function listCourses(site: string | undefined): Promise<readonly { slug: string; title: string }[]>;
  /** the host's own sign-in and session (README "Sign-in options") */
  function readMySession(ctx: Koa.Context): { accountId: string; signedInAt: number } | undefined;
  function checkPasswordAndMfa(ctx: Koa.Context): Promise<{ id: string } | undefined>;
  function showLoginPage(ctx: Koa.Context, error: string, status?: number): void;
  /** a field of the host's parsed form (the sign-in page carries the pending sign-in's id) */
  function formField(ctx: Koa.Context, name: string): string | undefined;
  function startMySession(ctx: Koa.Context, accountId: string): void;
  function endMySession(ctx: Koa.Context): void;
}

export {};
