/**
 * The paging arguments every list tool takes, built once per cap: `first` and `after`, the
 * same forward pagination as the Account API (lib/member-data/pagination.ts).
 *
 * @module
 */
import { z } from 'zod';

import type { Connection } from '../../member-data/pagination.ts';

export function pagingShape(maxPageSize: number, defaultPageSize: number) {
  return {
    first: z.number().int().min(1).max(maxPageSize).default(Math.min(defaultPageSize, maxPageSize))
      .describe(`how many items to return, 1 to ${maxPageSize}`),
    after: z.string().max(128).optional()
      .describe('pageInfo.endCursor of the previous page, to get the next one'),
  };
}

/** A connection as a tool answers it: the items under `key`, then paging. */
export function pageOf<T>(key: string, connection: Connection<T>): Record<string, unknown> {
  return { [key]: connection.nodes, pageInfo: connection.pageInfo, totalCount: connection.totalCount };
}
