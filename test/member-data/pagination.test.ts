/**
 * Forward pagination: the cap, the default, opaque cursors bound to their list, and a walk
 * that returns every item exactly once.
 */
import {
  DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, MemberDataInputError, decodeCursor, encodeCursor, resolvePage, toConnection,
} from '../../lib/member-data/index.ts';
import type { PageRequest } from '../../lib/member-data/index.ts';

function inputError(fn: () => unknown): MemberDataInputError {
  try {
    fn();
  } catch (error) {
    if (error instanceof MemberDataInputError) return error;
    throw error;
  }
  throw new Error('expected a MemberDataInputError');
}

describe('resolvePage', () => {
  it('defaults to the first page of DEFAULT_PAGE_SIZE items', () => {
    expect(DEFAULT_PAGE_SIZE).toBe(20);
    expect(resolvePage('enrolments', {}, MAX_PAGE_SIZE)).toEqual({ offset: 0, limit: 20 });
    expect(resolvePage('enrolments', { first: null, after: null }, MAX_PAGE_SIZE)).toEqual({ offset: 0, limit: 20 });
  });

  it('accepts first up to the cap and refuses more, naming the cap', () => {
    expect(MAX_PAGE_SIZE).toBe(100);
    expect(resolvePage('orders', { first: 100 }, 100)).toEqual({ offset: 0, limit: 100 });
    expect(resolvePage('orders', { first: 0 }, 100)).toEqual({ offset: 0, limit: 0 });
    const error = inputError(() => resolvePage('orders', { first: 101 }, 100));
    expect(error).toMatchObject({ code: 'PAGE_SIZE_TOO_LARGE', argument: 'first', maximum: 100 });
    expect(error.message).toContain('at most 100');
    expect(inputError(() => resolvePage('orders', { first: 6 }, 5)).maximum).toBe(5);
  });

  it('refuses a negative or fractional first', () => {
    expect(inputError(() => resolvePage('orders', { first: -1 }, 100)).code).toBe('INVALID_PAGE_SIZE');
    expect(inputError(() => resolvePage('orders', { first: 1.5 }, 100)).code).toBe('INVALID_PAGE_SIZE');
  });
});

describe('cursors', () => {
  it('round-trip an offset within their own list', () => {
    const cursor = encodeCursor('enrolments', 40);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(cursor).not.toContain('40');
    expect(decodeCursor('enrolments', cursor)).toBe(40);
    expect(resolvePage('enrolments', { first: 5, after: cursor }, 100)).toEqual({ offset: 40, limit: 5 });
  });

  it.each([
    ['a cursor of another list', encodeCursor('orders', 3)],
    ['garbage', 'not a cursor!'],
    ['base64 of something else', Buffer.from('hello').toString('base64url')],
    ['a negative offset', Buffer.from('enrolments:-1').toString('base64url')],
    ['a huge offset', Buffer.from('enrolments:99999999999').toString('base64url')],
    ['an overlong value', 'A'.repeat(500)],
    ['an empty string', ''],
  ])('refuses %s', (_name, cursor) => {
    const error = inputError(() => resolvePage('enrolments', { after: cursor }, 100));
    expect(error).toMatchObject({ code: 'INVALID_CURSOR', argument: 'after' });
  });
});

describe('toConnection', () => {
  const items = Array.from({ length: 53 }, (_, i) => `item-${i}`);
  const fetchPage = (page: PageRequest) => ({ items: items.slice(page.offset, page.offset + page.limit), totalCount: items.length });

  it('walks every item exactly once, page by page', () => {
    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    for (;;) {
      const page = resolvePage('things', { first: 10, after }, 100);
      const connection = toConnection('things', page, fetchPage(page), (s: string) => s.toUpperCase());
      seen.push(...connection.nodes);
      pages += 1;
      expect(connection.totalCount).toBe(53);
      if (!connection.pageInfo.hasNextPage) break;
      after = connection.pageInfo.endCursor;
      expect(after).toEqual(expect.any(String));
    }
    expect(pages).toBe(6);
    expect(seen).toEqual(items.map((s) => s.toUpperCase()));
  });

  it('answers an empty page past the end with no cursor', () => {
    const page = { offset: 60, limit: 10 };
    const connection = toConnection('things', page, fetchPage(page), (s: string) => s);
    expect(connection).toEqual({ nodes: [], pageInfo: { hasNextPage: false, endCursor: null }, totalCount: 53 });
  });

  it('drops items a source returns beyond the limit', () => {
    const connection = toConnection('things', { offset: 0, limit: 2 }, { items: ['a', 'b', 'c'], totalCount: 3 }, (s: string) => s);
    expect(connection.nodes).toEqual(['a', 'b']);
    expect(connection.pageInfo.hasNextPage).toBe(true);
    expect(decodeCursor('things', connection.pageInfo.endCursor!)).toBe(2);
  });
});
