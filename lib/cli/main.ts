/**
 * `platform-auth`, the command line for production secrets: `keys` prints new ones,
 * `rotate` prints the next JWKS (and cookie keys) from the current ones, and with
 * `--publish FILE` also writes the secrets of the rotation's publish step. Run by the package
 * `bin` (./bin.ts, dist/lib/cli/bin.js); `node lib/cli/bin.ts` runs it from a checkout.
 *
 * Output is JSON on stdout, or with `--out FILE` in a new file of mode 0600 (`rotate F --out F`
 * replaces F atomically). Messages on stderr never contain a secret. Exit status: 0 done,
 * 2 bad arguments or input (nothing on stdout, no file written), 1 anything else.
 *
 * @module
 */
import { readFile, unlink } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

import { SECRET_FILE_MODE, identify, identifyStdout, sameFile, writeSecretFile } from './secret-file.ts';
import type { FileIdentity } from './secret-file.ts';
import {
  SecretsInputError, checkProductionCookieKeys, createSecrets, parseCookieKeys, parseSecretsDocument, rotateCookieKeys, rotateJwks,
} from '../keys/secrets.ts';
import type { SigningJwks } from '../keys/secrets.ts';
import { unsupportedNode } from '../config/runtime.ts';

export const USAGE = `Usage: platform-auth <command> [options]

Creates and rotates the secrets of platform-auth: options.jwks (the ES256 keys that sign
ID tokens) and options.cookieKeys (the secrets that sign sign-in cookies). Prints JSON on
stdout, or writes it to --out FILE; treat it as a secret (a secret manager, never git).

Commands:
  keys               Print new production secrets:
                       { "jwks": { "keys": [<ES256 private JWK with kid>] }, "cookieKeys": ["<secret>"] }
  rotate [file]      Read the current secrets from file, or stdin when file is absent or "-":
                     a JWKS { "keys": [...] } or what keys/rotate printed. Print the next JWKS:
                       { "jwks": { "keys": [<new key>, <current keys>...] } }
                     The new key signs from the moment it is deployed; the current keys stay
                     after it so the ID tokens they signed still verify. "cookieKeys" of the
                     input are passed through unchanged unless --cookie-keys is given, and so
                     are its other members ("operatorSecret": ...), after jwks and cookieKeys.

Options (keys and rotate):
  --out <file>             Write the JSON to file instead of stdout, readable by its owner only
                           (mode 0600, whatever the umask). Refuses a file that exists, except
                           the file rotate reads: "rotate F --out F" replaces F in one step (a
                           new file renamed over it), and keeps F as it was if anything fails.
                           A replaced file keeps its owner, group and the group's access
                           (root:app 0640 stays so), never others' (0644 becomes 0640); none
                           of them in a directory others may write, nor group access from a
                           file with an ACL (a note on stderr says so).
  --force                  With --out or --publish: replace an existing file (also in one
                           step, as above).

Options (rotate):
  --keep <n>               Keep at most n current keys after the new one (default: all).
                           Drop a key only after the ID tokens it signed have expired: 10
                           minutes after the new key started signing, plus clock skew.
  --cookie-keys <file>     Also rotate the cookie keys in file (a JSON array or
                           { "cookieKeys": [...] }; may be the same file as the JWKS):
                           print "cookieKeys" with a new key first, the current ones after it.
  --keep-cookie-keys <n>   Keep at most n current cookie keys (default: all). Sign-in
                           sessions signed with a dropped key end (ttl.session, 14 days by default).
  --publish <file>         Also write the secrets of step 1 of a rotation to file (mode 0600,
                           never over the file rotate reads): the same secrets, with the new key
                           (and with --cookie-keys the new cookie key) after the current ones,
                           so the current ones still sign while every instance learns the new.
                           Deploy it to every instance first, then the output (--out).
  -h, --help               Show this help.

Exit status: 0 done, 2 bad arguments or input (nothing on stdout, no file written),
1 anything else.

"> file" creates the file with your umask (often readable by everyone), and
"rotate F > F" empties F before platform-auth can read it: use --out.

Examples:
  platform-auth keys --out secrets.json
  platform-auth rotate secrets.json --out secrets.next.json --publish secrets.publish.json
  platform-auth rotate --keep 1 --cookie-keys secrets.json secrets.json --out secrets.json
`;

