/**
 * `platform-auth ... --out FILE`, run as the real program through a shell (for the umask, the
 * redirections and the file size limit): the secrets land in a file of mode 0600 whatever the
 * umask, an existing file is never overwritten without --force, `rotate F --out F` replaces F
 * in one step (and leaves it as it was when the write fails), and `rotate F > F`, where the
 * shell has emptied F already, is refused with what happened and what to run instead.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmod, chown, lstat, mkdtemp, readFile, readdir, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { checkCookieKeys, checkSigningJwks } from '../../lib/keys/secrets.ts';
import type { SigningJwks } from '../../lib/keys/secrets.ts';

const CLI = fileURLToPath(new URL('../../lib/cli/bin.ts', import.meta.url));

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * runs `sh -c '<setup>; exec node main.ts "$@" <redirect>'` in `cwd`: `setup` sets the umask or
 * a limit, `redirect` sends stdout to a file the way a user would (`> F`, `>> F`)
 */
function sh(cwd: string, args: string[], { setup = 'umask 022', redirect = '', user }: { setup?: string; redirect?: string; user?: number } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const script = `${setup}; exec "$0" "$@" ${redirect}`;
    const as = user === undefined ? {} : { uid: user, gid: user };
    const child = spawn('sh', ['-c', script, process.execPath, CLI, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], ...as });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

interface SecretsFile {
  jwks: SigningJwks;
  cookieKeys: string[];
}

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;
const readJson = async (path: string) => JSON.parse(await readFile(path, 'utf8')) as SecretsFile;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'platform-auth-out-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** a secrets file of what `keys` printed (written here, so that only the step under test uses --out) */
async function secretsFile(name = 'secrets.json'): Promise<{ path: string; text: string; doc: SecretsFile }> {
  const result = await sh(dir, ['keys']);
  expect(result).toMatchObject({ code: 0, stderr: '' });
  const path = join(dir, name);
  await writeFile(path, result.stdout, { mode: 0o600 });
  return { path, text: result.stdout, doc: JSON.parse(result.stdout) };
}

describe('--out writes a file only its owner can read', () => {
  it.each(['022', '000'])('keys --out with umask %s: mode 0600, nothing on stdout, secrets production accepts', async (umask) => {
    const result = await sh(dir, ['keys', '--out', 'secrets.json'], { setup: `umask ${umask}` });
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
    const path = join(dir, 'secrets.json');
    expect((await modeOf(path)).toString(8)).toBe('600');
    const doc = await readJson(path);
    expect(checkSigningJwks(doc.jwks).keys).toHaveLength(1);
    expect(checkCookieKeys(doc.cookieKeys)).toHaveLength(1);
  });

  it('rotate --out a new file: mode 0600, the input untouched', async () => {
    const { path, text, doc } = await secretsFile();
    const result = await sh(dir, ['rotate', path, '--out', 'next.json']);
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
    expect((await modeOf(join(dir, 'next.json'))).toString(8)).toBe('600');
    expect((await readJson(join(dir, 'next.json'))).jwks.keys[1]).toEqual(doc.jwks.keys[0]);
    expect(await readFile(path, 'utf8')).toBe(text);
  });

  it('says when stdout is a file others can read ("keys > F" under umask 022)', async () => {
    const result = await sh(dir, ['keys'], { redirect: '> secrets.json' });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^platform-auth: warning: stdout is a file others can read \(mode 0644\); run chmod 600 on it, or use --out <file>/);
    expect((await readJson(join(dir, 'secrets.json'))).cookieKeys).toHaveLength(1);
  });
});

