/**
 * A validation rule that refuses queries deeper than `maxDepth`, costlier than `maxCost` or
 * with more than {@link MAX_LISTS} paged lists, before anything runs. Validation results are
 * cached per document, so the measure cannot depend on variables: a `first` given as a
 * variable counts as the cap.
 *
 * Cost: every field costs 1; a list field multiplies the cost of what it selects by how
 * many items it can return: the `first` of the connection it belongs to, or
 * {@link ASSUMED_LIST_SIZE} for plain lists (order items). A paged list (a field with
 * `first`: the viewer's enrolledCourses, orders and eventRegistrations) is one data-source
 * call that fetches its page whatever is selected under it, so it costs at least its `first`:
 * `orders(first: 100) { totalCount }` costs 102, not 2. The cost so bounds both the fields
 * answered and the items fetched.
 *
 * Paged lists: each is its own data-source call (aliases included), however little it costs,
 * so their number is bounded apart from the cost: a cost high enough per call to bound the
 * calls would refuse small pages under small budgets, and the cost of small pages alone lets
 * `maxTokens` be the only bound (hundreds of `orders(first: 1)` aliases).
 *
 * Meta fields: `__typename` costs 1 like any field; `__schema` and `__type` cost the whole
 * budget, so an introspection query (the standard one is a single `__schema`) asks for nothing
 * else and asks once; graphql-js's MaxIntrospectionDepthRule bounds how deep it nests, and in
 * production they are refused outright.
 *
 * @module
 */
import { GraphQLError, getNamedType, getNullableType, isInterfaceType, isListType, isObjectType, Kind } from 'graphql';
import type {
  FieldNode, GraphQLField, GraphQLNamedType, SelectionSetNode, ValidationContext, ValidationRule,
} from 'graphql';

/** The assumed length of a list without a `first` argument. */
export const ASSUMED_LIST_SIZE = 10;

/**
 * How many paged lists (fields with `first`; each a data-source call) one query may ask for,
 * aliases included. The schema has three; the rest is room for aliased pages.
 */
export const MAX_LISTS = 10;

/** How many fragments (named or inline) may be nested in one another. */
export const MAX_FRAGMENT_NESTING = 100;

export interface QueryLimits {
  readonly maxDepth: number;
  readonly maxCost: number;
  /** the cap on `first`: what a `first` given as a variable or above the cap counts as */
  readonly maxPageSize: number;
  /** what an absent `first` counts as when the schema gives no default */
  readonly defaultPageSize: number;
}

export interface Measure {
  readonly cost: number;
  readonly depth: number;
  /** the fragments nested in one another inside, at most; past {@link MAX_FRAGMENT_NESTING}, not measured further */
  readonly nesting: number;
  /** the paged lists (fields with `first`) inside, each a data-source call; see {@link MAX_LISTS} */
  readonly lists: number;
}

const NOTHING: Measure = { cost: 0, depth: 0, nesting: 0, lists: 0 };

function pageSizeOf(node: FieldNode, field: GraphQLField<unknown, unknown>, limits: QueryLimits): number | undefined {
  const arg = field.args.find((a) => a.name === 'first');
  if (!arg) return undefined;
  const given = node.arguments?.find((a) => a.name.value === 'first')?.value;
  if (!given || given.kind === Kind.NULL) {
    return typeof arg.defaultValue === 'number' ? Math.min(arg.defaultValue, limits.maxPageSize) : limits.defaultPageSize;
  }
  if (given.kind === Kind.INT) return Math.max(0, Math.min(Number(given.value), limits.maxPageSize));
  return limits.maxPageSize;
}

/** A fragment's measure, seen from the selection set that holds it: one level more of nesting. */
const inFragment = (inner: Measure): Measure => ({ ...inner, nesting: inner.nesting + 1 });

