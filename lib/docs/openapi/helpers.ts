/**
 * Small builders shared by the parts of `/openapi.json`.
 *
 * @module
 */
import type { FieldDoc } from '../protocol.ts';
import type { JsonSchema } from './types.ts';

/** The name of the OAuth2 security scheme. */
export const SECURITY_SCHEME = 'oauth2';

export const ref = (kind: 'schemas' | 'responses' | 'headers', name: string) => ({ $ref: `#/components/${kind}/${name}` });

export function jsonContent(schema: JsonSchema, example?: unknown): Record<string, unknown> {
  return { 'application/json': example === undefined ? { schema } : { schema, example } };
}

/** A form-encoded object schema from field docs. */
export function formSchema(fields: readonly FieldDoc[], description?: string): JsonSchema {
  return {
    type: 'object',
    ...(description ? { description } : {}),
    required: fields.filter((f) => f.mandatory).map((f) => f.name),
    properties: Object.fromEntries(fields.map((f) => [f.name, { ...f.schema, description: f.rule }])),
  };
}
