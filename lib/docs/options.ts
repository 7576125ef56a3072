/**
 * `options.docs`: what it accepts, its defaults, and the one place they are checked.
 *
 * @module
 */
import { ConfigurationError } from '../errors.ts';
import { OPENAPI_METHODS } from './openapi/types.ts';
import type { OpenApiDocument, OpenApiPathItem, OpenApiPaths } from './openapi/types.ts';

export interface OpenApiOptions {
  /**
   * The host's own routes, merged into `paths`: objects of OpenAPI path items, typically
   * from `describeBearerRoute()`. A path the library documents itself, or a path and method
   * given twice, is a ConfigurationError at start-up.
   * @default []
   */
  paths?: OpenApiPaths | readonly OpenApiPaths[];
  /**
   * The last word on the document: called once at start-up with the finished document
   * (library and host paths) to edit in place, e.g. `info.version`, tags, extra schemas.
   * @default none
   */
  extend?: (doc: OpenApiDocument) => void;
}

/** A row of the Limits section of `/auth.md`. */
export interface LimitRow {
  readonly item: string;
  readonly value: string;
}

export interface AuthMdOptions {
  /**
   * The rate limits the host applies (in a proxy or the host app), as a sentence, e.g.
   * `"600 requests per minute per IP address; 429 with Retry-After beyond"`.
   * @default none: the page says this server applies no rate limits
   */
  rateLimits?: string;
  /**
   * Further limits the host applies, listed in the Limits section as given.
   * @default []
   */
  limits?: readonly LimitRow[];
}

/** `GET /openapi.json` and `GET /auth.md`, both rendered from the configuration at start-up. */
export interface DocsOptions {
  /**
   * `GET /openapi.json`, the OpenAPI 3.1 description of every endpoint: `false` turns it
   * off (404), an object adds the host's routes.
   * @default true
   */
  openapi?: boolean | OpenApiOptions;
  /**
   * `GET /auth.md`, this deployment's authorization interface in markdown: `false` turns it
   * off (404), an object adds the host's limits.
   * @default true
   */
  authMd?: boolean | AuthMdOptions;
}

export interface ResolvedOpenApiOptions {
  /** the host's paths, merged */
  readonly paths: OpenApiPaths;
  readonly extend: ((doc: OpenApiDocument) => void) | undefined;
}

export interface ResolvedAuthMdOptions {
  readonly rateLimits: string | undefined;
  readonly limits: readonly LimitRow[];
}

export interface ResolvedDocsOptions {
  readonly openapi: ResolvedOpenApiOptions | false;
  readonly authMd: ResolvedAuthMdOptions | false;
}

function fail(message: string): never {
  throw new ConfigurationError(message);
}

function show(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'function') return 'a function';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function checkKeys(name: string, value: Record<string, unknown>, known: readonly string[]): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) fail(`${name}.${key} is not a known option; use one of ${known.join(', ')}`);
  }
}

/** Merges path objects; a path and method described twice is an error. */
export function mergePaths(name: string, groups: readonly OpenApiPaths[]): OpenApiPaths {
  const merged: Record<string, OpenApiPathItem> = {};
  groups.forEach((group, i) => {
    const where = groups.length > 1 ? `${name}[${i}]` : name;
    if (!isObject(group)) fail(`${where} must be an object of OpenAPI path items, e.g. describeBearerRoute({ path, method, scopes, summary }); got ${show(group)}`);
    for (const [path, item] of Object.entries(group)) {
      if (!path.startsWith('/')) fail(`${where}: the path ${show(path)} must start with "/" (an OpenAPI path template such as "/admin/courses/{id}")`);
      if (!isObject(item)) fail(`${where}[${show(path)}] must be an OpenAPI path item object; got ${show(item)}`);
      const target = (merged[path] ??= {}) as Record<string, unknown>;
      for (const [key, value] of Object.entries(item as Record<string, unknown>)) {
        const isMethod = (OPENAPI_METHODS as readonly string[]).includes(key);
        if (isMethod && !isObject(value)) fail(`${where}[${show(path)}].${key} must be an OpenAPI operation object; got ${show(value)}`);
        if (key in target) fail(`${where}: ${key.toUpperCase()} ${path} is described twice; describe each route once`);
        target[key] = value;
      }
    }
  });
  return merged;
}

function resolveOpenApi(value: unknown): ResolvedOpenApiOptions | false {
  const name = 'options.docs.openapi';
  if (value === undefined || value === true) return { paths: {}, extend: undefined };
  if (value === false) return false;
  if (!isObject(value)) fail(`${name} must be true, false or { paths?, extend? }; got ${show(value)}`);
  checkKeys(name, value, ['paths', 'extend']);
  if (value.extend !== undefined && typeof value.extend !== 'function') fail(`${name}.extend must be a function (doc) => void that edits the document in place; got ${show(value.extend)}`);
  const groups = value.paths === undefined ? [] : Array.isArray(value.paths) ? value.paths : [value.paths];
  return {
    paths: mergePaths(`${name}.paths`, groups as OpenApiPaths[]),
    extend: value.extend as ResolvedOpenApiOptions['extend'],
  };
}

function resolveAuthMd(value: unknown): ResolvedAuthMdOptions | false {
  const name = 'options.docs.authMd';
  if (value === undefined || value === true) return { rateLimits: undefined, limits: [] };
  if (value === false) return false;
  if (!isObject(value)) fail(`${name} must be true, false or { rateLimits?, limits? }; got ${show(value)}`);
  checkKeys(name, value, ['rateLimits', 'limits']);
  if (value.rateLimits !== undefined && (typeof value.rateLimits !== 'string' || !value.rateLimits.trim())) {
    fail(`${name}.rateLimits must be a non-empty sentence describing the host's rate limits; got ${show(value.rateLimits)}`);
  }
  const limits = value.limits ?? [];
  if (!Array.isArray(limits)) fail(`${name}.limits must be an array of { item, value } strings; got ${show(limits)}`);
  limits.forEach((row: unknown, i) => {
    if (!isObject(row) || typeof row.item !== 'string' || !row.item || typeof row.value !== 'string' || !row.value) {
      fail(`${name}.limits[${i}] must be { item: string, value: string }, both non-empty; got ${show(row)}`);
    }
  });
  return {
    rateLimits: value.rateLimits as string | undefined,
    limits: Object.freeze((limits as LimitRow[]).map((r) => Object.freeze({ item: r.item, value: r.value }))),
  };
}

/** Defaults and checks `options.docs`; throws ConfigurationError naming the option and the fix. */
export function resolveDocsOptions(input: DocsOptions | undefined): ResolvedDocsOptions {
  if (input !== undefined && !isObject(input)) fail(`options.docs must be an object like { openapi: true, authMd: true }; got ${show(input)}`);
  const given = input ?? {};
  checkKeys('options.docs', given as Record<string, unknown>, ['openapi', 'authMd']);
  return Object.freeze({
    openapi: resolveOpenApi(given.openapi),
    authMd: resolveAuthMd(given.authMd),
  });
}
