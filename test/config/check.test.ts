/**
 * The option-check kit every options module uses: each refusal is a ConfigurationError whose
 * message names the option path, the value received and what it must be.
 */
import {
  checkBoolean, checkFunction, checkInteger, checkKnownKeys, checkObject, checkStringList, fail, isPlainObject, mustBe, show,
  unknownKey,
} from '../../lib/config/check.ts';
import { ConfigurationError } from '../../lib/errors.ts';

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return (error as ConfigurationError).description;
  }
  throw new Error('accepted');
}

describe('fail and show', () => {
  it('fail throws a ConfigurationError (code configuration_error, never exposed)', () => {
    expect(() => fail('options.x must be y')).toThrow(ConfigurationError);
    expect(() => fail('options.x must be y')).toThrow('options.x must be y');
    try {
      fail('m');
    } catch (error) {
      expect(error).toMatchObject({ code: 'configuration_error', expose: false, description: 'm' });
    }
  });

  it.each([
    ['a string, JSON-quoted', 'yes', '"yes"'],
    ['undefined', undefined, 'undefined'],
    ['null', null, 'null'],
    ['a number', 2.5, '2.5'],
    ['a boolean', false, 'false'],
    ['an array', [1, 'a'], '[1,"a"]'],
    ['an object', { a: 1 }, '{"a":1}'],
    ['a function', () => 1, 'a function'],
    ['a symbol', Symbol('s'), 'Symbol(s)'],
    ['a BigInt (JSON throws)', 10n, '[object BigInt]'],
  ])('show: %s', (_label, value, shown) => {
    expect(show(value)).toBe(shown);
  });

  it('show never quotes a member named like a secret, nor the password of a URL', () => {
    const jwk = { kty: 'EC', crv: 'P-256', x: 'x-value', y: 'y-value', d: 'private-d-value' };
    const shown = show({
      client_id: 'svc', client_secret: 'static-secret-value', token_endpoint_auth_method: 'client_secret_post',
      password: 'pw-value', cookieKeys: ['cookie-key-value'], refresh_token: 'rt-value', keys: [jwk],
      url: 'redis://user:url-password@cache.internal:6379/0',
    });
    for (const secret of ['static-secret-value', 'pw-value', 'cookie-key-value', 'rt-value', 'private-d-value', 'url-password']) {
      expect(shown).not.toContain(secret);
    }
    // what helps find the mistake stays
    expect(shown).toContain('"client_id":"svc"');
    expect(shown).toContain('"token_endpoint_auth_method":"client_secret_post"');
    expect(shown).toContain('"x":"x-value"');
    expect(shown).toContain('redis://[redacted]@cache.internal:6379/0');
    expect(show('https://admin:hunter2@learn.example.com')).toBe('"https://[redacted]@learn.example.com"');
    // a member left empty or null says so
    expect(show({ client_secret: null })).toBe('{"client_secret":null}');
  });

  it.each([
    ['an @ in the password', 'https://user:p@ss@learn.example.com', 'https://[redacted]@learn.example.com', ['p@ss', 'user:p']],
    ['a # in the password', 'https://user:pa#ss@learn.example.com', 'https://[redacted]@learn.example.com', ['pa#ss', 'user:pa']],
    ['a ? in the password', 'https://user:pa?ss@learn.example.com/x', 'https://[redacted]@learn.example.com/x', ['pa?ss', 'user:pa']],
    ['a space in the password', 'https://user:pa ss@learn.example.com', 'https://[redacted]@learn.example.com', ['pa ss', 'user:pa']],
    ['a tab in the password', 'https://user:pa\tss@learn.example.com', 'https://[redacted]@learn.example.com', ['pa\tss']],
    ['a password alone', 'https://:onlypw@learn.example.com/x', 'https://[redacted]@learn.example.com/x', ['onlypw']],
    ['a token as the user name', 'https://ghp_token123@git.example.com/org/repo', 'https://[redacted]@git.example.com/org/repo', ['ghp_token123']],
    ['a port and path', 'redis://default:r3d1s@cache.internal:6379/0', 'redis://[redacted]@cache.internal:6379/0', ['r3d1s']],
    ['an apostrophe in the password', "redis://default:it's-s3cret@cache.internal:6379", 'redis://[redacted]@cache.internal:6379', ["it's-s3cret", 's3cret']],
    ['a double quote in the password', 'redis://default:pa"ss@cache.internal:6379', 'redis://[redacted]@cache.internal:6379', ['pa"ss', 'pa\\"ss']],
  ])('show never quotes the credentials of a URL with %s', (_label, url, redactedUrl, secrets) => {
    const shown = show(url);
    expect(shown).toBe(JSON.stringify(redactedUrl));
    for (const secret of secrets) expect(shown).not.toContain(secret);
    expect(show({ url })).toBe(JSON.stringify({ url: redactedUrl }));
  });

  it('show keeps an @ after the path, and a URL inside JSON text does not run into the next value', () => {
    expect(show('https://learn.example.com/users/@me')).toBe('"https://learn.example.com/users/@me"');
    expect(show('{"redirect_uris":["https://a.example"],"contacts":["me@a.example"]}')).toContain('https://a.example\\"],\\"contacts\\":[\\"me@a.example');
    expect(show('{"url":"https://u:p@ss@a.example","contacts":["me@a.example"]}')).toContain('https://[redacted]@a.example\\",\\"contacts\\":[\\"me@a.example');
  });

  it('show never quotes a secret-named field inside a string: options given as JSON text not yet parsed', () => {
    const client = { client_id: 'svc', client_secret: 'TopSecretClientValue0123', redirect_uris: ['https://a.example/cb'] };
    for (const value of [JSON.stringify([client]), [JSON.stringify(client)], 'client_id=svc&client_secret=TopSecretClientValue0123', "{ password: 'TopSecretClientValue0123' }"]) {
      const shown = show(value);
      expect(shown).not.toContain('TopSecretClientValue0123');
      expect(shown).toContain('[redacted]');
    }
    expect(show(JSON.stringify([client]))).toContain('client_id\\":\\"svc');
  });

  it.each([[Number.NaN, 'NaN'], [Number.POSITIVE_INFINITY, 'Infinity'], [Number.NEGATIVE_INFINITY, '-Infinity']])('show: %p as itself, not as JSON\'s null', (value, shown) => {
    expect(show(value)).toBe(shown);
  });

  it('show falls back for a value JSON cannot hold', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(show(cyclic)).toBe('[object Object]');
  });

  it('mustBe names the path, what it must be and the value', () => {
    expect(refusal(() => mustBe('options.a.b', 'a site id', ''))).toBe('options.a.b must be a site id; got ""');
  });
});

