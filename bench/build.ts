/**
 * `npm run bench:build`: synthesises the full-scale corpus (DESIGN §8: 340,000 CVEs) and
 * builds it, printing wall time and peak RSS of each, and the machine's speed on a fixed
 * workload before and after the build (bench/machine-speed.ts). The build runs in its own process so its
 * peak RSS is its own. Reuses `data/bench/raw-<N>-<seed>` when it exists.
 *   BENCH_CVES=100000 npm run bench:build    # another scale
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describeMachineSpeed } from './machine-speed.ts';

const root = resolve(import.meta.dirname, '..');
const cves = Number(process.env.BENCH_CVES ?? 340_000);
const seed = process.env.BENCH_SEED ?? '1';
const benchDir = join(root, 'data', 'bench');
const raw = join(benchDir, `raw-${cves}-${seed}`);
const data = join(benchDir, `data-${cves}-${seed}`);

/** Runs one step in a child process; returns its wall time and peak RSS (from the child itself). */
function runMeasured(label: string, args: string[]): Promise<{ seconds: number; peakMb: number }> {
  return new Promise((resolvePromise, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'bench', 'measured-step.ts'), label, ...args], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env },
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('exit', (status) => {
      if (status !== 0) return reject(new Error(`${label} failed (exit ${status})`));
      const m = /PEAK_RSS_KB=(\d+)/.exec(out);
      resolvePromise({ seconds: (performance.now() - started) / 1000, peakMb: m ? Number(m[1]) / 1024 : NaN });
    });
  });
}

await mkdir(benchDir, { recursive: true });
if (!existsSync(join(raw, 'nvd'))) {
  await rm(raw, { recursive: true, force: true });
  const synth = await runMeasured('synth', [raw, String(cves), seed]);
  console.log(`synth ${cves.toLocaleString('en-US')} CVEs: ${synth.seconds.toFixed(1)} s, peak RSS ${synth.peakMb.toFixed(0)} MB`);
} else {
  console.log(`reusing ${raw}`);
}
await rm(data, { recursive: true, force: true });
// Before and after: the build's figures are only comparable with the machine's speed beside them.
const speedBefore = await describeMachineSpeed('before the build');
console.log(speedBefore);
const build = await runMeasured('build', [raw, data]);
console.log('');
console.log(speedBefore);
console.log(await describeMachineSpeed('after the build'));
console.log(`build ${cves.toLocaleString('en-US')} CVEs: wall ${build.seconds.toFixed(1)} s (target ≤ 150 s with the change step and the serving files, DESIGN §8.1), peak RSS ${build.peakMb.toFixed(0)} MB (target ≤ 3,072 MB)`);
