/**
 * `options.accountApi`: defaults by mode, and a ConfigurationError naming the option and the
 * fix for anything that cannot work.
 */
import { resolveAccountApiOptions } from '../../lib/account-api/index.ts';
import { ConfigurationError } from '../../lib/errors.ts';

describe('resolveAccountApiOptions', () => {
  it('defaults: the cap, limits, and introspection and GraphiQL in development only', () => {
    expect(resolveAccountApiOptions(undefined, false)).toEqual({
      maxPageSize: 100, maxDepth: 10, maxCost: 10_000, maxTokens: 2000, maxBodyBytes: 32_768, introspection: true, graphiql: true,
    });
    expect(resolveAccountApiOptions({}, true)).toMatchObject({ introspection: false, graphiql: false });
  });

  it('keeps valid values', () => {
    const resolved = resolveAccountApiOptions({ maxPageSize: 50, maxDepth: 4, maxCost: 500, introspection: true }, true);
    expect(resolved).toMatchObject({ maxPageSize: 50, maxDepth: 4, maxCost: 500, introspection: true, graphiql: false });
    expect(Object.isFrozen(resolved)).toBe(true);
  });

  it.each([
    [{ maxPageSize: 0 }, /options\.accountApi\.maxPageSize must be a whole number from 1 to 1000 .*got 0/],
    [{ maxPageSize: 2.5 }, /maxPageSize .*got 2\.5/],
    [{ maxDepth: '5' }, /options\.accountApi\.maxDepth must be a whole number .*got "5"/],
    [{ maxCost: -1 }, /options\.accountApi\.maxCost/],
    [{ maxTokens: 10 }, /options\.accountApi\.maxTokens must be a whole number from 100/],
    [{ maxBodyBytes: 100 }, /options\.accountApi\.maxBodyBytes must be a whole number from 1024/],
    [{ introspection: 'yes' }, /options\.accountApi\.introspection must be true or false; got "yes"/],
    [{ maxPagesize: 10 }, /options\.accountApi\.maxPagesize is not a known option; use one of maxPageSize/],
  ])('refuses %j', (input, message) => {
    expect(() => resolveAccountApiOptions(input as never, false)).toThrow(ConfigurationError);
    expect(() => resolveAccountApiOptions(input as never, false)).toThrow(message);
  });

  it('refuses GraphiQL in production, saying why', () => {
    expect(() => resolveAccountApiOptions({ graphiql: true }, true)).toThrow(/graphiql cannot be true in production/);
    expect(resolveAccountApiOptions({ graphiql: false }, false).graphiql).toBe(false);
  });

  it('refuses a non-object', () => {
    expect(() => resolveAccountApiOptions([] as never, false)).toThrow(/options\.accountApi must be an object/);
  });
});