describe('--out never overwrites by accident', () => {
  it('refuses an existing file, exit 2, and leaves it as it was', async () => {
    const { path, text, doc } = await secretsFile();
    await chmod(path, 0o640);
    for (const args of [['keys', '--out', path], ['rotate', path, '--out', join(dir, 'other.json')]]) {
      if (args[0] === 'rotate') await writeFile(join(dir, 'other.json'), text, { mode: 0o640 });
      const result = await sh(dir, args);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^platform-auth: --out .* already exists and platform-auth does not overwrite secrets: pass a new path, or add --force to replace it\n$/);
      expect(result.stderr).not.toContain(doc.cookieKeys[0]);
      const target = args[args.length - 1]!;
      expect(await readFile(target, 'utf8')).toBe(text);
      expect((await modeOf(target)).toString(8)).toBe('640');
    }
  });

  it('--force replaces an existing file, keeping its group\'s access and never others\'', async () => {
    const { path, doc } = await secretsFile();
    await chmod(path, 0o644);
    const result = await sh(dir, ['keys', '--out', path, '--force']);
    expect(result).toEqual({ code: 0, stdout: '', stderr: `platform-auth: note: ${path} was readable by others (mode 0644); the new file is not (mode 0640)\n` });
    expect((await modeOf(path)).toString(8)).toBe('640');
    expect((await readJson(path)).cookieKeys[0]).not.toBe(doc.cookieKeys[0]);
    expect(await readdir(dir)).toEqual(['secrets.json']);
  });

  it('refuses --force without --out, and --out -', async () => {
    expect(await sh(dir, ['keys', '--force'])).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(/--force applies to --out <file> and --publish <file> only/) });
    expect(await sh(dir, ['keys', '--out', '-'])).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(/--out needs the path of a file/) });
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('rotate F --out F replaces F in one step', () => {
  it('puts the new key first and keeps the current JWK and cookie key after it, mode 0600, no file left beside it', async () => {
    const { path, doc } = await secretsFile();
    const result = await sh(dir, ['rotate', 'secrets.json', '--cookie-keys', 'secrets.json', '--out', 'secrets.json']);
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
    expect((await modeOf(path)).toString(8)).toBe('600');
    expect(await readdir(dir)).toEqual(['secrets.json']);
    const next = await readJson(path);
    expect(next.jwks.keys).toHaveLength(2);
    expect(next.jwks.keys[0]!.kid).not.toBe(doc.jwks.keys[0]!.kid);
    expect(next.jwks.keys[1]).toEqual(doc.jwks.keys[0]); // the old private key, whole: its ID tokens still verify
    expect(next.cookieKeys).toHaveLength(2);
    expect(next.cookieKeys[1]).toBe(doc.cookieKeys[0]);

    // and again, through another spelling of the path, retiring all but one old key
    const again = await sh(dir, ['rotate', './sub/../secrets.json', '--keep', '1', '--out', 'secrets.json'], { setup: 'umask 022; mkdir sub' });
    expect(again).toEqual({ code: 0, stdout: '', stderr: '' });
    const third = await readJson(path);
    expect(third.jwks.keys.map((k) => k.kid)).toEqual([expect.any(String), next.jwks.keys[0]!.kid]);
    expect(third.cookieKeys).toEqual(next.cookieKeys);
  });

  it('through a symbolic link: the link stays, the file it points to is replaced', async () => {
    const { path, doc } = await secretsFile();
    await symlink('secrets.json', join(dir, 'current.json'));
    const result = await sh(dir, ['rotate', 'current.json', '--out', 'current.json']);
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
    expect((await lstat(join(dir, 'current.json'))).isSymbolicLink()).toBe(true);
    expect(await readlink(join(dir, 'current.json'))).toBe('secrets.json');
    expect((await readJson(path)).jwks.keys[1]).toEqual(doc.jwks.keys[0]);
    expect((await modeOf(path)).toString(8)).toBe('600');
  });

  it('writes back the other top-level members an operator keeps in F, unchanged', async () => {
    const { path, doc } = await secretsFile();
    const own = { operatorSecret: 'the host\'s own client secret', smtp: { user: 'mailer', password: 'p4ss' }, note: null };
    await writeFile(path, JSON.stringify({ ...doc, ...own }), { mode: 0o600 });
    for (const args of [['rotate', 'secrets.json', '--out', 'secrets.json'], ['rotate', 'secrets.json', '--cookie-keys', 'secrets.json', '--out', 'secrets.json']]) {
      expect(await sh(dir, args)).toEqual({ code: 0, stdout: '', stderr: '' });
    }
    const { jwks, cookieKeys, ...rest } = JSON.parse(await readFile(path, 'utf8')) as SecretsFile & Record<string, unknown>;
    expect(rest).toEqual(own);
    expect(jwks.keys.map((k) => k.kid).slice(2)).toEqual([doc.jwks.keys[0]!.kid]);
    expect(cookieKeys.slice(1)).toEqual(doc.cookieKeys);
  });

  it('keeps F\'s group access and drops others\' (0664 becomes 0660), saying so on stderr', async () => {
    const { path } = await secretsFile();
    await chmod(path, 0o664);
    const result = await sh(dir, ['rotate', 'secrets.json', '--out', 'secrets.json']);
    expect(result).toEqual({ code: 0, stdout: '', stderr: 'platform-auth: note: secrets.json was readable by others (mode 0664); the new file is not (mode 0660)\n' });
    expect((await modeOf(path)).toString(8)).toBe('660');
    expect(await readdir(dir)).toEqual(['secrets.json']);
  });

  // These give files to other users, which only root may do: CI runs the suite as root (it
  // installs packages); a developer's `npm test` as another user lists them as skipped. With
  // CI set they run whoever runs them, and fail for another user (as redis-server's absence does)
  const asRoot = process.getuid?.() === 0;
  (asRoot || process.env.CI ? describe : describe.skip)('the owner and group of F (run by root; skipped for other users)', () => {
    const APP = 4_321; // the application's user and group, which read the secrets
    const OPERATOR = 1_234; // an unprivileged user running the CLI

    beforeEach(() => {
      expect(process.getuid?.()).toBe(0); // this block needs root
    });

    it('root rotating an app\'s root:app 0640 file keeps root:app 0640: the app still reads it', async () => {
      const { path, doc } = await secretsFile();
      await chown(path, 0, APP);
      await chmod(path, 0o640);
      const result = await sh(dir, ['rotate', 'secrets.json', '--out', 'secrets.json']);
      expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
      const after = await stat(path);
      expect({ uid: after.uid, gid: after.gid, mode: (after.mode & 0o777).toString(8) }).toEqual({ uid: 0, gid: APP, mode: '640' });
      expect((await readJson(path)).jwks.keys[1]).toEqual(doc.jwks.keys[0]);
    });

    it('root replacing another user\'s file with --force gives it back to that user', async () => {
      const { path } = await secretsFile();
      await chown(path, APP, APP);
      await chmod(path, 0o600);
      const result = await sh(dir, ['keys', '--out', 'secrets.json', '--force']);
      expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
      const after = await stat(path);
      expect({ uid: after.uid, gid: after.gid, mode: (after.mode & 0o777).toString(8) }).toEqual({ uid: APP, gid: APP, mode: '600' });
    });

    it('a user who may not keep the owner gets a file of its own, 0600 (no group access for its own group), and the chown to run', async () => {
      const { path } = await secretsFile();
      await chown(path, APP, APP);
      await chmod(path, 0o644); // readable by the operator, as others
      await chown(dir, OPERATOR, OPERATOR); // the operator's own directory, which only it may write
      const result = await sh(dir, ['rotate', 'secrets.json', '--out', 'secrets.json'], { user: OPERATOR });
      expect(result.code).toBe(0);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(`platform-auth: note: secrets.json belonged to ${APP}:${APP} (mode 0644), and this user may not give the new file that owner: it belongs to ${OPERATOR}:${OPERATOR}, mode 0600; if another user reads it, run as root: chown ${APP}:${APP} secrets.json && chmod 0640 secrets.json\n`
        + 'platform-auth: note: secrets.json was readable by others (mode 0644); the new file is not (mode 0600)\n');
      const after = await stat(path);
      expect({ uid: after.uid, gid: after.gid, mode: (after.mode & 0o777).toString(8) }).toEqual({ uid: OPERATOR, gid: OPERATOR, mode: '600' });
    });

    const canRead = (file: string, uid: number, gid: number) => spawnSync('cat', [file], { uid, gid, stdio: 'ignore' }).status === 0;

    it('in a directory others may write (a shared /tmp), root gives the new secrets to nobody else: its own, 0600, and a note', async () => {
      await chmod(dir, 0o1777);
      const path = join(dir, 'secrets.json');
      // planted by another user before root's command
      expect(spawnSync('sh', ['-c', `umask 027; echo '{}' > ${path}`], { uid: APP, gid: APP }).status).toBe(0);
      const result = await sh(dir, ['keys', '--out', 'secrets.json', '--force']);
      expect(result.code).toBe(0);
      expect(result.stderr).toBe(`platform-auth: note: secrets.json is in a directory that other users may write, or that belongs to another user (0:0, mode 1777): the new file is this user's, mode 0600, not ${APP}:${APP} mode 0640 as the old one was; keep secrets in a directory only their owner may write\n`);
      const after = await stat(path);
      expect({ uid: after.uid, gid: after.gid, mode: (after.mode & 0o777).toString(8), plantedReads: canRead(path, APP, APP) }).toEqual({ uid: 0, gid: 0, mode: '600', plantedReads: false });
    });

    it('a file with an access control list: the group bits are its mask, so the group is given nothing, with a note', async () => {
      const STAFF = 5_555;
      await chmod(dir, 0o755); // others may reach the file, as where an app reads it
      const { path } = await secretsFile();
      await chown(path, 0, STAFF);
      // the app reads through a named entry; the owning group may not (group::---, mask r--)
      expect(spawnSync('setfacl', ['-m', `u:${APP}:r,g::-`, path]).status).toBe(0); // setfacl: the acl package (.ci/run installs it)
      expect(((await stat(path)).mode & 0o777).toString(8)).toBe('640');
      expect({ app: canRead(path, APP, APP), staff: canRead(path, 1_000, STAFF) }).toEqual({ app: true, staff: false });
      const result = await sh(dir, ['rotate', 'secrets.json', '--out', 'secrets.json']);
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('platform-auth: note: secrets.json had an access control list, which the new file does not carry: it is mode 0600; give its readers their access again (setfacl -m u:<user>:r secrets.json)\n');
      const after = await stat(path);
      expect({ uid: after.uid, gid: after.gid, mode: (after.mode & 0o777).toString(8), staff: canRead(path, 1_000, STAFF) }).toEqual({ uid: 0, gid: STAFF, mode: '600', staff: false });
    });
  });

  it('keeps F as it was when the write fails (a file size limit), exit 1, no temporary file left', async () => {
    const { path, text } = await secretsFile();
    const result = await sh(dir, ['rotate', 'secrets.json', '--out', 'secrets.json'], { setup: 'umask 022; ulimit -f 0' });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('platform-auth: cannot write secrets.json: file too large (a file size limit); secrets.json is unchanged\n');
    expect(await readFile(path, 'utf8')).toBe(text);
    expect(await readdir(dir)).toEqual(['secrets.json']);
  });
});

