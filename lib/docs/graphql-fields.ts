/**
 * The Account API's fields as rows (`viewer.enrolledCourses.nodes[].slug`), read from its
 * schema (lib/account-api/schema.ts), for the member-record section of `/auth.md`.
 *
 * @module
 */
import { buildSchema, getNamedType, isEnumType, isListType, isNonNullType, isObjectType, isScalarType, specifiedScalarTypes } from 'graphql';
import type { GraphQLObjectType, GraphQLOutputType } from 'graphql';

export interface FieldRow {
  readonly path: string;
  readonly type: string;
  readonly notes: string;
}

export interface SchemaSummary {
  readonly rows: readonly FieldRow[];
  readonly enums: readonly { name: string; values: string[] }[];
  readonly scalars: readonly { name: string; description: string }[];
}

function isList(type: GraphQLOutputType): boolean {
  return isListType(isNonNullType(type) ? type.ofType : type);
}

function walk(type: GraphQLObjectType, prefix: string, seen: ReadonlySet<string>, rows: FieldRow[]): void {
  for (const field of Object.values(type.getFields())) {
    const args = field.args.length
      ? `(${field.args.map((a) => `${a.name}: ${String(a.type)}${a.defaultValue === undefined ? '' : ` = ${String(a.defaultValue)}`}`).join(', ')})`
      : '';
    rows.push({ path: `${prefix}${field.name}${args}`, type: String(field.type), notes: field.description ?? '' });
    const named = getNamedType(field.type);
    if (isObjectType(named) && !seen.has(named.name)) {
      walk(named, `${prefix}${field.name}${isList(field.type) ? '[]' : ''}.`, new Set([...seen, named.name]), rows);
    }
  }
}

/** Every field reachable from `Query.viewer`, depth first, and the enums and custom scalars. */
export function summariseSchema(typeDefs: string, root = 'viewer'): SchemaSummary {
  const schema = buildSchema(typeDefs);
  const field = schema.getQueryType()?.getFields()[root];
  const rows: FieldRow[] = [];
  if (field) {
    rows.push({ path: root, type: String(field.type), notes: field.description ?? '' });
    const named = getNamedType(field.type);
    if (isObjectType(named)) walk(named, `${root}.`, new Set([named.name]), rows);
  }
  const builtIn = new Set(specifiedScalarTypes.map((s) => s.name));
  const types = Object.values(schema.getTypeMap()).filter((t) => !t.name.startsWith('__'));
  return {
    rows,
    enums: types.filter(isEnumType).map((t) => ({ name: t.name, values: t.getValues().map((v) => v.name) })),
    scalars: types.filter(isScalarType).filter((t) => !builtIn.has(t.name)).map((t) => ({ name: t.name, description: t.description ?? '' })),
  };
}