describe('objects and keys', () => {
  it('isPlainObject: objects, not null or arrays', () => {
    expect([isPlainObject({}), isPlainObject(Object.create(null)), isPlainObject([]), isPlainObject(null), isPlainObject('x')])
      .toEqual([true, true, false, false, false]);
  });

  it('checkObject passes undefined and objects through', () => {
    const value = { a: 1 };
    expect(checkObject('options.x', undefined, 'an object')).toBeUndefined();
    expect(checkObject('options.x', value, 'an object')).toBe(value);
  });

  it('checkObject refuses non-objects, and arrays unless allowed', () => {
    expect(refusal(() => checkObject('options.x', 'on', 'an object like { a }'))).toBe('options.x must be an object like { a }; got "on"');
    expect(refusal(() => checkObject('options.x', [], 'an object'))).toBe('options.x must be an object; got []');
    expect(refusal(() => checkObject('options.x', null, 'an object', { allowArray: true }))).toBe('options.x must be an object; got null');
    expect(checkObject('options.x', [], 'an object', { allowArray: true })).toEqual([]);
  });

  it('checkKnownKeys names the first unknown key and the known ones', () => {
    expect(() => checkKnownKeys('options.x', { a: 1, b: 2 }, ['a', 'b'])).not.toThrow();
    expect(refusal(() => checkKnownKeys('options.x', { a: 1, c: 2, d: 3 }, new Set(['a', 'b']))))
      .toBe('options.x.c is not a known option; use one of a, b');
    expect(refusal(() => unknownKey('options.ttl', 'forever', ['accessToken'], 'lifetime')))
      .toBe('options.ttl.forever is not a known lifetime; use one of accessToken');
  });
});

describe('values', () => {
  it('checkBoolean: the value, the fallback when left out, or a refusal', () => {
    expect(checkBoolean('options.x', false, true)).toBe(false);
    expect(checkBoolean('options.x', undefined, true)).toBe(true);
    expect(checkBoolean('options.x', undefined)).toBeUndefined();
    expect(refusal(() => checkBoolean('options.x', 'yes', true))).toBe('options.x must be true or false; got "yes"');
    expect(refusal(() => checkBoolean('options.x', null, true, 'a boolean'))).toBe('options.x must be a boolean; got null');
  });

  it('checkInteger: whole numbers within the range, the default when left out', () => {
    const range = { min: 1, max: 10, default: 5 };
    expect(checkInteger('options.n', undefined, range)).toBe(5);
    expect(checkInteger('options.n', 1, range)).toBe(1);
    expect(checkInteger('options.n', 10, range)).toBe(10);
    for (const bad of [0, 11, 2.5, '3', Number.NaN, 2 ** 53]) {
      expect(refusal(() => checkInteger('options.n', bad, range))).toBe(`options.n must be a whole number from 1 to 10; got ${show(bad)}. Leave it out for the default, 5`);
    }
    expect(refusal(() => checkInteger('options.n', 0, { ...range, unit: 'bytes' })))
      .toBe('options.n must be a whole number from 1 to 10 (bytes); got 0. Leave it out for the default, 5');
  });

  it('checkStringList: non-empty strings, or a copy of the fallback', () => {
    const fallback = Object.freeze(['owner', 'admin']);
    const resolved = checkStringList('options.roles', undefined, fallback);
    expect(resolved).toEqual(['owner', 'admin']);
    expect(resolved).not.toBe(fallback);
    expect(checkStringList('options.roles', ['a'], fallback)).toEqual(['a']);
    expect(refusal(() => checkStringList('options.roles', ['a', ''], fallback))).toBe('options.roles must be an array of non-empty strings; got ["a",""]');
    expect(refusal(() => checkStringList('options.roles', 'a', fallback))).toBe('options.roles must be an array of non-empty strings; got "a"');
  });

  it('checkFunction: a function or undefined', () => {
    const fn = () => undefined;
    expect(checkFunction('options.f', fn, '(doc) => void')).toBe(fn);
    expect(checkFunction('options.f', undefined, '(doc) => void')).toBeUndefined();
    expect(refusal(() => checkFunction('options.f', {}, '(doc) => void'))).toBe('options.f must be a function (doc) => void; got {}');
  });
});