/** What the CLI touches outside itself; tests pass their own. */
export interface CliIo {
  /** `done` once the text is written, with the error when it could not be (a full disk, a closed pipe) */
  readonly stdout: { write(text: string, done: (error?: Error | null) => void): unknown };
  readonly stderr: { write(text: string): unknown };
  /** all of standard input; `undefined` when it is a terminal (nothing piped) */
  readStdin(): Promise<string | undefined>;
  readFile(path: string): Promise<string>;
  /** the file at path (following links), `undefined` when nothing is there */
  identify(path: string): Promise<FileIdentity | undefined>;
  /** what standard output is, `undefined` when that cannot be told */
  identifyStdout(): FileIdentity | undefined;
  /**
   * writes a file of mode 0600: `create` only a new one, `replace` atomically, keeping the
   * replaced file's owner and group access (see secret-file.ts); returns notes for stderr
   */
  writeSecretFile(path: string, text: string, how: 'create' | 'replace'): Promise<readonly string[] | void>;
  /** removes a file this run created, when what belongs with it could not be written */
  removeFile(path: string): Promise<void>;
}

/**
 * Standard output, its failure told to `done` once: Node reports it to the write's callback and
 * then, a tick later, as an 'error' event, which unheard would end the process with a stack
 * trace. So the listener stays (a command writes once or twice).
 */
const processStdout: CliIo['stdout'] = {
  write(text, done) {
    let told = false;
    const tell = (error?: Error | null) => {
      if (told) return;
      told = true;
      done(error);
    };
    process.stdout.on('error', tell);
    return process.stdout.write(text, tell);
  },
};

/** The real process. */
export const processIo: CliIo = {
  stdout: processStdout,
  stderr: process.stderr,
  async readStdin() {
    if (process.stdin.isTTY) return undefined;
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
  readFile: (path) => readFile(path, 'utf8'),
  identify,
  identifyStdout,
  writeSecretFile,
  removeFile: unlink,
};

/** bad arguments or input: exit status 2 */
class UsageError extends Error {
  /** whether to point at --help (not for unreadable input) */
  readonly hint: boolean;

  constructor(message: string, hint = true) {
    super(message);
    this.hint = hint;
  }
}

function count(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) throw new UsageError(`${name} must be a whole number ≥ 0; got ${JSON.stringify(value)}`);
  return Number(value);
}

async function readSource(io: CliIo, path: string | undefined, what: string): Promise<{ text: string; source: string }> {
  if (path === undefined || path === '-') {
    const text = await io.readStdin();
    if (text === undefined || text.trim() === '') {
      throw new UsageError(`rotate needs the current ${what}: pass a file, or pipe it on stdin${text === undefined ? '' : ' (stdin was empty)'}`);
    }
    return { text, source: 'stdin' };
  }
  try {
    return { text: await io.readFile(path), source: path };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' ? 'permission denied' : code ?? 'unreadable';
    throw new UsageError(`cannot read ${path}: ${reason}`, false);
  }
}

function reasonOf(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  const reasons: Record<string, string> = {
    ENOENT: 'no such file or directory', EISDIR: 'it is a directory', EACCES: 'permission denied', EPERM: 'permission denied',
    ENOSPC: 'no space left on the device', EFBIG: 'file too large (a file size limit)', EROFS: 'read-only file system',
    EPIPE: 'what reads it closed the pipe',
  };
  return (code && reasons[code]) ?? code ?? 'failed';
}

/** where the output goes: stdout, or a file (named by `option`) and how to write it */
type Destination = { path: undefined } | { path: string; how: 'create' | 'replace'; option: '--out' | '--publish' };

