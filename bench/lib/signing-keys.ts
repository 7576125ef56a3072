/**
 * The run's ES256 signing key: one for every server of a run, so signing costs are equal.
 *
 * @module
 */
import { generateKeyPairSync } from 'node:crypto';

import type { JWKS } from 'oidc-provider';

export function signingKeys(): JWKS {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'bench-es256', alg: 'ES256', use: 'sig' }] };
}
