/**
 * The secrets behind `options.jwks` and `options.cookieKeys`, written once: creating them,
 * checking them and rotating them. Pure functions (no files, no stdin, no printing):
 * `lib/config/validate.ts` checks the options with them (and generates the development
 * secrets), `lib/cli/main.ts` is the command line around them.
 *
 * Rotation keeps the order oidc-provider relies on: it signs ID tokens with the first
 * ES256 key of `options.jwks.keys` and publishes all of them at the JWKS endpoint, and
 * cookies are signed with the first of `options.cookieKeys` and checked against all. So
 * the new secret goes first and the old ones stay after it until what they signed expires.
 *
 * Error messages never contain a secret (no `d`, no cookie key, no input excerpt).
 *
 * @module
 */
import { createECDH, randomBytes } from 'node:crypto';

import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';

import { PROTOCOL } from '../constants.ts';

/** The one algorithm of the signing keys (spec §2.3). */
const ALG = PROTOCOL.idTokenSigningAlg;

/** A private ES256 signing key in the form `options.jwks.keys` takes. */
export interface SigningJwk {
  kty: 'EC';
  crv: 'P-256';
  x: string;
  y: string;
  /** the private part: never publish it */
  d: string;
  /** RFC 7638 thumbprint for keys this module creates; any non-empty string for keys it is given */
  kid: string;
  alg?: typeof PROTOCOL.idTokenSigningAlg;
  use?: 'sig';
  /** other members of a key that was passed in are kept as they are */
  [member: string]: unknown;
}

/** The value of `options.jwks`. */
export interface SigningJwks {
  keys: SigningJwk[];
}

/** What `platform-auth keys` prints: spread it into the options. */
export interface Secrets {
  jwks: SigningJwks;
  cookieKeys: string[];
}

/** A secrets document read back for rotation: a JWKS, or a `{ jwks, cookieKeys? }` document. */
export interface SecretsDocument {
  jwks: SigningJwks;
  /** present when the document carried `cookieKeys` beside `jwks` */
  cookieKeys?: string[];
  /**
   * the document's other top-level members (e.g. a host's own `operatorSecret`), as they
   * were: a rotation writes them back unchanged; empty for a JWKS
   */
  others: Record<string, unknown>;
}

/** Input that cannot be used as it is; the message says what is wrong and never quotes a secret. */
export class SecretsInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretsInputError';
  }
}

/** The shortest cookie key `options.cookieKeys` accepts. */
export const MIN_COOKIE_KEY_LENGTH = 32;

function refuse(message: string): never {
  throw new SecretsInputError(message);
}

/** a value safe to quote in a message: only short scalars, never a key member */
function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return value.length <= 20 ? JSON.stringify(value) : 'a long string';
  if (typeof value === 'object') return 'an object';
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : typeof value;
}

