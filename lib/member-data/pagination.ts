/**
 * Forward pagination with opaque cursors (`first`/`after`, Relay-style connections), shared
 * by the Account API and the MCP tools. A cursor names a position in one list; it is opaque
 * so the encoding can change without breaking callers.
 *
 * @module
 */
import { MemberDataInputError } from './errors.ts';
import type { PageRequest, PageResult } from '../contracts.ts';

/** Items per page when the caller gives no `first`. */
export const DEFAULT_PAGE_SIZE = 20;
/** The default cap on `first` (`options.accountApi.maxPageSize`); larger requests are refused, not trimmed. */
export const MAX_PAGE_SIZE = 100;

/** What the caller asks for. */
export interface PageArgs {
  /** how many items, 0 ≤ first ≤ the cap; @default DEFAULT_PAGE_SIZE (or the cap, when lower) */
  readonly first?: number | null;
  /** the `endCursor` of the previous page; absent for the first page */
  readonly after?: string | null;
}

export interface PageInfo {
  readonly hasNextPage: boolean;
  /** pass as `after` for the next page; null on an empty page */
  readonly endCursor: string | null;
}

export interface Connection<T> {
  readonly nodes: readonly T[];
  readonly pageInfo: PageInfo;
  readonly totalCount: number;
}

// far beyond any real list; keeps a forged cursor from reaching the data source as a huge offset
const MAX_OFFSET = 1_000_000_000;
const MAX_CURSOR_LENGTH = 128;

export function encodeCursor(list: string, offset: number): string {
  return Buffer.from(`${list}:${offset}`, 'utf8').toString('base64url');
}

/** The offset a cursor of `list` points at; throws INVALID_CURSOR for anything else. */
export function decodeCursor(list: string, cursor: string, argument = 'after'): number {
  const invalid = () => new MemberDataInputError('INVALID_CURSOR', argument, `${argument} is not a cursor of this list; pass the endCursor of a previous page`);
  if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid();
  const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
  const separator = decoded.lastIndexOf(':');
  if (separator < 0 || decoded.slice(0, separator) !== list) throw invalid();
  const digits = decoded.slice(separator + 1);
  if (!/^(0|[1-9][0-9]{0,9})$/.test(digits)) throw invalid();
  const offset = Number(digits);
  if (offset > MAX_OFFSET) throw invalid();
  return offset;
}

/** Checks `first`/`after` against the cap and turns them into the window to fetch. */
export function resolvePage(list: string, args: PageArgs, maxPageSize: number): PageRequest {
  // a cap set below the default lowers the default with it
  const first = args.first ?? Math.min(DEFAULT_PAGE_SIZE, maxPageSize);
  if (!Number.isSafeInteger(first) || first < 0) {
    throw new MemberDataInputError('INVALID_PAGE_SIZE', 'first', `first must be a whole number from 0 to ${maxPageSize}; got ${first}`);
  }
  if (first > maxPageSize) {
    throw new MemberDataInputError('PAGE_SIZE_TOO_LARGE', 'first', `first must be at most ${maxPageSize}; got ${first}. Fetch further pages with after: pageInfo.endCursor`, maxPageSize);
  }
  const offset = args.after == null ? 0 : decodeCursor(list, args.after);
  return { offset, limit: Math.min(first, maxPageSize) };
}

/** Shapes a page the data source returned; extra items beyond `limit` are dropped. */
export function toConnection<R, T>(list: string, page: PageRequest, result: PageResult<R>, map: (record: R) => T): Connection<T> {
  const records = result.items.length > page.limit ? result.items.slice(0, page.limit) : result.items;
  const nodes = records.map(map);
  const end = page.offset + nodes.length;
  return {
    nodes,
    pageInfo: {
      hasNextPage: end < result.totalCount,
      endCursor: nodes.length > 0 ? encodeCursor(list, end) : null,
    },
    totalCount: result.totalCount,
  };
}
