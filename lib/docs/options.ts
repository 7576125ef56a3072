/**
 * `options.docs`: what it accepts, its defaults, and the one place they are checked.
 *
 * @module
 */
import { checkFunction, checkKnownKeys, checkObject, fail, isPlainObject, mustBe, show, unknownKey } from '../config/check.ts';
import { OPENAPI_METHODS } from './openapi/types.ts';
import type { OpenApiDocument, OpenApiPathItem, OpenApiPaths } from './openapi/types.ts';

export interface OpenApiOptions {
  /**
   * The host's own routes, merged into `paths`: objects of OpenAPI path items, typically
   * from `describeBearerRoute()`. A path the library documents itself, or a path and method
   * given twice, is a ConfigurationError at start-up.
   * @default {@link DOCS_DEFAULTS}.openapi.paths
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
   * @default none: the page names only the library's own limits (authorization requests,
   * refreshes per grant and sign-in attempts; registrations and Client ID Metadata Document
   * fetches where those limits apply)
   */
  rateLimits?: string;
  /**
   * Further limits the host applies, listed in the Limits section as given.
   * @default {@link DOCS_DEFAULTS}.authMd.limits
   */
  limits?: readonly LimitRow[];
}

/** `GET /openapi.json` and `GET /auth.md`, both rendered from the configuration at start-up. */
export interface DocsOptions {
  /**
   * `GET /openapi.json`, the OpenAPI 3.1 description of every endpoint: `false` turns it
   * off (404), an object adds the host's routes.
   * @default {@link DOCS_DEFAULTS}.openapi.enabled
   */
  openapi?: boolean | OpenApiOptions;
  /**
   * `GET /auth.md`, this deployment's authorization interface in markdown: `false` turns it
   * off (404), an object adds the host's limits.
   * @default {@link DOCS_DEFAULTS}.authMd.enabled
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

/**
 * What `options.docs` is when left out, in the shape of {@link DocsOptions}: `enabled` is the
 * default of `openapi`/`authMd` themselves (the one place these defaults are written; the
 * TSDoc above and the README point here).
 */
export const DOCS_DEFAULTS = Object.freeze({
  openapi: Object.freeze({ enabled: true, paths: Object.freeze([]) as readonly OpenApiPaths[] }),
  authMd: Object.freeze({ enabled: true, limits: Object.freeze([]) as readonly LimitRow[] }),
});

/** An OpenAPI 3.1 Path Item's fields besides its operations; `x-` extensions are taken too. */
const PATH_ITEM_FIELDS = ['$ref', 'summary', 'description', 'servers', 'parameters'] as const;

/** Merges path objects; a path and method described twice is an error, and so is a misspelt field (the route would go undescribed). */
export function mergePaths(name: string, groups: readonly OpenApiPaths[]): OpenApiPaths {
  const merged: Record<string, OpenApiPathItem> = {};
  groups.forEach((group, i) => {
    const where = groups.length > 1 ? `${name}[${i}]` : name;
    if (!isPlainObject(group)) mustBe(where, 'an object of OpenAPI path items, e.g. describeBearerRoute({ path, method, scopes, summary })', group);
    for (const [path, item] of Object.entries(group)) {
      if (!path.startsWith('/')) fail(`${where}: the path ${show(path)} must start with "/" (an OpenAPI path template such as "/admin/courses/{id}")`);
      if (!isPlainObject(item)) mustBe(`${where}[${show(path)}]`, 'an OpenAPI path item object', item);
      const target = (merged[path] ??= {}) as Record<string, unknown>;
      for (const [key, value] of Object.entries(item as Record<string, unknown>)) {
        const isMethod = (OPENAPI_METHODS as readonly string[]).includes(key);
        if (!isMethod && !(PATH_ITEM_FIELDS as readonly string[]).includes(key) && !key.startsWith('x-')) {
          unknownKey(`${where}[${show(path)}]`, key, [...OPENAPI_METHODS, ...PATH_ITEM_FIELDS], 'path item field');
        }
        if (isMethod && !isPlainObject(value)) mustBe(`${where}[${show(path)}].${key}`, 'an OpenAPI operation object', value);
        if (key in target) fail(`${where}: ${key.toUpperCase()} ${path} is described twice; describe each route once`);
        target[key] = value;
      }
    }
  });
  return merged;
}

function resolveOpenApi(value: unknown): ResolvedOpenApiOptions | false {
  const name = 'options.docs.openapi';
  const on = value === undefined ? DOCS_DEFAULTS.openapi.enabled : value;
  if (on === false) return false;
  const given = on === true ? {} : checkObject<OpenApiOptions>(name, on, 'true, false or { paths?, extend? }')!;
  checkKnownKeys(name, given, ['paths', 'extend']);
  const extend = checkFunction<(doc: OpenApiDocument) => void>(`${name}.extend`, given.extend, '(doc) => void that edits the document in place');
  const paths = given.paths ?? DOCS_DEFAULTS.openapi.paths;
  const groups = Array.isArray(paths) ? paths : [paths];
  return { paths: mergePaths(`${name}.paths`, groups as OpenApiPaths[]), extend };
}

function resolveAuthMd(value: unknown): ResolvedAuthMdOptions | false {
  const name = 'options.docs.authMd';
  const on = value === undefined ? DOCS_DEFAULTS.authMd.enabled : value;
  if (on === false) return false;
  const given = on === true ? {} : checkObject<Record<string, unknown>>(name, on, 'true, false or { rateLimits?, limits? }')!;
  checkKnownKeys(name, given, ['rateLimits', 'limits']);
  if (given.rateLimits !== undefined && (typeof given.rateLimits !== 'string' || !given.rateLimits.trim())) {
    mustBe(`${name}.rateLimits`, 'a non-empty sentence describing the host\'s rate limits', given.rateLimits);
  }
  const limits = given.limits ?? DOCS_DEFAULTS.authMd.limits;
  if (!Array.isArray(limits)) mustBe(`${name}.limits`, 'an array of { item, value } strings', limits);
  limits.forEach((row: unknown, i) => {
    if (!isPlainObject(row) || typeof row.item !== 'string' || !row.item || typeof row.value !== 'string' || !row.value) {
      mustBe(`${name}.limits[${i}]`, '{ item: string, value: string }, both non-empty', row);
    }
  });
  return {
    rateLimits: given.rateLimits as string | undefined,
    limits: Object.freeze((limits as LimitRow[]).map((r) => Object.freeze({ item: r.item, value: r.value }))),
  };
}

/** Defaults and checks `options.docs`; throws ConfigurationError naming the option and the fix. */
export function resolveDocsOptions(input: DocsOptions | undefined): ResolvedDocsOptions {
  const given = checkObject<DocsOptions>('options.docs', input, 'an object like { openapi: true, authMd: true }') ?? {};
  checkKnownKeys('options.docs', given, ['openapi', 'authMd']);
  return Object.freeze({
    openapi: resolveOpenApi(given.openapi),
    authMd: resolveAuthMd(given.authMd),
  });
}