describe('rotate --publish P: the secrets of step 1, beside the output', () => {
  it('is refused, exit 2 and nothing written, where step 1 would sign with the new key or overwrite secrets', async () => {
    const { path, text } = await secretsFile();
    await writeFile(join(dir, 'old.publish.json'), '{}', { mode: 0o600 });
    const refusals: [string[], RegExp][] = [
      [['rotate', 'secrets.json', '--out', 'next.json', '--publish', 'secrets.json'], /--publish secrets\.json is a file rotate reads/],
      [['rotate', 'secrets.json', '--out', 'next.json', '--publish', './sub/../secrets.json', '--force'], /is a file rotate reads/],
      [['rotate', 'jwks.json', '--cookie-keys', 'secrets.json', '--publish', 'secrets.json', '--force'], /is a file rotate reads/],
      [['rotate', 'secrets.json', '--out', 'p.json', '--publish', './p.json'], /--publish and --out name one file/],
      [['rotate', 'secrets.json', '--out', 'next.json', '--publish', 'old.publish.json'], /--publish old\.publish\.json already exists .* add --force to replace it/],
      [['rotate', 'secrets.json', '--keep', '0', '--publish', 'p.json'], /--publish keeps the current signing key first, which --keep 0 drops/],
      [['rotate', 'secrets.json', '--cookie-keys', 'secrets.json', '--keep-cookie-keys', '0', '--publish', 'p.json'], /--keep-cookie-keys 0 drops/],
      [['rotate', 'secrets.json', '--publish', '-'], /--publish needs the path of a file/],
      [['keys', '--publish', 'p.json'], /--publish is an option of rotate, not keys/],
    ];
    await writeFile(join(dir, 'jwks.json'), JSON.stringify((JSON.parse(text) as SecretsFile).jwks), { mode: 0o600 });
    for (const [args, message] of refusals) {
      const result = await sh(dir, args, { setup: 'umask 022; mkdir -p sub' });
      expect({ args, ...result }).toEqual({ args, code: 2, stdout: '', stderr: expect.stringMatching(message) });
    }
    expect(await readFile(path, 'utf8')).toBe(text);
    expect((await readdir(dir)).sort()).toEqual(['jwks.json', 'old.publish.json', 'secrets.json', 'sub']);
  });

  it('is removed again when the output then cannot be written, exit 1, so the run can be repeated', async () => {
    const { path, text } = await secretsFile();
    const result = await sh(dir, ['rotate', 'secrets.json', '--publish', 'secrets.publish.json', '--out', 'missing/secrets.next.json']);
    expect(result).toEqual({
      code: 1, stdout: '',
      stderr: 'platform-auth: cannot write missing/secrets.next.json: no such file or directory; --publish secrets.publish.json was removed again\n',
    });
    expect(await readdir(dir)).toEqual(['secrets.json']);
    expect(await readFile(path, 'utf8')).toBe(text);
  });

  it('with the output on stdout, and --force over the files of an earlier rotation', async () => {
    const { doc } = await secretsFile();
    await writeFile(join(dir, 'secrets.publish.json'), '{}', { mode: 0o600 });
    const result = await sh(dir, ['rotate', 'secrets.json', '--publish', 'secrets.publish.json', '--force']);
    expect(result.code).toBe(0);
    const next = JSON.parse(result.stdout) as SecretsFile;
    const step1 = await readJson(join(dir, 'secrets.publish.json'));
    expect(step1).toEqual({ jwks: { keys: [doc.jwks.keys[0], next.jwks.keys[0]] }, cookieKeys: doc.cookieKeys });
    expect((await modeOf(join(dir, 'secrets.publish.json'))).toString(8)).toBe('600');
  });
});