/**
 * Decides, before any secret is read or made, how --out (or --publish) is written: a new file
 * is created, an existing one is replaced only with --force or when it is the file rotate reads.
 */
async function destination(io: CliIo, out: string | undefined, force: boolean, input?: FileIdentity, option: '--out' | '--publish' = '--out'): Promise<Destination> {
  if (out === undefined) return { path: undefined };
  let existing: FileIdentity | undefined;
  try {
    existing = await io.identify(out);
  } catch (err) {
    throw new UsageError(`cannot write ${option} ${out}: ${reasonOf(err)}`, false);
  }
  if (existing === undefined) return { path: out, how: 'create', option };
  if (existing.isDirectory) throw new UsageError(`${option} ${out} is a directory; pass the path of a new file`, false);
  if (force || sameFile(existing, input)) return { path: out, how: 'replace', option };
  throw new UsageError(`${option} ${out} already exists and platform-auth does not overwrite secrets: pass a new path, or add --force to replace it`, false);
}

/** `text` on standard output; a failure (a full disk, a closed pipe) is the command's, exit 1 */
function writeOut(io: CliIo, text: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    io.stdout.write(text, (error) => (error ? reject(new Error(`cannot write the output: ${reasonOf(error)}`)) : resolve()));
  });
}

async function emit(io: CliIo, to: Destination, value: unknown): Promise<void> {
  const text = `${JSON.stringify(value, null, 2)}\n`;
  if (to.path === undefined) {
    const stdout = io.identifyStdout();
    // "> file" made the file with the umask; say so once the secrets are in it
    if (stdout?.isFile && (stdout.mode & 0o077) !== 0) {
      io.stderr.write(`platform-auth: warning: stdout is a file others can read (mode ${(stdout.mode & 0o777).toString(8).padStart(4, '0')}); run chmod 600 on it, or use --out <file>, which writes mode ${SECRET_FILE_MODE.toString(8).padStart(4, '0')}\n`);
    }
    await writeOut(io, text);
    return;
  }
  let notes: readonly string[] | void;
  try {
    notes = await io.writeSecretFile(to.path, text, to.how);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST' && to.how === 'create') {
      throw new UsageError(`${to.option} ${to.path} already exists (it was created meanwhile) and platform-auth does not overwrite secrets: pass a new path, or add --force to replace it`, false);
    }
    throw new Error(`cannot write ${to.path}: ${reasonOf(err)}${to.how === 'replace' ? `; ${to.path} is unchanged` : ''}`);
  }
  for (const note of notes ?? []) io.stderr.write(`platform-auth: note: ${note}\n`);
}

/**
 * The cookie keys printed are what production will be given: a kept key that production
 * refuses (a repeated string, few distinct characters, a duplicate) would stop the next
 * deploy, so it is said now, with how to drop it. A warning, not a refusal: the rotation
 * that puts a good key first is the way out of a weak one.
 */
function warnOfWeakCookieKeys(io: CliIo, cookieKeys: readonly string[], rotated: boolean): void {
  try {
    checkProductionCookieKeys(cookieKeys, 'cookieKeys');
  } catch (err) {
    if (!(err instanceof SecretsInputError)) throw err;
    // without --cookie-keys they passed through: --keep-cookie-keys alone is refused
    const how = rotated
      ? 'To drop the old keys after the new one, rotate with --keep-cookie-keys <n>'
      : 'To put a new key first and drop the old ones, rotate with --cookie-keys <file> --keep-cookie-keys <n>';
    io.stderr.write(`platform-auth: warning: production will refuse these cookie keys: ${err.message}. `
      + `${how} (n: how many old keys to keep; sign-in sessions signed by a dropped key end)\n`);
  }
}

/**
 * `rotate F > F`: the shell truncated (or, with `>>`, appends to) F before this process ran.
 * Refuses before reading, and says what became of F.
 */