/** what `value` is, never what it says: for values that may be a secret */
function kindOf(value: unknown): string {
  if (value === undefined || value === null) return describe(value);
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * A new private key of {@link PROTOCOL.idTokenSigningAlg} (ES256) with `kid` (its RFC 7638
 * SHA-256 thumbprint), `alg` and `use: "sig"`.
 */
export async function createSigningKey(): Promise<SigningJwk> {
  const { privateKey } = await generateKeyPair(ALG, { extractable: true });
  const { kty, crv, x, y, d } = await exportJWK(privateKey);
  if (kty !== 'EC' || crv !== 'P-256' || !x || !y || !d) throw new Error(`jose exported an unexpected ${ALG} key`);
  const kid = await calculateJwkThumbprint({ kty, crv, x, y });
  return { kty: 'EC', crv: 'P-256', x, y, d, kid, alg: ALG, use: 'sig' };
}

/** A new cookie key: 32 random bytes, base64url (43 characters, above {@link MIN_COOKIE_KEY_LENGTH}). */
export function createCookieKey(): string {
  return randomBytes(32).toString('base64url');
}

/** `count` new cookie keys. */
export function createCookieKeys(count = 1): string[] {
  if (!Number.isSafeInteger(count) || count < 1) throw new RangeError('count must be a positive whole number');
  return Array.from({ length: count }, createCookieKey);
}

/** Fresh production secrets: one signing key and one cookie key. */
export async function createSecrets(): Promise<Secrets> {
  return { jwks: { keys: [await createSigningKey()] }, cookieKeys: createCookieKeys(1) };
}

/**
 * Checks that `value` is a JWKS of private ES256 keys with distinct `kid`s, each a valid
 * P-256 key pair, i.e. what `options.jwks` accepts.
 *
 * @param source - the path of the input in messages, e.g. `"options.jwks"` or
 *   `"secrets.json"`; a key is named `<source>.keys[<i>]`
 * @throws SecretsInputError naming the key and what to change
 */
export function checkSigningJwks(value: unknown, source = 'jwks'): SigningJwks {
  const shape = `${source} must be a JWKS { "keys": [...] } of private ${ALG} keys (kty "EC", crv "P-256", d, kid), e.g. the "jwks" that platform-auth keys printed`;
  if (!isObject(value) || !Array.isArray(value.keys)) refuse(`${shape}; got ${describe(value)}${isObject(value) ? ' without a "keys" array' : ''}`);
  if (value.keys.length === 0) refuse(`${shape}; its "keys" array is empty`);
  const kids = new Set<string>();
  const keys = value.keys.map((key: unknown, i: number): SigningJwk => {
    const at = `${source}.keys[${i}]`;
    if (!isObject(key)) refuse(`${at} must be a JWK object; got ${describe(key)}`);
    if (key.kty !== 'EC' || key.crv !== 'P-256') {
      refuse(`${at} must be a private EC P-256 key (${ALG} is the only ID-token algorithm); got kty ${describe(key.kty)}, crv ${describe(key.crv)}`);
    }
    if (typeof key.d !== 'string' || !key.d) {
      refuse(`${at} is a public key (no "d"): pass the private JWKS you give options.jwks, not the published /api/oauth/jwks`);
    }
    if (typeof key.x !== 'string' || typeof key.y !== 'string') refuse(`${at} lacks the public coordinates "x" and "y"`);
    if (key.alg !== undefined && key.alg !== ALG) refuse(`${at}.alg must be "${ALG}" or absent; got ${describe(key.alg)}`);
    if (key.use !== undefined && key.use !== 'sig') refuse(`${at}.use must be "sig" or absent; got ${describe(key.use)}`);
    if (typeof key.kid !== 'string' || !key.kid) {
      refuse(`${at} has no "kid": every key needs one so ID tokens name the key that verifies them (platform-auth keys sets the RFC 7638 thumbprint)`);
    }
    if (kids.has(key.kid)) refuse(`${at}.kid ${describe(key.kid)} is used by an earlier key; kids must be distinct`);
    kids.add(key.kid);
    checkKeyPair(key as { d: string; x: string; y: string }, at);
    return { ...key } as SigningJwk;
  });
  return { keys };
}

/** the private key must be a P-256 scalar whose public point is the given x, y */
/** A P-256 coordinate or private scalar: 32 bytes, base64url without padding. */
const P256_MEMBER = /^[A-Za-z0-9_-]{43}$/;

function checkKeyPair(jwk: { d: string; x: string; y: string }, at: string): void {
  let point: Buffer;
  try {
    // Buffer skips characters outside base64url: "<d>!!" would decode to the key and pass on as typed
    if (!P256_MEMBER.test(jwk.d)) throw new RangeError('d is not 43 base64url characters');
    const d = Buffer.from(jwk.d, 'base64url');
    if (d.length !== 32) throw new RangeError('d is not 32 bytes');
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(d);
    point = ecdh.getPublicKey(); // 0x04 || x || y
  } catch {
    refuse(`${at} is not a valid P-256 private key (its "d" is malformed)`);
  }
  if (point.subarray(1, 33).toString('base64url') !== jwk.x || point.subarray(33).toString('base64url') !== jwk.y) {
    refuse(`${at}: "x" and "y" are not the public key of its "d"; the key is corrupt`);
  }
}

/**
 * Checks that `value` is what `options.cookieKeys` accepts: a non-empty array of strings
 * of at least {@link MIN_COOKIE_KEY_LENGTH} characters.
 *
 * @param source - the path of the input in messages, e.g. `"options.cookieKeys"`; an entry
 *   is named `<source>[<i>]`
 * @throws SecretsInputError naming the entry (never its value)
 */
export function checkCookieKeys(value: unknown, source = 'cookieKeys'): string[] {
  const shape = `${source} must be a non-empty array of secrets of at least ${MIN_COOKIE_KEY_LENGTH} characters each`;
  // by its kind only: a string given instead of the array may well be the key itself
  if (!Array.isArray(value) || value.length === 0) refuse(`${shape}; got ${Array.isArray(value) ? 'an empty array' : kindOf(value)}`);
  value.forEach((key: unknown, i: number) => {
    if (typeof key !== 'string' || key.length < MIN_COOKIE_KEY_LENGTH) refuse(`${shape}; ${source}[${i}] is too short or not a string`);
  });
  return [...value] as string[];
}

/**
 * The fewest distinct characters a production cookie key may have. A random key of the
 * shortest length ({@link MIN_COOKIE_KEY_LENGTH}, 32) drawn from the smallest usual alphabet,
 * hex (16 symbols, e.g. `openssl rand -hex 16`), has 6 or fewer distinct characters with
 * probability Σ_{k≤6} C(16,k)·surj(32,k)/16^32 ≈ 1.8e-10 (bounded by C(16,6)·6^32/16^32 ≈
 * 1.9e-10), so a real random key is refused about once in five billion; refusing 7 as well
 * would already be 3.5e-8. The keys {@link createCookieKey} makes (43 base64url characters, 64 symbols) fall
 * below it with probability ≈ C(64,6)·(6/64)^43 ≈ 5e-37: never.
 */
export const MIN_COOKIE_KEY_DISTINCT_CHARACTERS = 7;

/** what `npx --no-install platform-auth keys` gives: said in every refusal of a weak cookie key */
const NEW_COOKIE_KEY_HINT = 'replace it with a long random secret, e.g. the "cookieKeys" entry that `npx --no-install platform-auth keys` prints (sign-in sessions it signed will end)';

/**
 * The shortest period of `chars`: the least p with chars[i] === chars[i + p] for every i
 * (the prefix function of Knuth–Morris–Pratt). `chars.length` when nothing shorter repeats.
 */
function shortestPeriod(chars: readonly string[]): number {
  const border = new Array<number>(chars.length).fill(0);
  for (let i = 1, k = 0; i < chars.length; i += 1) {
    while (k > 0 && chars[i] !== chars[k]) k = border[k - 1]!;
    if (chars[i] === chars[k]) k += 1;
    border[i] = k;
  }
  return chars.length - (border[chars.length - 1] ?? 0);
}

/**
 * What production adds to {@link checkCookieKeys}: refuses keys that are long but not random,
 * which a length check lets through: a key listed twice, a shorter string repeated (at least
 * twice, possibly cut off: `"changeme".repeat(4)`, `"a".repeat(32)`) and a key of fewer than
 * {@link MIN_COOKIE_KEY_DISTINCT_CHARACTERS} distinct characters. Never refuses what
 * {@link createCookieKey} makes (see {@link MIN_COOKIE_KEY_DISTINCT_CHARACTERS} for the odds).
 *
 * @param keys - already checked with {@link checkCookieKeys}
 * @param source - as for {@link checkCookieKeys}
 * @throws SecretsInputError naming the entry (never its value) and what to change
 */
export function checkProductionCookieKeys(keys: readonly string[], source = 'cookieKeys'): void {
  const seen = new Map<string, number>();
  keys.forEach((key, i) => {
    const at = `${source}[${i}]`;
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      refuse(`${at} is the same secret as ${source}[${earlier}]; in production each cookie key must be a different secret: remove the duplicate, or ${NEW_COOKIE_KEY_HINT}`);
    }
    seen.set(key, i);
    const weakness = notRandom(key);
    if (weakness) refuse(`${at} ${weakness}; production refuses it: ${NEW_COOKIE_KEY_HINT}`);
  });
}