/** Measures an operation's selection set; exported for tests and for tuning `maxCost`. */
export function measureSelectionSet(context: ValidationContext, selectionSet: SelectionSetNode, type: GraphQLNamedType, limits: QueryLimits): Measure {
  const schema = context.getSchema();
  // fragments are measured once per (fragment, page size): linear however often they are spread
  const memo = new Map<string, Measure>();
  const visiting = new Set<string>();

  /** `level`: the fragments `set` is nested in */
  function measure(set: SelectionSetNode, parent: GraphQLNamedType, pageSize: number | undefined, level: number): Measure {
    let cost = 0;
    let depth = 0;
    let nesting = 0;
    let lists = 0;
    for (const selection of set.selections) {
      let m: Measure = NOTHING;
      if (selection.kind === Kind.FIELD && selection.name.value.startsWith('__')) {
        // `__typename` is a field of the answer like any other (aliased in a fragment under the
        // lists, uncosted, it made millions of bytes of one query); `__schema` and `__type`
        // answer a whole schema or type: they cost the whole budget, so a query that asks for
        // the schema asks for nothing else, and asks once
        m = { ...NOTHING, cost: selection.name.value === '__typename' ? 1 : limits.maxCost };
      } else if (selection.kind === Kind.FIELD) {
        const field = isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[selection.name.value] : undefined;
        if (!field) continue; // FieldsOnCorrectTypeRule reports it
        const page = pageSizeOf(selection, field, limits);
        const inner = selection.selectionSet ? measure(selection.selectionSet, getNamedType(field.type), page, level) : NOTHING;
        const items = isListType(getNullableType(field.type)) ? (pageSize ?? ASSUMED_LIST_SIZE) : 1;
        const under = items * inner.cost;
        // a paged list fetches its page whatever is selected under it (`{ totalCount }`, `{ __typename }`)
        m = page === undefined
          ? { cost: 1 + under, depth: 1 + inner.depth, nesting: inner.nesting, lists: items * inner.lists }
          : { cost: 1 + Math.max(page, under), depth: 1 + inner.depth, nesting: inner.nesting, lists: 1 + items * inner.lists };
      } else if (level >= MAX_FRAGMENT_NESTING) {
        // one level too many: reported from the nesting, not measured (nor recursed into) further
        m = { ...NOTHING, nesting: 1 };
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const condition = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parent;
        if (condition) m = inFragment(measure(selection.selectionSet, condition, pageSize, level + 1));
      } else {
        const name = selection.name.value;
        const key = `${name}\u0000${pageSize}`;
        const known = memo.get(key);
        if (known) {
          m = inFragment(known);
        } else {
          const fragment = context.getFragment(name);
          const condition = fragment && schema.getType(fragment.typeCondition.name.value);
          // a cycle is NoFragmentCyclesRule's to report; here it only must not recurse forever
          if (fragment && condition && !visiting.has(name)) {
            visiting.add(name);
            const inner = measure(fragment.selectionSet, condition, pageSize, level + 1);
            visiting.delete(name);
            memo.set(key, inner);
            m = inFragment(inner);
          }
        }
      }
      cost += m.cost;
      depth = Math.max(depth, m.depth);
      nesting = Math.max(nesting, m.nesting);
      lists += m.lists;
    }
    return { cost, depth, nesting, lists };
  }

  return measure(selectionSet, type, undefined, 0);
}

export function createQueryLimitsRule(limits: QueryLimits): ValidationRule {
  return function QueryLimitsRule(context: ValidationContext) {
    return {
      OperationDefinition(node) {
        const root = context.getSchema().getRootType(node.operation);
        if (!root) return false;
        const { cost, depth, nesting, lists } = measureSelectionSet(context, node.selectionSet, root, limits);
        if (nesting > MAX_FRAGMENT_NESTING) {
          context.reportError(new GraphQLError(`The query nests fragments more than ${MAX_FRAGMENT_NESTING} levels deep; at most ${MAX_FRAGMENT_NESTING} are allowed.`, {
            nodes: [node],
            extensions: { code: 'QUERY_TOO_DEEP', maxFragmentNesting: MAX_FRAGMENT_NESTING },
          }));
          return false;
        }
        if (depth > limits.maxDepth) {
          context.reportError(new GraphQLError(`The query is nested ${depth} levels deep; at most ${limits.maxDepth} are allowed.`, {
            nodes: [node],
            extensions: { code: 'QUERY_TOO_DEEP', depth, maxDepth: limits.maxDepth },
          }));
        }
        if (cost > limits.maxCost) {
          context.reportError(new GraphQLError(`The query could return or fetch up to ${cost} fields and items; at most ${limits.maxCost} are allowed. Ask for fewer fields, fewer aliases or smaller pages (first).`, {
            nodes: [node],
            extensions: { code: 'QUERY_TOO_COSTLY', cost, maxCost: limits.maxCost },
          }));
        }
        if (lists > MAX_LISTS) {
          context.reportError(new GraphQLError(`The query asks for ${lists} paged lists, aliases included; at most ${MAX_LISTS} are allowed. Ask for fewer aliases, and for further pages in further requests.`, {
            nodes: [node],
            extensions: { code: 'QUERY_TOO_COSTLY', lists, maxLists: MAX_LISTS },
          }));
        }
        return false;
      },
    };
  };
}