async function refuseStdoutInput(io: CliIo, paths: readonly (string | undefined)[]): Promise<void> {
  const stdout = io.identifyStdout();
  if (!stdout?.isFile) return;
  for (const path of new Set(paths)) {
    if (path === undefined || path === '-') continue;
    const input = await io.identify(path).catch(() => undefined);
    if (!sameFile(stdout, input)) continue;
    const fix = `To rotate a file in place, run: platform-auth rotate ${path} --out ${path} (with your other options)`;
    throw new UsageError(stdout.size === 0
      ? `stdout is ${path}, the file rotate reads: the shell emptied it before platform-auth started ("> ${path}"), so the secrets it held are gone from it. Restore ${path} from your secret manager or a backup. ${fix}`
      : `stdout is ${path}, the file rotate reads: the output would be added to it (">> ${path}"); nothing was written. ${fix}`, false);
  }
}

/**
 * The output failed after the --publish file was written: a file this run created is removed
 * (the two belong together), and the error says what became of it.
 */
async function withdrawPublished(io: CliIo, published: Destination & { path: string }, err: Error): Promise<Error> {
  const { path } = published;
  if (published.how === 'replace') {
    err.message += `; --publish ${path} was replaced already, without the output that goes with it: run the rotation again`;
    return err;
  }
  try {
    await io.removeFile(path);
    err.message += `; --publish ${path} was removed again`;
  } catch (removal) {
    err.message += `; --publish ${path} was written and could not be removed (${reasonOf(removal)}): delete it before running again`;
  }
  return err;
}

