/**
 * The part of a client's metadata anyone may see: what a registration response shows.
 * Never a secret, never a registration access token.
 *
 * @module
 */
const PUBLIC_FIELDS = [
  'client_id', 'client_name', 'redirect_uris', 'grant_types', 'response_types', 'token_endpoint_auth_method',
  'scope', 'application_type', 'client_uri', 'logo_uri', 'policy_uri', 'tos_uri', 'audience',
] as const;

export function publicClientMetadata(metadata: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of PUBLIC_FIELDS) {
    if (metadata[field] !== undefined) out[field] = metadata[field];
  }
  return out;
}
