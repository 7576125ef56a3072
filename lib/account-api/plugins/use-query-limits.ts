/**
 * Adds the depth/cost rule, and the introspection refusal when introspection is off, to
 * validation. Yoga caches validation results per document, so each runs once per distinct query.
 *
 * @module
 */
import type { Plugin } from 'graphql-yoga';

import { NoIntrospectionRule } from '../rules/no-introspection.ts';
import { createQueryLimitsRule } from '../rules/query-limits.ts';
import type { QueryLimits } from '../rules/query-limits.ts';

export interface QueryLimitsOptions extends QueryLimits {
  readonly introspection: boolean;
}

export function useQueryLimits(options: QueryLimitsOptions): Plugin {
  const rules = [createQueryLimitsRule(options), ...(options.introspection ? [] : [NoIntrospectionRule])];
  return {
    onValidate({ addValidationRule }) {
      for (const rule of rules) addValidationRule(rule);
    },
  };
}
