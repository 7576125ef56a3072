/**
 * Where `platform-auth --out FILE` puts its secrets: a file only its owner can read (0600,
 * whatever the umask), never over an existing file by accident, and replaced atomically (a
 * temporary file in the same directory, written, flushed and renamed over it) so that a
 * failure leaves the old secrets as they were.
 *
 * A replaced file keeps who could read it: its owner and group, and its group's access
 * (`root:app 0640`, where the app reads its secrets as a member of `app`, stays so after
 * `sudo platform-auth rotate F --out F`; a new `root:root 0600` file would stop the app at
 * its next start). Never others' access: secrets readable by every user lose that, with a
 * note. When the owner or group cannot be kept (an unprivileged user replacing another's
 * file), the new file is the runner's, 0600, with a note saying what to run. Nothing is kept,
 * and the new file is the runner's, 0600, with a note, when the file's directory may be
 * written by others or belongs to another user (a shared `/tmp`, a link into someone's
 * home): whoever could put a file there would be given the new secrets; nor the group's
 * access when the file has an access control list, whose mask the group bits then show
 * (its readers get their access again with `setfacl`).
 *
 * @module
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fstatSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { link, lstat, open, realpath, rename, stat, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Only the owner may read and write the secrets. */
export const SECRET_FILE_MODE = 0o600;

/** What identifies a file (same `dev` and `ino`: the same file, whatever its path). */
export interface FileIdentity {
  dev: number;
  ino: number;
  size: number;
  mode: number;
  /** a regular file (not a directory, pipe, terminal, …) */
  isFile: boolean;
  isDirectory: boolean;
}

function identity(s: { dev: number; ino: number; size: number; mode: number; isFile(): boolean; isDirectory(): boolean }): FileIdentity {
  return { dev: s.dev, ino: s.ino, size: s.size, mode: s.mode, isFile: s.isFile(), isDirectory: s.isDirectory() };
}

/** whether two identities are one file */
export function sameFile(a: FileIdentity | undefined, b: FileIdentity | undefined): boolean {
  return a !== undefined && b !== undefined && a.dev === b.dev && a.ino === b.ino;
}

/**
 * The file at `path` (following a symbolic link; the link itself when it dangles), or
 * `undefined` when nothing is there.
 */
