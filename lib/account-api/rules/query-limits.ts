/**
 * A validation rule that refuses queries deeper than `maxDepth` or costlier than `maxCost`
 * before anything runs. Validation results are cached per document, so the measure cannot
 * depend on variables: a `first` given as a variable counts as the cap.
 *
 * Cost: every field costs 1; a list field multiplies the cost of what it selects by how
 * many items it can return: the `first` of the connection it belongs to, or
 * {@link ASSUMED_LIST_SIZE} for plain lists (order items). Introspection fields are not
 * measured: graphql-js's MaxIntrospectionDepthRule bounds them, and in production they are
 * refused outright.
 *
 * @module
 */
import { GraphQLError, getNamedType, getNullableType, isInterfaceType, isListType, isObjectType, Kind } from 'graphql';
import type {
  FieldNode, GraphQLField, GraphQLNamedType, SelectionSetNode, ValidationContext, ValidationRule,
} from 'graphql';

/** The assumed length of a list without a `first` argument. */
export const ASSUMED_LIST_SIZE = 10;

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
}

const NOTHING: Measure = { cost: 0, depth: 0, nesting: 0 };

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
const inFragment = (inner: Measure): Measure => ({ cost: inner.cost, depth: inner.depth, nesting: inner.nesting + 1 });

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
    for (const selection of set.selections) {
      let m: Measure = NOTHING;
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value.startsWith('__')) continue;
        const field = isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[selection.name.value] : undefined;
        if (!field) continue; // FieldsOnCorrectTypeRule reports it
        const inner = selection.selectionSet
          ? measure(selection.selectionSet, getNamedType(field.type), pageSizeOf(selection, field, limits), level)
          : NOTHING;
        const items = isListType(getNullableType(field.type)) ? (pageSize ?? ASSUMED_LIST_SIZE) : 1;
        m = { cost: 1 + items * inner.cost, depth: 1 + inner.depth, nesting: inner.nesting };
      } else if (level >= MAX_FRAGMENT_NESTING) {
        // one level too many: reported from the nesting, not measured (nor recursed into) further
        m = { cost: 0, depth: 0, nesting: 1 };
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
    }
    return { cost, depth, nesting };
  }

  return measure(selectionSet, type, undefined, 0);
}

export function createQueryLimitsRule(limits: QueryLimits): ValidationRule {
  return function QueryLimitsRule(context: ValidationContext) {
    return {
      OperationDefinition(node) {
        const root = context.getSchema().getRootType(node.operation);
        if (!root) return false;
        const { cost, depth, nesting } = measureSelectionSet(context, node.selectionSet, root, limits);
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
          context.reportError(new GraphQLError(`The query could return up to ${cost} fields; at most ${limits.maxCost} are allowed. Ask for fewer fields, fewer aliases or smaller pages (first).`, {
            nodes: [node],
            extensions: { code: 'QUERY_TOO_COSTLY', cost, maxCost: limits.maxCost },
          }));
        }
        return false;
      },
    };
  };
}
