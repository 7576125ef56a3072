/**
 * The GraphQL engine: a graphql-yoga instance (schema, masked errors, parse and validation
 * caches, the query-limit rules) driven through its envelop pipeline.
 *
 * Why not `yoga.handleNodeRequestAndResponse`: yoga's HTTP layer turns every Node request
 * into a WHATWG Request and every answer into a Response, which costs more than the whole
 * execution of the viewer query (measured: 1.7-2.9× the throughput without it). The HTTP
 * edge here is small (POST, JSON, one operation; see ./http.ts), so it is done directly and
 * yoga runs what comes after parsing the body.
 *
 * @module
 */
import { getOperationAST, GraphQLError } from 'graphql';
import type { ExecutionResult, GraphQLFormattedError } from 'graphql';
import { createSchema, createYoga } from 'graphql-yoga';
import type { YogaInitialContext } from 'graphql-yoga';

import type { Logger } from '../contracts.ts';
import { DEFAULT_PAGE_SIZE } from '../member-data/pagination.ts';
import { RETRY_AFTER_SECONDS } from '../storage/outage.ts';
import { createMaskError, formatError, logUnexpected, statusWithoutData, withoutSuggestions } from './errors.ts';
import type { GraphQLParams } from './http.ts';
import type { ResolvedAccountApiOptions } from './options.ts';
import { useQueryLimits } from './plugins/use-query-limits.ts';
import { resolvers } from './resolvers.ts';
import type { AccountApiContext } from './resolvers.ts';
import { typeDefsFor } from './schema.ts';

export interface EngineAnswer {
  readonly status: number;
  /** `Retry-After` on a 503 */
  readonly headers?: Readonly<Record<string, string>>;
  readonly body: { data?: unknown; errors?: GraphQLFormattedError[] };
}

export interface AccountApiEngine {
  /** `requestId`: what the log lines of its unexpected failures name (lib/http/request-id.ts) */
  run(params: GraphQLParams, context: AccountApiContext, requestId?: string): Promise<EngineAnswer>;
}

function answer(status: number, result: ExecutionResult | { errors: readonly GraphQLError[] }): EngineAnswer {
  const body: EngineAnswer['body'] = {};
  if (result.errors?.length) body.errors = result.errors.map(formatError);
  if ('data' in result) body.data = result.data;
  // only a 503: Retry-After means nothing on a 200 (RFC 9110 §10.2.3), where the coded
  // error on the failed field already says to retry
  if (status === 503) return { status, headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) }, body };
  return { status, body };
}

export function createAccountApiEngine(options: ResolvedAccountApiOptions, logger: Logger): AccountApiEngine {
  const maskError = createMaskError();
  const yoga = createYoga({
    schema: createSchema<AccountApiContext>({ typeDefs: typeDefsFor(Math.min(DEFAULT_PAGE_SIZE, options.maxPageSize)), resolvers }),
    logging: false,
    maskedErrors: { maskError, isDev: false },
    parserAndValidationCache: true,
    graphiql: false,
    landingPage: false,
    cors: false,
    multipart: false,
    batching: false,
    maxRequestBodySize: options.maxBodyBytes,
    plugins: [useQueryLimits({
      maxDepth: options.maxDepth,
      maxCost: options.maxCost,
      maxPageSize: options.maxPageSize,
      defaultPageSize: Math.min(DEFAULT_PAGE_SIZE, options.maxPageSize),
      introspection: options.introspection,
    })],
  });
  const parseOptions = { maxTokens: options.maxTokens };

  return {
    async run(params, context, requestId) {
      // No fetch Request on this path; the yoga plugins that run after parsing the body
      // (caches, masking, validation codes) do not read it.
      const initial = { ...context, params } as unknown as AccountApiContext & YogaInitialContext;
      const { parse, validate, contextFactory, execute, schema } = yoga.getEnveloped(initial);

      let document;
      try {
        document = parse(params.query, parseOptions);
      } catch (error) {
        // graphql-js parses by recursion: a document nested deeper than the stack (within
        // maxTokens when it is raised) overflows it, a RangeError; the caller's input all the same
        if (error instanceof RangeError) {
          return answer(400, { errors: [new GraphQLError('The document is nested too deeply to parse.', { extensions: { code: 'GRAPHQL_PARSE_FAILED' } })] });
        }
        if (!(error instanceof GraphQLError)) throw error;
        const syntax = new GraphQLError(error.message, { nodes: error.nodes, source: error.source, positions: error.positions, extensions: { code: 'GRAPHQL_PARSE_FAILED' } });
        return answer(400, { errors: [syntax] });
      }
      let invalid;
      try {
        invalid = validate(schema, document);
      } catch (error) {
        // graphql-js's rules walk fragments by recursion too (NoFragmentCyclesRule): a chain of
        // thousands of named fragments, which parses flat within a raised maxTokens, can
        // overflow the stack before the query limits refuse it. The caller's input all the same
        if (error instanceof RangeError) {
          return answer(400, { errors: [new GraphQLError('The document nests its fragments too deeply to validate.', { extensions: { code: 'QUERY_TOO_DEEP' } })] });
        }
        throw error;
      }
      if (invalid.length > 0) return answer(400, { errors: options.introspection ? invalid : invalid.map(withoutSuggestions) });
      const operation = getOperationAST(document, params.operationName);
      if (!operation) {
        const message = params.operationName === undefined
          ? 'The document has several operations: name the one to run in "operationName".'
          : `The document has no operation named "${params.operationName}".`;
        return answer(400, { errors: [new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT' } })] });
      }
      if (operation.operation !== 'query') {
        // graphql-js validation lets a mutation through to a schema without one
        const error = new GraphQLError('The Account API is read-only: only query operations are supported.', { nodes: [operation], extensions: { code: 'OPERATION_NOT_SUPPORTED' } });
        return answer(400, { errors: [error] });
      }

      let result: ExecutionResult;
      try {
        result = await execute({
          schema,
          document,
          contextValue: await contextFactory(),
          variableValues: params.variables,
          operationName: params.operationName,
        }) as ExecutionResult;
      } catch (error) {
        // the executor throws for what it cannot start; answered in the same coded form
        const masked = maskError(error) as GraphQLError;
        logUnexpected([masked], logger, requestId);
        return answer(statusWithoutData([masked]), { errors: [masked] });
      }
      logUnexpected(result.errors, logger, requestId);
      // no data: a request error (variables, operation name), or a fault before execution
      if (result.data === undefined) return answer(statusWithoutData(result.errors), result);
      // data null: a non-null field failed up to the root. 200 as GraphQL over HTTP has it,
      // unless an outage did it: a 503 is what tells clients and proxies to retry
      if (result.data === null && statusWithoutData(result.errors) === 503) return answer(503, result);
      return answer(200, result);
    },
  };
}
