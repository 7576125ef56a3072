/**
 * Where `platform-auth --out FILE` puts its secrets: a file only its owner can read (0600,
 * whatever the umask), never over an existing file by accident, and replaced atomically (a
 * temporary file in the same directory, written, flushed and renamed over it) so that a
 * failure leaves the old secrets as they were.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { fstatSync } from 'node:fs';
import { lstat, open, realpath, rename, stat, unlink } from 'node:fs/promises';
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

async function writeAll(handle: FileHandle, text: string): Promise<void> {
  // the umask only takes permissions away, and may have taken the owner's: set them exactly
  await handle.chmod(SECRET_FILE_MODE);
  await handle.writeFile(text, 'utf8');
  try {
    await handle.sync();
  } catch (err) {
    // some file systems cannot fsync; the rename below is still atomic
    if (!['EINVAL', 'ENOTSUP', 'EOPNOTSUPP'].includes((err as NodeJS.ErrnoException).code ?? '')) throw err;
  }
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
 * Writes `text` to `path` with mode 0600.
 *
 * - `create`: only if nothing is at `path` (O_EXCL: a file created meanwhile is not
 *   overwritten; the error then has code `EEXIST`). A failed write removes what it created.
 * - `replace`: writes a temporary file (mode 0600) beside `path`, flushes it and renames it
 *   over `path`, so `path` holds either its old content or all of `text`, never a part.
 *   A symbolic link at `path` is kept: the file it points to is replaced.
 */
export async function writeSecretFile(given: string, text: string, how: 'create' | 'replace'): Promise<void> {
  const path = how === 'create' ? given : await realpath(given).catch(() => given);
  const target = how === 'create' ? path : join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(target, 'wx', SECRET_FILE_MODE);
  try {
    try {
      await writeAll(handle, text);
    } finally {
      await handle.close();
    }
    if (how === 'replace') await rename(target, path);
  } catch (err) {
    await unlink(target).catch(() => undefined);
    throw err;
  }
  await syncDirectory(dirname(path));
}
