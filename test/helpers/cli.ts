/** Runs the real `vulnintel` bin in a child process, as a user would, for the CLI tests. */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const BIN = resolve(import.meta.dirname, '..', '..', 'bin', 'vulnintel.mjs');

/** `vulnintel ARGS` (in `cwd`, default this process's; `env` added to this process's): its exit code and output, a failing exit included. */
export async function cli(args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { env: { ...process.env, VULNINTEL_QUIET: '1', ...opts.env }, cwd: opts.cwd });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
