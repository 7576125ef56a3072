/**
 * Look-ahead: whether a resolver's selection reaches a field along a path, through fragments
 * and inline fragments. Lets a list resolver fetch what its items will need in one call.
 *
 * @module
 */
import { Kind } from 'graphql';
import type { FieldNode, FragmentDefinitionNode, GraphQLResolveInfo, SelectionSetNode } from 'graphql';

function childFields(set: SelectionSetNode | undefined, fragments: Record<string, FragmentDefinitionNode>, out: FieldNode[], seen: Set<string>): void {
  if (!set) return;
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) out.push(selection);
    else if (selection.kind === Kind.INLINE_FRAGMENT) childFields(selection.selectionSet, fragments, out, seen);
    else if (!seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      childFields(fragments[selection.name.value]?.selectionSet, fragments, out, seen);
    }
  }
}

/** True when any of the resolver's field nodes selects `path` (e.g. `['nodes', 'lastWatchedLecture']`). */
export function selects(info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments'>, path: readonly string[]): boolean {
  let level: readonly FieldNode[] = info.fieldNodes;
  for (const name of path) {
    const next: FieldNode[] = [];
    for (const node of level) childFields(node.selectionSet, info.fragments, next, new Set());
    level = next.filter((f) => f.name.value === name);
    if (level.length === 0) return false;
  }
  return true;
}