/**
 * Why `secret`, long enough, is still not a random secret: a shorter string repeated (at least
 * twice, possibly cut off: `"changeme".repeat(4)`, `"a".repeat(32)`), or fewer than
 * {@link MIN_COOKIE_KEY_DISTINCT_CHARACTERS} distinct characters (the odds for a random one are
 * there). `undefined` when nothing gives it away. Never quotes the secret.
 */
export function notRandom(secret: string): string | undefined {
  const chars = Array.from(secret);
  if (shortestPeriod(chars) * 2 <= chars.length) return 'is a shorter string repeated, not a random secret';
  const distinct = new Set(chars).size;
  if (distinct < MIN_COOKIE_KEY_DISTINCT_CHARACTERS) {
    return `has only ${distinct} distinct characters (production needs at least ${MIN_COOKIE_KEY_DISTINCT_CHARACTERS}), so it is not a random secret`;
  }
  return undefined;
}

function parseJson(text: string, source: string, expected: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // JSON.parse's own message quotes the input, which may hold a private key
    return refuse(`${source} is not JSON; expected ${expected}`);
  }
}

/**
 * Reads the current secrets for `rotate`: either a JWKS `{ "keys": [...] }` or the
 * `{ "jwks": {...}, "cookieKeys"?: [...] }` document that `platform-auth keys` prints, whose
 * other top-level members are returned in `others` (`rotate F --out F` dropped them).
 *
 * @throws SecretsInputError for text that is not JSON or not such a document
 */
