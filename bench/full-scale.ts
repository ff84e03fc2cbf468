/**
 * What the full-scale benchmarks share: where the corpus and its snapshot live
 * (`data/bench/raw-<N>-<seed>`, `data/bench/data-<N>-<seed>`, from BENCH_CVES and BENCH_SEED),
 * running the CLI, building the snapshot once and reusing it, waiting for a server to be
 * healthy, and reading a process's RSS.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { readCurrentBuildId } from '../lib/snapshot-layout.ts';

export const root = resolve(import.meta.dirname, '..');
export const cves = Number(process.env.BENCH_CVES ?? 340_000);
export const seed = process.env.BENCH_SEED ?? '1';
export const benchDir = join(root, 'data', 'bench');
export const raw = join(benchDir, `raw-${cves}-${seed}`);
export const data = join(benchDir, `data-${cves}-${seed}`);
export const cli = join(root, 'bin', 'vulnintel.mjs');

/** Runs `vulnintel ARGS`, printing its wall time under `label`; fails on a non-zero exit. */
export function runCli(label: string, args: string[]): Promise<void> {
  return new Promise((done, fail) => {
    const started = performance.now();
    const child = spawn(process.execPath, [cli, ...args], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('exit', (code) => {
      if (code !== 0) return fail(new Error(`${label} failed (exit ${code})`));
      console.log(`${label}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
      done();
    });
  });
}

/** The full-scale snapshot's build id: reused when published, else synthesised and built. */
export async function ensureSnapshot(): Promise<string> {
  await mkdir(benchDir, { recursive: true });
  const current = await readCurrentBuildId(data);
  if (current) {
    console.log(`reusing snapshot ${current} in ${data}`);
    return current;
  }
  if (!existsSync(join(raw, 'nvd'))) await runCli(`synth ${cves} CVEs`, ['synth', '--cves', String(cves), '--raw', raw, '--seed', seed]);
  else console.log(`reusing raw corpus ${raw}`);
  await runCli('build', ['build', '--raw', raw, '--data', data, '--keep', '1']);
  const built = await readCurrentBuildId(data);
  if (!built) throw new Error('the build published nothing');
  return built;
}

/** Waits until `url`'s health says ok; returns the milliseconds waited. */
export async function waitHealthy(url: string, timeoutMs: number, pollMs = 250): Promise<number> {
  const started = performance.now();
  for (;;) {
    try {
      const body = (await (await fetch(`${url}/api/v1/health`)).json()) as { status: string };
      if (body.status === 'ok') return performance.now() - started;
    } catch {
      // not listening yet
    }
    if (performance.now() - started > timeoutMs) throw new Error(`server at ${url} not ready after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/** Resident set size of a process, in MB. */
export function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
  return kb / 1024;
}
