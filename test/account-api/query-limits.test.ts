/**
 * The depth and cost rule and the introspection refusal, run by graphql-js validation
 * against the Account API schema.
 */
import { readFileSync } from 'node:fs';

import { buildSchema, getIntrospectionQuery, parse, specifiedRules, validate } from 'graphql';
import type { GraphQLError, ValidationRule } from 'graphql';

import {
  ASSUMED_LIST_SIZE, MAX_FRAGMENT_NESTING, MAX_LISTS, NoIntrospectionRule, accountApiTypeDefs, createQueryLimitsRule, measureSelectionSet,
} from '../../lib/account-api/index.ts';
import type { Measure, QueryLimits } from '../../lib/account-api/index.ts';

const schema = buildSchema(accountApiTypeDefs);
const LIMITS: QueryLimits = { maxDepth: 10, maxCost: 10_000, maxPageSize: 100, defaultPageSize: 20 };

function measure(query: string, limits = LIMITS): Measure {
  let result: Measure | undefined;
  const probe: ValidationRule = (context) => ({
    OperationDefinition(node) {
      result = measureSelectionSet(context, node.selectionSet, schema.getQueryType()!, limits);
      return false;
    },
  });
  validate(schema, parse(query), [probe]);
  return result!;
}

function errorsOf(query: string, rules = [createQueryLimitsRule(LIMITS)]): readonly GraphQLError[] {
  return validate(schema, parse(query), [...specifiedRules, ...rules]);
}

const FULL_AT_CAP = `{ viewer { id email
  enrolledCourses(first: 100) { nodes { slug title enrolledAt expireDate hasLifetimeAccess lastWatchedLecture { lectureId positionSeconds } } pageInfo { hasNextPage endCursor } totalCount }
  orders(first: 100) { nodes { id number status createdAt total { amount currency } items { title kind quantity total { amount currency } } } pageInfo { hasNextPage endCursor } totalCount }
  eventRegistrations(first: 100) { nodes { id status registeredAt event { id title startsAt } } pageInfo { hasNextPage endCursor } totalCount }
} }`;