describe('rotate F > F', () => {
  it('is refused, exit 2, saying the shell emptied F and what to run instead', async () => {
    await secretsFile();
    const result = await sh(dir, ['rotate', 'secrets.json'], { redirect: '> secrets.json' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^platform-auth: stdout is secrets\.json, the file rotate reads: the shell emptied it before platform-auth started \("> secrets\.json"\), so the secrets it held are gone from it\. Restore secrets\.json from your secret manager or a backup\. To rotate a file in place, run: platform-auth rotate secrets\.json --out secrets\.json/);
    expect(result.stderr).not.toMatch(/not JSON/);
  });

  it('also as the --cookie-keys file, and with >> (then F keeps its secrets: nothing is appended)', async () => {
    const { text } = await secretsFile();
    const { path: jwksPath } = await secretsFile('jwks.json');
    const appended = await sh(dir, ['rotate', jwksPath, '--cookie-keys', 'secrets.json'], { redirect: '>> secrets.json' });
    expect(appended.code).toBe(2);
    expect(appended.stderr).toMatch(/^platform-auth: stdout is secrets\.json, the file rotate reads: the output would be added to it \(">> secrets\.json"\); nothing was written\./);
    expect(await readFile(join(dir, 'secrets.json'), 'utf8')).toBe(text);
  });
});

it('the README\'s cookie-key rotation runs as written: a new cookie key first, and a new signing key', async () => {
  const readme = await readFile(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
  const command = /`npx --no-install platform-auth (rotate --cookie-keys [^`]+)`/.exec(readme)?.[1];
  expect(command).toBeDefined();
  const { doc } = await secretsFile();
  const result = await sh(dir, command!.split(' '));
  expect(result).toMatchObject({ code: 0 });
  const next = await readJson(join(dir, /--out (\S+)/.exec(command!)![1]!));
  expect(next.cookieKeys).toHaveLength(2);
  expect(next.cookieKeys[1]).toBe(doc.cookieKeys[0]);
  expect(next.jwks.keys).toHaveLength(2);
  expect(next.jwks.keys[1]).toEqual(doc.jwks.keys[0]);
});

describe('--help', () => {
  it('documents --out, --publish and --force, and why "> file" is not enough', async () => {
    const { stdout } = await sh(dir, ['--help']);
    expect(stdout).toContain('--out <file>');
    expect(stdout).toContain('platform-auth rotate secrets.json --out secrets.next.json --publish secrets.publish.json');
    expect(stdout).toContain('--force');
    expect(stdout).toMatch(/mode 0600, whatever the umask/);
    expect(stdout).toContain('platform-auth rotate --keep 1 --cookie-keys secrets.json secrets.json --out secrets.json');
  });
});

describe('stdout that cannot be written (a full disk, a closed pipe)', () => {
  const sh = (script: string) => spawnSync('sh', ['-c', script], { env: { ...process.env, NODE: process.execPath, CLI }, encoding: 'utf8' });

  it('keys > /dev/full: exit 1 with one line naming the cause, never a stack trace', () => {
    expect(sh('"$NODE" "$CLI" keys > /dev/full; echo "exit $?" >&2').stderr).toBe('platform-auth: cannot write the output: no space left on the device\nexit 1\n');
  });

  it('keys into a pipe closed early: at most one line, never a stack trace', () => {
    const { stderr } = sh('"$NODE" "$CLI" keys | true');
    expect(stderr).toMatch(/^(?:platform-auth: cannot write the output: what reads it closed the pipe\n)?$/);
  });
});

describe('--out to a new file when the process dies halfway', () => {
  // a preload that kills the process at its first FileHandle.writeFile: the write of the secrets
  const PRELOAD = `
import { open, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const probe = join(tmpdir(), 'probe-' + process.pid);
const h = await open(probe, 'w');
const proto = Object.getPrototypeOf(h);
await h.close(); await unlink(probe);
proto.writeFile = async function () { process.kill(process.pid, 'SIGKILL'); await new Promise(() => {}); };
`;
  let crashDir: string;
  beforeAll(async () => {
    crashDir = await mkdtemp(join(tmpdir(), 'platform-auth-crash-'));
    await writeFile(join(crashDir, 'die-on-write.mjs'), PRELOAD);
  });
  afterAll(() => rm(crashDir, { recursive: true, force: true }));

  it('leaves no secrets.json at all, so the next run is not refused ("already exists") and nothing reads a part', async () => {
    const crashed = spawnSync(process.execPath, ['--import', join(crashDir, 'die-on-write.mjs'), CLI, 'keys', '--out', 'secrets.json'], { cwd: crashDir, encoding: 'utf8' });
    expect(crashed.signal).toBe('SIGKILL');
    expect(await readdir(crashDir)).not.toContain('secrets.json');
    const again = spawnSync(process.execPath, [CLI, 'keys', '--out', 'secrets.json'], { cwd: crashDir, encoding: 'utf8' });
    expect(again.status).toBe(0);
    expect(JSON.parse(await readFile(join(crashDir, 'secrets.json'), 'utf8'))).toHaveProperty('cookieKeys');
    expect((await stat(join(crashDir, 'secrets.json'))).mode & 0o777).toBe(0o600);
  });
});