export function parseSecretsDocument(text: string, source = 'the input'): SecretsDocument {
  const value = parseJson(text, source, 'a JWKS { "keys": [...] } or the { "jwks": ..., "cookieKeys": [...] } that platform-auth keys printed');
  if (isObject(value) && value.keys === undefined && value.jwks !== undefined) {
    const { jwks: givenJwks, cookieKeys: givenCookieKeys, ...others } = value;
    const jwks = checkSigningJwks(givenJwks, `${source}.jwks`);
    if (givenCookieKeys === undefined) return { jwks, others };
    return { jwks, cookieKeys: checkCookieKeys(givenCookieKeys, `${source}.cookieKeys`), others };
  }
  return { jwks: checkSigningJwks(value, source), others: {} };
}

/**
 * Reads cookie keys: a JSON array of strings, or an object with `cookieKeys` (such as the
 * output of `platform-auth keys`).
 */
export function parseCookieKeys(text: string, source = 'the cookie keys'): string[] {
  const value = parseJson(text, source, 'an array of cookie keys or { "cookieKeys": [...] }');
  return isObject(value) ? checkCookieKeys(value.cookieKeys, `${source}.cookieKeys`) : checkCookieKeys(value, source);
}

/** Options of a rotation. */
export interface RotateOptions {
  /**
   * Keep at most this many of the current secrets after the new one (the newest of them,
   * i.e. the first). `0` drops them all: only once nothing they signed is still in use.
   * @default all of them
   */
  keep?: number;
}

function keepCount(options: RotateOptions): number {
  const keep = options.keep ?? Infinity;
  if (keep !== Infinity && (!Number.isSafeInteger(keep) || keep < 0)) throw new RangeError('keep must be a whole number ≥ 0');
  return keep;
}

/**
 * The next JWKS: a new key first (oidc-provider signs with the first key), then the
 * current keys in their order (they still verify the ID tokens they signed), at most
 * `options.keep` of them.
 *
 * @param current - checked with {@link checkSigningJwks}
 * @param newKey - the key to add; a fresh {@link createSigningKey} by default
 */
export async function rotateJwks(current: unknown, options: RotateOptions = {}, newKey?: SigningJwk): Promise<SigningJwks> {
  const keep = keepCount(options);
  const { keys } = checkSigningJwks(current);
  const added = newKey ?? await createSigningKey();
  if (keys.some((k) => k.kid === added.kid)) throw new SecretsInputError(`the new key's kid ${describe(added.kid)} is already in the JWKS`);
  return { keys: [added, ...keys.slice(0, keep)] };
}

/**
 * The next cookie keys: a new key first (cookies are signed with the first and checked
 * against all), then at most `options.keep` of the current ones.
 */
export function rotateCookieKeys(current: unknown, options: RotateOptions = {}, newKey = createCookieKey()): string[] {
  const keep = keepCount(options);
  const keys = checkCookieKeys(current);
  return [newKey, ...keys.slice(0, keep)];
}
