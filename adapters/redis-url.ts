/**
 * The `url` of `createRedisAdapter` and `migrateRedisKeys`, checked before ioredis reads it:
 * a `url` ioredis would read as something else, or an unset environment variable, is refused
 * at once with what to pass, never quoting more of the URL than its scheme.
 *
 * @module
 */

/**
 * A `url` ioredis reads as meant. ioredis parses a string starting with exactly `redis://` or
 * `rediss://` (lower case; `rediss://` turns TLS on) as a URL, takes one starting with `/` as a
 * Unix socket path, and puts `redis://` in front of anything else (`localhost:6379`,
 * `user:pass@host:6379`). So another scheme (`http://…`) or `REDISS://`/`rediss:host` (read
 * as a host named `rediss` or `REDISS`, in plain text) connect somewhere not meant, and a URL
 * that does not parse makes ioredis throw an error whose `input` is the whole URL, password
 * included. Those are refused here; the message names the scheme at most, never the rest.
 */
function checkRedisUrl(caller: string, url: unknown): void {
  const refuse = (why: string): never => {
    throw new TypeError(`${caller}: \`url\` ${why}; pass a redis:// or rediss:// URL (or a Unix socket path)`);
  };
  if (typeof url !== 'string' || url === '') refuse('must be a non-empty string');
  const text = url as string;
  if (text.trim() !== text) refuse('has leading or trailing whitespace');
  if (text.startsWith('/')) return;
  if (/^rediss?:\/\//.test(text)) {
    if (URL.parse(text) === null) refuse('is not a valid URL');
    return;
  }
  // a scheme spelled otherwise: `http://`, `REDISS://`, or `rediss:`/`redis:` without `//`
  // (but `redis:6379`, a host named redis and its port, as Docker Compose names services)
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]{0,19}):\/\//.exec(text)?.[1] ?? /^(rediss?):(?!\d+$)/i.exec(text)?.[1];
  if (scheme !== undefined) refuse(`has the scheme ${JSON.stringify(`${scheme}:`)}, which ioredis would not read as meant`);
}

/** Exactly one of `url` (checked) or `client`; an undefined `url` named as the likely unset variable. */
export function checkUrlOrClient(caller: string, options: { readonly url?: unknown; readonly client?: unknown }): void {
  if (options.client === undefined && options.url === undefined && 'url' in options) {
    // `url: process.env.REDIS_URL` with the variable unset: name the likely cause
    throw new TypeError(`${caller}: \`url\` is undefined (an environment variable that is not set?): pass a redis:// or rediss:// URL, or \`client\``);
  }
  if ((options.client === undefined) === (options.url === undefined)) {
    throw new TypeError(`${caller}: pass exactly one of \`client\` or \`url\``);
  }
  if (options.url !== undefined) checkRedisUrl(caller, options.url);
}

/** Where a single-Redis client connects (`host:port`, or its socket path): never the password. */
export function redisAddress(client: { readonly options: { readonly host?: string | undefined; readonly port?: number | undefined; readonly path?: string | undefined } }): string {
  const { host, port, path } = client.options;
  return path ? path : `${host ?? '127.0.0.1'}:${port ?? 6379}`;
}

/**
 * Why a connection failed, as `Redis at <where> …`'s end: Redis refusing the credentials
 * (`WRONGPASS`, `NOAUTH`, `ERR invalid password` before Redis 6), said so since retrying does
 * not fix it, or the error's code or name. Never the error's `command`, whose arguments are
 * the password for AUTH and a token-bearing key for most others.
 */
export function connectionFailure(error: unknown): { readonly refused: boolean; readonly text: string } {
  const { message, code, name } = (error ?? {}) as { message?: unknown; code?: unknown; name?: unknown };
  const refused = typeof message === 'string' ? /^(WRONGPASS|NOAUTH|ERR invalid password)\b/.exec(message)?.[1] : undefined;
  if (refused) return { refused: true, text: `refused the credentials (${refused}): check the user name and password in the url` };
  return { refused: false, text: `is unreachable (${typeof code === 'string' ? code : typeof name === 'string' ? name : 'Error'})` };
}
