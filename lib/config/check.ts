/**
 * The one kit every options module checks its input with. Each check throws a
 * {@link ConfigurationError} whose message names the option path, the value received and the
 * fix: `options.mcp.maxPageSize must be a whole number from 1 to 1000; got 0. Leave it out for
 * the default, 100`.
 *
 * Checks take the full option path (`options.accountApi.maxDepth`) so messages need no
 * further context, and they return the checked value or the default, typed.
 *
 * @module
 */
import { ConfigurationError } from '../errors.ts';

/** Throws the start-up error; `message` says what is wrong and what to change. */
export function fail(message: string): never {
  throw new ConfigurationError(message);
}

/**
 * Property names whose values a message never quotes: secrets (`client_secret`, passwords,
 * cookie keys, tokens) and a JWK's private members (`d`, `p`, `q`, `dp`, `dq`, `qi`, `k`). A
 * start-up error is printed and often logged, and a mistyped option is quoted whole: a single
 * client given without `[ ]` held its `client_secret`.
 */
const SECRET_MEMBER = /secret|password|passwd|cookiekeys|^(?:(?:access|refresh|id|registration_access|initial_access)_?)?token$|^(?:d|p|q|dp|dq|qi|k|oth)$/i;
/**
 * `scheme://user:password@`: the credentials of a URL, everything from `//` to the last `@`
 * before the path. A password is often written unencoded, holding `@`, `#`, `?`, `:` or a
 * space, at which URL parsing would end the credentials; here only `/` (the path), a line
 * break, or a quote that a JSON delimiter follows (`",` `"]` `"}` `":` a space, the end) ends
 * them: a URL inside JSON text does not run into the next value, and a password holding a
 * quote (`it's`) is still covered (one holding `/` is not). The user name goes too: it
 * can be a token (`https://<token>@host`), and beside an `@` in the password it cannot be
 * told from it.
 */
