/**
 * Runs one of the repository's scripts (`bench/*.ts`) in a Node process of its own, as a
 * person would from the shell, for the tests of its command line.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface ScriptRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `path` is relative to the repository's root, e.g. `bench/instructions.ts`. */
export function runScript(path: string, args: readonly string[], timeoutMs = 30_000): ScriptRun {
  const script = fileURLToPath(new URL(`../../${path}`, import.meta.url));
  const { status, stdout, stderr } = spawnSync(process.execPath, [script, ...args], { encoding: 'utf8', timeout: timeoutMs });
  return { status, stdout, stderr };
}