export async function identify(path: string): Promise<FileIdentity | undefined> {
  for (const look of [stat, lstat]) {
    try {
      return identity(await look(path));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  return undefined;
}

/** standard output as a file, or `undefined` when it cannot be told (closed, a Windows console) */
export function identifyStdout(): FileIdentity | undefined {
  try {
    return identity(fstatSync(1));
  } catch {
    return undefined;
  }
}

// with the set-id and sticky bits: a directory's 1777 says what 0777 does not
const octal = (mode: number) => (mode & 0o7777).toString(8).padStart(4, '0');

/**
 * Whether `path` has an access control list (`ls -l` marks it with `+` after the mode, on
 * Linux and the BSDs); `undefined` when that cannot be told.
 */
function hasAccessControlList(path: string): boolean | undefined {
  const listed = spawnSync('ls', ['-ld', '--', path], { encoding: 'utf8', timeout: 5_000 });
  if (listed.status !== 0 || typeof listed.stdout !== 'string' || !/^[-dlcbps]/.test(listed.stdout)) return undefined;
  return listed.stdout[10] === '+';
}

/**
 * Whether the owner of the file being replaced may be given the new secrets: its directory
 * is root's or this user's, and nobody else may write it. Otherwise whoever put the file
 * there (or a link to it) would choose who reads the new secrets.
 */
function isTrustedDirectory(directory: Stats): boolean {
  const self = process.getuid?.();
  return (directory.uid === 0 || directory.uid === self) && (directory.mode & 0o022) === 0;
}

/**
 * Gives the new file (still the temporary one) the owner and group of the file it replaces,
 * as far as this process may, and the group's read and write bits when the group was kept.
 * Returns what could not be kept, in words for stderr (file names and modes, no secret).
 */
async function keepAccess(handle: FileHandle, previous: Stats, path: string, real: string): Promise<string[]> {
  // Windows has no owner or mode bits to keep (files stat as 0666)
  if (process.platform === 'win32') return [];
  const directory = await stat(dirname(real));
  if (!isTrustedDirectory(directory)) {
    return [`${path} is in a directory that other users may write, or that belongs to another user (${directory.uid}:${directory.gid}, mode ${octal(directory.mode)}): the new file is this user's, mode ${octal(SECRET_FILE_MODE)}, not ${previous.uid}:${previous.gid} mode ${octal(previous.mode)} as the old one was; keep secrets in a directory only their owner may write`];
  }
  const notes: string[] = [];
  // root may give any owner; another user only its own uid, and a group it belongs to
  for (const [uid, gid] of [[previous.uid, previous.gid], [-1, previous.gid]] as const) {
    try {
      await handle.chown(uid, gid);
      break;
    } catch (err) {
      if (!['EPERM', 'EINVAL'].includes((err as NodeJS.ErrnoException).code ?? '')) throw err;
    }
  }
  const now = await handle.stat();
  // group access only for the group that had it (never for the runner's own group instead),
  // and not read from a file with an ACL, whose group bits are its mask
  const acl = (previous.mode & 0o060) !== 0 ? hasAccessControlList(real) : false;
  const groupBits = now.gid === previous.gid && acl === false ? previous.mode & 0o060 : 0;
  await handle.chmod(SECRET_FILE_MODE | groupBits);
  if (acl !== false) {
    notes.push(`${path} ${acl ? 'had an access control list' : 'may have had an access control list (ls could not tell)'}, which the new file does not carry: it is mode ${octal(SECRET_FILE_MODE)}; give its readers their access again (setfacl -m u:<user>:r ${path})`);
  }
  if (now.uid !== previous.uid || now.gid !== previous.gid) {
    notes.push(`${path} belonged to ${previous.uid}:${previous.gid} (mode ${octal(previous.mode)}), and this user may not give the new file that owner: it belongs to ${now.uid}:${now.gid}, mode ${octal(SECRET_FILE_MODE | groupBits)}; if another user reads it, run as root: chown ${previous.uid}:${previous.gid} ${path}${groupBits ? '' : ` && chmod ${octal(SECRET_FILE_MODE | (previous.mode & 0o060))} ${path}`}`);
  }
  if ((previous.mode & 0o007) !== 0) {
    notes.push(`${path} was readable by others (mode ${octal(previous.mode)}); the new file is not (mode ${octal(SECRET_FILE_MODE | groupBits)})`);
  }
  return notes;
}

async function writeAll(handle: FileHandle, text: string, previous: Stats | undefined, path: string, real: string): Promise<string[]> {
  // the umask only takes permissions away, and may have taken the owner's: set them exactly
  await handle.chmod(SECRET_FILE_MODE);
  const notes = previous ? await keepAccess(handle, previous, path, real) : [];
  await handle.writeFile(text, 'utf8');
  try {
    await handle.sync();
  } catch (err) {
    // some file systems cannot fsync; the rename below is still atomic
    if (!['EINVAL', 'ENOTSUP', 'EOPNOTSUPP'].includes((err as NodeJS.ErrnoException).code ?? '')) throw err;
  }
  return notes;
}

/** flushes the directory entry of a rename, where the platform allows it */
async function syncDirectory(dir: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // Windows and some file systems cannot open or fsync a directory; the rename is done
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/**
 * Writes `text` to `path` with mode 0600, and returns notes for stderr (what a replaced
 * file's access could not keep; see the module header).
 *
 * - `create`: only if nothing is at `path`: the text is written to a temporary file beside it
 *   and flushed, then linked to `path` (`link` fails with `EEXIST` when a file was created
 *   meanwhile: it is not overwritten), so `path` appears whole or not at all, also when the
 *   process is killed halfway (an empty file there would refuse the next run's --out).
 * - `replace`: writes a temporary file (mode 0600) beside `path`, gives it the owner, group
 *   and group access of the file at `path`, flushes it and renames it over `path`, so `path`
 *   holds either its old content or all of `text`, never a part. A symbolic link at `path`
 *   is kept: the file it points to is replaced.
 */
export async function writeSecretFile(given: string, text: string, how: 'create' | 'replace'): Promise<string[]> {
  const path = how === 'create' ? given : await realpath(given).catch(() => given);
  const target = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const previous = how === 'replace' ? await stat(path).catch(() => undefined) : undefined;
  let notes = await writeNewFile(target, text, previous, given, path);
  try {
    if (how === 'replace') await rename(target, path);
    else if (await linkOnce(target, path)) await unlink(target);
    else {
      // a file system without hard links: created in place, as O_EXCL still refuses a file
      // created meanwhile (only a crash halfway can leave it short there)
      await unlink(target);
      notes = await writeNewFile(path, text, undefined, given, path);
    }
  } catch (err) {
    await unlink(target).catch(() => undefined);
    throw err;
  }
  await syncDirectory(dirname(path));
  return notes;
}

/** Writes `text` to a new file at `file` (O_EXCL, mode 0600); what it created is removed if the write fails. */
async function writeNewFile(file: string, text: string, previous: Stats | undefined, given: string, path: string): Promise<string[]> {
  const handle = await open(file, 'wx', SECRET_FILE_MODE);
  try {
    try {
      return await writeAll(handle, text, previous, given, path);
    } finally {
      await handle.close();
    }
  } catch (err) {
    await unlink(file).catch(() => undefined);
    throw err;
  }
}

/** Links `target` to `path` (EEXIST when something is there); `false` where the file system has no hard links. */
async function linkOnce(target: string, path: string): Promise<boolean> {
  try {
    await link(target, path);
    return true;
  } catch (err) {
    if (['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS'].includes((err as NodeJS.ErrnoException).code ?? '')) return false;
    throw err;
  }
}
