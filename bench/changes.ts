/**
 * `npm run bench:changes`: what the change step (sql/10_changes.sql, PULSE §2) adds to a build
 * at full scale (issue 9: ≤ 15 s at 340,000 CVEs). Uses the full-scale raw corpus
 * `data/bench/raw-<N>-<seed>` (written by `npm run bench:build` or `vulnintel synth`), evolves it
 * by BENCH_DAYS days (`vulnintel synth --evolve-from`, default 1) into
 * `data/bench/raw-<N>-<seed>-evolved-<days>d`, then builds, in this process:
 *   1. the corpus into an empty data folder: a first build, whose change step compares with
 *      nothing — the build without the step's work (and the predecessor of 2);
 *   2. the evolved corpus into the same folder: the change step compares with 1.
 * Prints the wall time of both and the change step's own time in each (per-step timings of
 * the build). BENCH_WITHOUT=1 adds a third build, the evolved corpus into an empty folder, for
 * the same corpus without a predecessor (one more full build: slow on a busy machine).
 *   BENCH_CVES=100000 BENCH_DAYS=7 npm run bench:changes
 */
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { buildSnapshot } from '../cli/build/build.ts';
import type { BuildResult } from '../cli/build/options.ts';
import { resolveBuildOptions } from '../cli/commands/build.ts';
import { evolveCorpus } from '../cli/synth/evolve.ts';
import { describeMachineSpeed } from './machine-speed.ts';

const root = resolve(import.meta.dirname, '..');
const cves = Number(process.env.BENCH_CVES ?? 340_000);
const seed = process.env.BENCH_SEED ?? '1';
const days = Number(process.env.BENCH_DAYS ?? 1);
const benchDir = join(root, 'data', 'bench');
const raw = join(benchDir, `raw-${cves}-${seed}`);
const evolved = join(benchDir, `raw-${cves}-${seed}-evolved-${days}d`);
const withDir = join(benchDir, `changes-${cves}-${seed}-with`);
const withoutDir = join(benchDir, `changes-${cves}-${seed}-without`);
const STEP = '10_changes.sql';

if (!existsSync(join(raw, 'nvd'))) {
  console.error(`${raw} is missing: run \`npm run bench:build\` (or vulnintel synth --cves ${cves} --seed ${seed} --raw ${raw}) first`);
  process.exit(1);
}
if (!existsSync(join(evolved, 'nvd'))) {
  await rm(evolved, { recursive: true, force: true });
  const started = performance.now();
  const report = await evolveCorpus({ from: raw, raw: evolved, days, seed });
  console.log(`evolve ${days} day(s): ${((performance.now() - started) / 1000).toFixed(1)} s, ${JSON.stringify(report)}`);
} else {
  console.log(`reusing ${evolved}`);
}

async function build(rawDir: string, dataDir: string): Promise<BuildResult> {
  await mkdir(dataDir, { recursive: true });
  return buildSnapshot(await resolveBuildOptions({ raw: rawDir, data: dataDir, keep: 2 }));
}

for (const dir of [withDir, withoutDir]) await rm(dir, { recursive: true, force: true });
const speedBefore = await describeMachineSpeed('before the builds');
const base = await build(raw, withDir);
const withStep = await build(evolved, withDir);
const withoutStep = process.env.BENCH_WITHOUT === '1' ? await build(evolved, withoutDir) : undefined;
for (const dir of [withDir, withoutDir]) await rm(dir, { recursive: true, force: true });

const speedAfter = await describeMachineSpeed('after the builds');
const n = cves.toLocaleString('en-US');
const stepOf = (r: BuildResult) => (r.stepSeconds?.[STEP] ?? NaN).toFixed(2);
console.log('');
console.log(speedBefore);
console.log(speedAfter);
console.log(`without a predecessor (first build, ${n} CVEs): ${base.seconds.toFixed(1)} s, change step ${stepOf(base)} s`);
console.log(`with the change step (the corpus ${days} day(s) later): ${withStep.seconds.toFixed(1)} s, change step ${stepOf(withStep)} s, ${withStep.counts.changes_this_build ?? 0} changes recorded`);
if (withoutStep) console.log(`the later corpus without a predecessor: ${withoutStep.seconds.toFixed(1)} s, change step ${stepOf(withoutStep)} s`);
console.log(`the change step adds ${stepOf(withStep)} s to the build (target ≤ 15 s); wall difference ${(withStep.seconds - (withoutStep ?? base).seconds).toFixed(1)} s (noisy on a shared machine)`);
