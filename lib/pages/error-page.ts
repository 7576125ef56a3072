/**
 * oidc-provider's `renderError`: the page a user sees when an authorization request cannot
 * be sent back to the client (unknown client, bad redirect_uri). Shows the public error
 * code and description only.
 *
 * @module
 */
import type { KoaContextWithOIDC, ErrorOut } from 'oidc-provider';

import { writeNoticePage } from './notice.ts';

export async function renderProviderError(ctx: KoaContextWithOIDC, out: ErrorOut, _error: Error): Promise<void> {
  // the status is the provider's, already set
  writeNoticePage(ctx, ctx.status, {
    title: 'This sign-in link does not work',
    message: `${out.error}: ${out.error_description ?? 'the request could not be processed'}`,
  });
}