describe('measure', () => {
  it('counts each field once and multiplies list items by first', () => {
    // viewer, enrolledCourses, nodes, 20 × (slug, title)
    expect(measure('{ viewer { enrolledCourses { nodes { slug title } } } }')).toEqual({ cost: 3 + 20 * 2, depth: 4, nesting: 0, lists: 1 });
    expect(measure('{ viewer { enrolledCourses(first: 5) { nodes { slug } totalCount } } }')).toEqual({ cost: 4 + 5, depth: 4, nesting: 0, lists: 1 });
    expect(measure('{ viewer { enrolledCourses(first: 0) { nodes { slug } } } }').cost).toBe(3);
  });

  it('counts a variable first, or one above the cap, as the cap', () => {
    expect(measure('query ($n: Int) { viewer { enrolledCourses(first: $n) { nodes { slug } } } }').cost).toBe(3 + 100);
    expect(measure('{ viewer { enrolledCourses(first: 5000) { nodes { slug } } } }').cost).toBe(3 + 100);
  });

  it('charges a paged list its page, whatever is selected under it (the data source fetches the page all the same)', () => {
    // viewer, orders, and the 100 items fetched: not 2 for one field
    expect(measure('{ viewer { orders(first: 100) { __typename } } }').cost).toBe(2 + 100);
    expect(measure('{ viewer { orders { totalCount } } }').cost).toBe(2 + 20);
    expect(measure('{ viewer { orders { pageInfo { hasNextPage endCursor } } } }').cost).toBe(2 + 20);
    expect(measure('query ($n: Int) { viewer { eventRegistrations(first: $n) { totalCount } } }').cost).toBe(2 + 100);
    expect(measure('{ viewer { orders(first: 0) { totalCount } } }').cost).toBe(3);
    // what is selected still counts when it is more than the page
    expect(measure('{ viewer { orders(first: 5) { nodes { id number } totalCount } } }').cost).toBe(2 + (1 + 5 * 2) + 1);
  });

  it('counts the paged lists, aliases and fragments included', () => {
    expect(measure('{ viewer { id email } }').lists).toBe(0);
    expect(measure(`{ viewer { a: orders { totalCount } b: orders { totalCount } ...V ...V } }
      fragment V on Viewer { enrolledCourses { nodes { slug } } eventRegistrations { totalCount } }`).lists).toBe(6);
  });

  it('assumes a size for lists without first', () => {
    expect(measure('{ viewer { orders(first: 1) { nodes { items { title } } } } }').cost).toBe(3 + 1 * (1 + ASSUMED_LIST_SIZE));
  });

  it('follows fragments and inline fragments; __typename costs 1 like any field', () => {
    const direct = measure('{ viewer { enrolledCourses(first: 3) { nodes { slug title } } } }');
    const viaFragments = measure(`{ viewer { __typename enrolledCourses(first: 3) { ...C } } }
      fragment C on EnrolledCourseConnection { nodes { ... on EnrolledCourse { slug } ...T } }
      fragment T on EnrolledCourse { title __typename }`);
    // one under the viewer, one per course of the page of 3
    expect(viaFragments).toEqual({ ...direct, cost: direct.cost + 1 + 3, nesting: 2 });
  });

  it('counts aliased __typename in a fragment under the lists, which made millions of bytes of one query', () => {
    const lists = Array.from({ length: 10 }, (_, i) => `l${i}: enrolledCourses(first: ${100 - i}) { nodes { ...F } }`).join(' ');
    const fields = Array.from({ length: 600 }, (_, i) => `a${i}: __typename`).join(' ');
    const errors = errorsOf(`{ viewer { ${lists} } } fragment F on EnrolledCourse { ${fields} }`);
    expect(errors.map((e) => e.extensions.code)).toEqual(['QUERY_TOO_COSTLY']);
  });

  it('lets one __schema or __type through, alone: it costs the whole budget', () => {
    expect(measure('{ __schema { types { name } } }').cost).toBe(LIMITS.maxCost);
    expect(errorsOf('{ __type(name: "Viewer") { name fields { name } } }')).toEqual([]);
    for (const query of [
      '{ a: __schema { types { name } } b: __schema { types { name } } }',
      '{ __schema { types { name } } __type(name: "Viewer") { name } }',
      '{ __schema { types { name } } viewer { id } }',
    ]) expect([query, errorsOf(query).map((e) => e.extensions.code)]).toEqual([query, ['QUERY_TOO_COSTLY']]);
  });

  it('stays linear when fragments are spread many times, and survives cycles', () => {
    const levels = Array.from({ length: 30 }, (_, i) => `fragment F${i} on Viewer { ...F${i + 1} ...F${i + 1} }`).join('\n');
    const started = Date.now();
    const m = measure(`{ viewer { ...F0 } } ${levels} fragment F30 on Viewer { id }`);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(m.cost).toBe(1 + 2 ** 30);
    expect(measure('{ viewer { ...A } } fragment A on Viewer { id ...B } fragment B on Viewer { ...A }').cost).toBe(2);
  });

  it('prices every list of the viewer at the cap under the default maxCost', () => {
    const full = measure(FULL_AT_CAP);
    expect(full.depth).toBe(6);
    expect(full.lists).toBe(3);
    expect(full.cost).toBeGreaterThan(5000);
    expect(full.cost).toBeLessThanOrEqual(LIMITS.maxCost);
  });
});

