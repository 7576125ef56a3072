/**
 * The parts of an OpenAPI 3.1 document this library writes, typed loosely: schemas are JSON
 * Schema 2020-12 objects, and everything accepts `x-` extensions.
 *
 * @module
 */

/** A JSON Schema (2020-12) object, as OpenAPI 3.1 embeds it. */
export type JsonSchema = { readonly [keyword: string]: unknown };

/** Lower-case HTTP methods, the keys of a path item. */
export type OpenApiMethod = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';

export const OPENAPI_METHODS: readonly OpenApiMethod[] = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export interface OpenApiOperation {
  summary?: string;
  description?: string;
  operationId?: string;
  tags?: string[];
  parameters?: Record<string, unknown>[];
  requestBody?: Record<string, unknown>;
  responses: Record<string, unknown>;
  security?: Record<string, string[]>[];
  [extension: `x-${string}`]: unknown;
}

export type OpenApiPathItem = { [M in OpenApiMethod]?: OpenApiOperation } & {
  summary?: string;
  description?: string;
  parameters?: Record<string, unknown>[];
};

/** `paths` of a document: an OpenAPI path template (`/courses/{id}`) → its operations. */
export type OpenApiPaths = Record<string, OpenApiPathItem>;

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string; [key: string]: unknown };
  servers: { url: string; description?: string }[];
  tags: { name: string; description?: string }[];
  paths: OpenApiPaths;
  components: {
    schemas: Record<string, JsonSchema>;
    responses: Record<string, unknown>;
    headers: Record<string, unknown>;
    securitySchemes: Record<string, unknown>;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}
