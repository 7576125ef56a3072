/**
 * Refuses `__schema` and `__type` when introspection is off (`__typename` stays allowed:
 * clients need it and it reveals nothing).
 *
 * @module
 */
import { GraphQLError } from 'graphql';
import type { ValidationContext, ValidationRule } from 'graphql';

export const NoIntrospectionRule: ValidationRule = function NoIntrospectionRule(context: ValidationContext) {
  return {
    Field(node) {
      const name = node.name.value;
      if (name === '__schema' || name === '__type') {
        context.reportError(new GraphQLError(`Introspection is disabled on this server; ${name} cannot be queried.`, {
          nodes: [node],
          extensions: { code: 'INTROSPECTION_DISABLED' },
        }));
      }
    },
  };
};
