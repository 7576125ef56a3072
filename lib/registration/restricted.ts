/**
 * Variant A (restricted) registration, `POST /api/oauth/register`: the body's `client_name`
 * names a known vendor platform, and the answer is that platform's client (201, public
 * metadata only). Nothing is registered; an unknown name is `invalid_client_metadata`
 * (spec §4, Registration). oidc-provider's own registration stays disabled in this variant.
 * Browser clients may call it from any origin (lib/policies/cors.ts).
 *
 * Events: `registration.accepted` with the vendor's client id, or `registration.refused`
 * with the error and its description (no client id: there is none); oidc-provider's
 * `registration_create.*`, which Variant B's events come from, never fire here.
 *
 * @module
 */
import { bodyParser } from '@koa/bodyparser';
import type { Context, Middleware, Next } from 'koa';
import type Provider from 'oidc-provider';

import { ENDPOINTS } from '../endpoints.ts';
import { InvalidClientMetadataError, InvalidRequestError } from '../errors.ts';
import { diagnosticsOf } from '../events/diagnostics.ts';
import { allowedMethods, refuseUnservedMethod } from '../http/allowed-methods.ts';
import { isUtf8Charset, UTF8_JSON_ONLY } from '../http/charset.ts';
import { writeError } from '../http/error-response.ts';
import { OPEN_CORS, openCors } from '../policies/cors.ts';
import { publicClientMetadata } from './public-metadata.ts';
import { normaliseClientName } from './vendor-names.ts';

function refused(ctx: Context, error: string, description: string): void {
  const diagnostics = diagnosticsOf(ctx);
  if (diagnostics?.wants('registration.refused')) diagnostics.emit({ name: 'registration.refused', error, description }, ctx);
}

function refuse(ctx: Context, description: string): void {
  refused(ctx, 'invalid_client_metadata', description);
  writeError(ctx, new InvalidClientMetadataError(description));
}

export function restrictedRegistration(provider: Provider, vendors: ReadonlyMap<string, string>): Middleware {
  const path = ENDPOINTS.registration.path;
  const methods = allowedMethods(ENDPOINTS.registration);
  const json = bodyParser({ enableTypes: ['json'], jsonLimit: '16kb', encoding: 'utf-8' });

  // browser clients register too: every answer is readable from any origin; OPTIONS is the preflight
  const cors = openCors(OPEN_CORS.registration);

  async function register(ctx: Context): Promise<void> {
    if (refuseUnservedMethod(ctx, methods)) return;
    if (!ctx.is('application/json')) {
      refuse(ctx, 'the request body must be a JSON object (Content-Type: application/json)');
      return;
    }
    if (!isUtf8Charset(ctx.get('content-type'))) {
      refuse(ctx, UTF8_JSON_ONLY);
      return;
    }
    try {
      await json(ctx, async () => {});
    } catch (err) {
      if ((err as { status?: number }).status === 413) {
        refused(ctx, 'invalid_request', 'the request body is too large');
        writeError(ctx, new InvalidRequestError('the request body is too large', { status: 413 }));
        return;
      }
      refuse(ctx, 'the request body must be a JSON object');
      return;
    }
    const body = ctx.request.body as unknown;
    if (!body || typeof body !== 'object' || Array.isArray(body)) {
      refuse(ctx, 'the request body must be a JSON object');
      return;
    }
    const name = (body as Record<string, unknown>).client_name;
    if (typeof name !== 'string' || !normaliseClientName(name)) {
      refuse(ctx, 'client_name is required: it names the vendor platform you integrate as');
      return;
    }
    const clientId = vendors.get(normaliseClientName(name));
    const client = clientId === undefined ? undefined : await provider.Client.find(clientId);
    if (!client) {
      refuse(ctx, 'client_name does not match a known vendor platform; open dynamic registration is not offered by this server');
      return;
    }
    const diagnostics = diagnosticsOf(ctx);
    if (diagnostics?.wants('registration.accepted')) diagnostics.emit({ name: 'registration.accepted', clientId: client.clientId }, ctx);
    ctx.status = 201;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = publicClientMetadata(client.metadata() as Record<string, unknown>);
  }

  return function registerVendor(ctx: Context, next: Next) {
    if (ctx.path !== path) return next();
    return cors(ctx, () => register(ctx));
  };
}