describe('createQueryLimitsRule', () => {
  it('accepts the full query at the cap', () => {
    expect(errorsOf(FULL_AT_CAP)).toEqual([]);
  });

  it('refuses a query deeper than maxDepth with QUERY_TOO_DEEP', () => {
    const errors = errorsOf('{ viewer { orders { nodes { items { total { amount } } } } } }', [createQueryLimitsRule({ ...LIMITS, maxDepth: 5 })]);
    expect(errors.map((e) => e.extensions)).toEqual([{ code: 'QUERY_TOO_DEEP', depth: 6, maxDepth: 5 }]);
  });

  it('refuses a query costlier than maxCost with QUERY_TOO_COSTLY', () => {
    const aliases = Array.from({ length: 5 }, (_, i) => `o${i}: orders(first: 100) { nodes { items { title kind quantity } } }`).join(' ');
    const errors = errorsOf(`{ viewer { ${aliases} } }`);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.extensions).toMatchObject({ code: 'QUERY_TOO_COSTLY', maxCost: 10_000 });
    expect(errors[0]!.extensions.cost).toBeGreaterThan(10_000);
  });

  describe(`more than ${MAX_LISTS} paged lists (each a data-source call, however cheap)`, () => {
    const aliases = (n: number, field: string) => `{ viewer { ${Array.from({ length: n }, (_, i) => `a${i}: ${field}`).join(' ')} } }`;

    it('the README states the bound', () => {
      const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
      expect(readme).toContain(`| more than ${MAX_LISTS} paged lists (\`enrolledCourses\`, \`orders\`, \`eventRegistrations\`), aliases and fragments included | 400 | \`QUERY_TOO_COSTLY\` (\`lists\`, \`maxLists\`) |`);
    });

    it(`takes ${MAX_LISTS}`, () => {
      expect(errorsOf(aliases(MAX_LISTS, 'orders(first: 1) { totalCount }'))).toEqual([]);
    });

    it('refuses one more with QUERY_TOO_COSTLY, within the cost', () => {
      const query = aliases(MAX_LISTS + 1, 'orders(first: 1) { totalCount }');
      expect(measure(query).cost).toBeLessThan(100);
      expect(errorsOf(query).map((e) => e.extensions)).toEqual([{ code: 'QUERY_TOO_COSTLY', lists: MAX_LISTS + 1, maxLists: MAX_LISTS }]);
    });

    it('refuses the aliases of a paged list by the cost too when their pages are over it', () => {
      const errors = errorsOf(aliases(180, 'orders(first: 100) { __typename }'));
      expect(errors.map((e) => e.extensions)).toEqual([
        { code: 'QUERY_TOO_COSTLY', cost: 1 + 180 * 101, maxCost: 10_000 },
        { code: 'QUERY_TOO_COSTLY', lists: 180, maxLists: MAX_LISTS },
      ]);
    });
  });

  describe('fragments nested in one another (a chain of named fragments parses flat, then overflowed the stack)', () => {
    /** `{ viewer { ...F0 } }` and F0 … F(n-1), each spreading the next */
    const chain = (n: number, prefix = 'F') => Array.from({ length: n }, (_, i) => `fragment ${prefix}${i} on Viewer { ${i + 1 < n ? `...${prefix}${i + 1}` : 'id'} }`).join('\n');
    const inline = (n: number) => `{ viewer { ${'... on Viewer { '.repeat(n)}id${' }'.repeat(n)} } }`;
    const deepErrors = (query: string) => errorsOf(query).filter((e) => e.extensions.maxFragmentNesting !== undefined);

    it('the README states the bound', () => {
      const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
      expect(readme).toContain(`| fragments (named or inline) nested in one another more than ${MAX_FRAGMENT_NESTING} levels deep | 400 | \`QUERY_TOO_DEEP\` (\`maxFragmentNesting\`) |`);
    });

    it(`takes ${MAX_FRAGMENT_NESTING} levels of named or inline fragments`, () => {
      expect(errorsOf(`{ viewer { ...F0 } } ${chain(MAX_FRAGMENT_NESTING)}`)).toEqual([]);
      expect(errorsOf(inline(MAX_FRAGMENT_NESTING))).toEqual([]);
    });

    it.each([
      ['named', `{ viewer { ...F0 } } ${chain(MAX_FRAGMENT_NESTING + 1)}`],
      ['inline', inline(MAX_FRAGMENT_NESTING + 1)],
      ['a chain of 3,000 named', `{ viewer { ...F0 } } ${chain(3_000)}`],
      // the chain is measured shallow first; spread again under 60 inline levels it is 140 deep
      ['a memoized chain spread again deeper', `{ viewer { ...G0 ${'... on Viewer { '.repeat(60)}...G0${' }'.repeat(60)} } } ${chain(80, 'G')}`],
    ])('refuses one level more, %s, with QUERY_TOO_DEEP', (_label, query) => {
      expect(deepErrors(query).map((e) => e.extensions)).toEqual([{ code: 'QUERY_TOO_DEEP', maxFragmentNesting: MAX_FRAGMENT_NESTING }]);
    });
  });

  it('lets the standard introspection query through (graphql-js bounds introspection itself)', () => {
    expect(errorsOf(getIntrospectionQuery())).toEqual([]);
  });
});

describe('NoIntrospectionRule', () => {
  it('refuses __schema and __type but not __typename', () => {
    const errors = errorsOf('{ __schema { types { name } } __type(name: "Viewer") { name } viewer { __typename } }', [NoIntrospectionRule]);
    expect(errors.map((e) => e.extensions.code)).toEqual(['INTROSPECTION_DISABLED', 'INTROSPECTION_DISABLED']);
    expect(errorsOf('{ viewer { __typename id } }', [NoIntrospectionRule])).toEqual([]);
  });
});