const URL_CREDENTIALS = /\/\/(?:[^/"'\r\n]|["'](?![,:}\]\s]|$))*@/g;
/**
 * A secret-named field inside a string, `"client_secret":"…"` or `password=…`: options that
 * arrive as text still to be parsed (`clients` from an environment variable, given as JSON).
 */
const SECRET_PAIR = /((?:secret|password|passwd|token|cookie_?keys)\w*["']?\s*[:=]\s*)("(?:[^"\\]|\\.)*"|'[^']*'|[^\s&,;}\]]+)/gi;

const redacted = (key: string, value: unknown): unknown => {
  if (key !== '' && SECRET_MEMBER.test(key) && value !== undefined && value !== null) return '[redacted]';
  return typeof value === 'string' ? value.replace(URL_CREDENTIALS, '//[redacted]@').replace(SECRET_PAIR, '$1[redacted]') : value;
};

/**
 * A received value as a message shows it: strings JSON-quoted, `undefined` as `undefined`,
 * functions as `a function`, anything else as JSON, or `[object X]` when it has none
 * (cycles, BigInt); `NaN` and `Infinity` as themselves. Members named like secrets, the
 * credentials of a URL and a secret-named field inside a string (JSON not yet parsed) are shown
 * as `[redacted]`; a bare secret value must still never be passed to it.
 */
export function show(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'function') return 'a function';
  // JSON has no NaN or Infinity: it would print null, which names another mistake
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  try {
    return JSON.stringify(value, redacted) ?? String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/** Fails with `<path> must be <expected>; got <value>`. */
export function mustBe(path: string, expected: string, value: unknown): never {
  fail(`${path} must be ${expected}; got ${show(value)}`);
}

/** A non-null object that is not an array. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export interface CheckObjectOptions {
  /**
   * Let arrays through as objects. Only for the top-level options that have always accepted
   * them (`[]` reads as `{}`); new checks refuse arrays.
   */
  readonly allowArray?: boolean;
}

/**
 * An object of settings, or `undefined` when the option is left out.
 * @param expected what the option should be, e.g. `an object like { betaEnabled }`
 */
export function checkObject<T extends object = Record<string, unknown>>(
  path: string, value: unknown, expected: string, options: CheckObjectOptions = {},
): T | undefined {
  if (value === undefined) return undefined;
  const ok = options.allowArray ? value !== null && typeof value === 'object' : isPlainObject(value);
  if (!ok) mustBe(path, expected, value);
  return value as T;
}

/** Fails with `<path>.<key> is not a known <noun>; use one of <known>`. */
export function unknownKey(path: string, key: string, known: Iterable<string>, noun = 'option'): never {
  const names = [...known];
  fail(`${path}.${key} is not a known ${noun}; use one of ${names.join(', ')}${didYouMean(key, names)}`);
}

/** Edit distance (insertions, deletions, substitutions, adjacent swaps), case-insensitive. */
function distance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  const d: number[][] = Array.from({ length: s.length + 1 }, (_, i) => [i, ...Array<number>(t.length).fill(0)]);
  for (let j = 1; j <= t.length; j += 1) d[0]![j] = j;
  for (let i = 1; i <= s.length; i += 1) {
    for (let j = 1; j <= t.length; j += 1) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[s.length]![t.length]!;
}

/** The candidate closest to `name`, when it is close enough to be a slip of the keyboard. */
export function closest(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = distance(name, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  // a slip, not a different word: at most a third of the letters, and never all of them
  return best !== undefined && bestDistance <= Math.max(1, Math.floor(best.length / 3)) && bestDistance < best.length ? best : undefined;
}

/** `; did you mean "x"?` when a candidate is close to `name`, otherwise nothing: the end of a message. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const match = closest(name, candidates);
  return match === undefined ? '' : `; did you mean ${JSON.stringify(match)}?`;
}

/** Every own key of `value` is one of `known`; the first that is not fails. */
export function checkKnownKeys(path: string, value: object, known: Iterable<string>, noun = 'option'): void {
  const allowed = new Set(known);
  for (const key of Object.keys(value)) {
    if (!allowed.has(key)) unknownKey(path, key, allowed, noun);
  }
}

/**
 * A boolean, or `fallback` when left out.
 * @param expected how the message names a boolean (`true or false`, `a boolean`)
 */
export function checkBoolean(path: string, value: unknown, fallback: boolean, expected?: string): boolean;
export function checkBoolean(path: string, value: unknown, fallback?: undefined, expected?: string): boolean | undefined;
export function checkBoolean(path: string, value: unknown, fallback?: boolean, expected = 'true or false'): boolean | undefined {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') mustBe(path, expected, value);
  return value;
}

/** The bounds and default of a whole-number option; `unit` (`bytes`) is named in the message. */
export interface IntegerRange {
  readonly min: number;
  readonly max: number;
  readonly default: number;
  readonly unit?: string;
}

/** A safe integer from `range.min` to `range.max`, or `range.default` when left out. */
export function checkInteger(path: string, value: unknown, range: IntegerRange): number {
  const { min, max, unit } = range;
  if (value === undefined) return range.default;
  if (!Number.isSafeInteger(value) || (value as number) < min || (value as number) > max) {
    fail(`${path} must be a whole number from ${min} to ${max}${unit ? ` (${unit})` : ''}; got ${show(value)}. Leave it out for the default, ${range.default}`);
  }
  return value as number;
}

/** An array of non-empty strings, or a copy of `fallback` when left out. */
export function checkStringList(path: string, value: unknown, fallback: readonly string[]): string[] {
  if (value === undefined) return [...fallback];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || !v)) {
    mustBe(path, 'an array of non-empty strings', value);
  }
  return value as string[];
}

/**
 * A function, or `undefined` when left out.
 * @param signature how it is called, e.g. `(doc) => void that edits the document in place`
 */
export function checkFunction<F extends (...args: never[]) => unknown>(path: string, value: unknown, signature: string): F | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'function') mustBe(path, `a function ${signature}`, value);
  return value as F;
}
