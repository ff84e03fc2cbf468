/**
 * The nightly job: fetch every source, then build and publish. A source that fails is reported
 * and left at its last good raw data (its status record, which the build copies into the
 * manifest, shows how stale it is); only a failed build, or nothing published, fails the job.
 * After a publish, the NVD deltas the build read are folded into the base (nvd-fold.ts).
 */
import { join } from 'node:path';
import { formatCount, info } from '../../lib/log.ts';
import type { BuildResult } from '../build/options.ts';
import { defaultBuildOptions, type BuildFn } from './build-step.ts';
import { describeError } from './errors.ts';
import { acquireFetchLock } from './lock.ts';
import { foldNvdDeltas, listNvdDeltas } from './nvd-fold.ts';
import { fetchSources, type FetchRunOptions, type SourceRunResult } from './run.ts';

/**
 * Folds the NVD deltas a published snapshot was built from into the base. A failure is only
 * reported: the deltas stay in place, the next build reads them, the next fold retries.
 */
export async function foldPublishedDeltas(nvdDir: string, deltas: readonly string[]): Promise<void> {
  if (deltas.length === 0) return;
  try {
    const r = await foldNvdDeltas(nvdDir, deltas);
    info(`  nvd: folded ${r.deltas} delta page(s) (${formatCount(r.records)} records) into ${r.buckets} base bucket(s)`);
  } catch (err) {
    info(`! nvd: folding the deltas failed, they stay in nvd/delta/ for the next build: ${describeError(err)}`);
  }
}

export interface UpdateOptions extends FetchRunOptions {
  dataDir: string;
  keep: number;
  build: BuildFn;
  /** Publish even when a source lost more than half its records (cli/build/shrink-guard.ts). */
  allowShrink?: boolean;
  /** Runs after a snapshot was published (the /pulse notify step); never fails the update. */
  afterPublish?: () => Promise<void>;
}

export interface UpdateResult {
  fetched: SourceRunResult[];
  build: BuildResult | null;
  /** Stopped by a signal before the build. */
  interrupted: boolean;
}

export async function updateOnce(opts: UpdateOptions): Promise<UpdateResult> {
  const lock = await acquireFetchLock(opts.rawDir);
  try {
    const fetched = await fetchSources(opts);
    const failed = fetched.filter((r) => !r.ok);
    if (opts.signal?.aborted) return { fetched, build: null, interrupted: true };
    if (failed.length) {
      info(`! ${failed.length} source(s) failed and keep their last good data: ${failed.map((r) => r.source).join(', ')}`);
    }
    info('▶ build');
    const deltas = await listNvdDeltas(join(opts.rawDir, 'nvd'));
    const build = await opts.build(defaultBuildOptions(opts.rawDir, opts.dataDir, opts.keep, opts.allowShrink));
    if (build.published) await foldPublishedDeltas(join(opts.rawDir, 'nvd'), deltas);
    const total = build.counts.cves ?? Object.values(build.counts)[0] ?? 0;
    info(`${build.published ? '✓' : '✗'} build ${build.buildId}: ${build.published ? 'published' : 'not published'} (${formatCount(total)} CVEs, ${build.seconds.toFixed(1)} s)`);
    if (build.published && opts.afterPublish) await opts.afterPublish();
    return { fetched, build, interrupted: false };
  } finally {
    await lock.release();
  }
}