async function run(argv: readonly string[], io: CliIo): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        help: { type: 'boolean', short: 'h' },
        keep: { type: 'string' },
        'cookie-keys': { type: 'string' },
        'keep-cookie-keys': { type: 'string' },
        out: { type: 'string' },
        publish: { type: 'string' },
        force: { type: 'boolean' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help) {
    await writeOut(io, USAGE);
    return;
  }
  if (command === undefined) throw new UsageError('a command is needed: keys or rotate');
  const out = values.out;
  if (out === '' || out === '-') throw new UsageError('--out needs the path of a file; leave --out out to print on stdout');
  const publish = values.publish;
  if (publish === '' || publish === '-') throw new UsageError('--publish needs the path of a file');
  const force = values.force ?? false;
  if (force && out === undefined && publish === undefined) throw new UsageError('--force applies to --out <file> and --publish <file> only (stdout is never refused)');

  if (command === 'keys') {
    if (rest.length > 0) throw new UsageError(`keys takes no arguments; got ${JSON.stringify(rest[0])}`);
    const misplaced = (['keep', 'cookie-keys', 'keep-cookie-keys', 'publish'] as const).find((name) => values[name] !== undefined);
    if (misplaced) throw new UsageError(`--${misplaced} is an option of rotate, not keys`);
    const to = await destination(io, out, force);
    await emit(io, to, await createSecrets());
    return;
  }

  if (command === 'rotate') {
    if (rest.length > 1) throw new UsageError(`rotate takes one file (or none, for stdin); got ${rest.length}`);
    const keep = count(values.keep, '--keep');
    const keepCookieKeys = count(values['keep-cookie-keys'], '--keep-cookie-keys');
    const cookieKeysPath = values['cookie-keys'];
    if (keepCookieKeys !== undefined && cookieKeysPath === undefined) throw new UsageError('--keep-cookie-keys needs --cookie-keys <file>');
    const jwksPath = rest[0];
    const readsStdin = (p: string | undefined) => p === undefined || p === '-';
    if (cookieKeysPath !== undefined && readsStdin(jwksPath) && cookieKeysPath === '-') {
      throw new UsageError('stdin can be read once: give the JWKS or the cookie keys as a file');
    }
    // step 1 signs with the current first secrets: a rotation that drops them has no such step
    if (publish !== undefined && keep === 0) {
      throw new UsageError('--publish keeps the current signing key first, which --keep 0 drops: use --keep 1 or more (or leave --publish out on one instance)');
    }
    if (publish !== undefined && keepCookieKeys === 0) {
      throw new UsageError('--publish keeps the current cookie key first, which --keep-cookie-keys 0 drops: use --keep-cookie-keys 1 or more');
    }

    await refuseStdoutInput(io, [jwksPath, cookieKeysPath]);
    // the JWKS file may be replaced in place; an existing --out is refused before anything is read
    const identifyFile = (p: string | undefined) => (readsStdin(p) ? undefined : io.identify(p!).catch(() => undefined));
    const inputFile = await identifyFile(jwksPath);
    const to = await destination(io, out, force, inputFile);
    let publishTo: Destination = { path: undefined };
    if (publish !== undefined) {
      const publishFile = await identifyFile(publish);
      if (sameFile(publishFile, inputFile) || sameFile(publishFile, await identifyFile(cookieKeysPath))) {
        throw new UsageError(`--publish ${publish} is a file rotate reads: the current secrets stay in it until the rotation's last step; pass a new path`, false);
      }
      if ((out !== undefined && resolve(out) === resolve(publish)) || sameFile(publishFile, await identifyFile(out))) {
        throw new UsageError('--publish and --out name one file: pass two paths (the secrets of step 1, and the next secrets)', false);
      }
      publishTo = await destination(io, publish, force, undefined, '--publish');
    }

    const input = await readSource(io, jwksPath, 'JWKS');
    const current = parseSecretsDocument(input.text, input.source);
    let cookieKeys = current.cookieKeys;
    if (cookieKeysPath !== undefined) {
      const cookieInput = cookieKeysPath === jwksPath ? input : await readSource(io, cookieKeysPath, 'cookie keys');
      cookieKeys = rotateCookieKeys(parseCookieKeys(cookieInput.text, cookieInput.source), { keep: keepCookieKeys });
    }
    if (cookieKeys !== undefined) warnOfWeakCookieKeys(io, cookieKeys, cookieKeysPath !== undefined);
    const jwks: SigningJwks = await rotateJwks(current.jwks, { keep });
    // the input's other members (a host's own secrets kept in the same file) are written back
    const next = { jwks, ...(cookieKeys !== undefined && { cookieKeys }), ...current.others };
    if (publishTo.path === undefined) {
      await emit(io, to, next);
      return;
    }
    // step 1 moves only what this run added: cookie keys passed through stay as they are
    const newestLast = <T>(rotated: readonly T[]): T[] => [...rotated.slice(1), rotated[0]!];
    const published = { ...next, jwks: { keys: newestLast(jwks.keys) }, ...(cookieKeysPath !== undefined && { cookieKeys: newestLast(cookieKeys!) }) };
    // the publish file first: the output may replace the input, which nothing can take back
    await emit(io, publishTo, published);
    try {
      await emit(io, to, next);
    } catch (err) {
      throw await withdrawPublished(io, publishTo, err as Error);
    }
    return;
  }

  throw new UsageError(`unknown command ${JSON.stringify(command)}: use keys or rotate`);
}

/**
 * Runs the command line with `argv` (without `node` and the script) and returns the exit
 * status; writes only through `io`.
 */
export async function main(argv: readonly string[], io: CliIo = processIo, nodeVersion = process.versions.node): Promise<number> {
  const runtime = unsupportedNode(nodeVersion);
  if (runtime) {
    io.stderr.write(`platform-auth: ${runtime}\n`);
    return 1;
  }
  try {
    await run(argv, io);
    return 0;
  } catch (err) {
    if (err instanceof UsageError || err instanceof SecretsInputError) {
      io.stderr.write(`platform-auth: ${err.message}\n${err instanceof UsageError && err.hint ? 'Run platform-auth --help for usage.\n' : ''}`);
      return 2;
    }
    // unexpected: the message only (a stack adds nothing for the user, and no input is quoted)
    io.stderr.write(`platform-auth: ${(err as Error)?.message ?? String(err)}\n`);
    return 1;
  }
}
