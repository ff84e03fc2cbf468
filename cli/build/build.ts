/**
 * `vulnintel build`: raw sources → staging rows → DuckDB SQL steps → Parquet → published
 * snapshot. Everything happens in a private work folder under the data folder; the published
 * snapshot and `CURRENT` are touched only by the final renames, so a failed or interrupted
 * build never damages what is being served.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { CliError, RawFormatError } from '../../lib/errors.ts';
import { formatCount, formatDuration, info, progress, step } from '../../lib/log.ts';
import { acquirePidLock, type Lock } from '../../lib/pid-lock.ts';
import { printable } from '../../lib/terminal-text.ts';
import type { RawSourceKey } from '../../lib/raw-layout.ts';
import { currentPointer } from '../../lib/snapshot-layout.ts';
import { PARSERS } from '../parse/index.ts';
import type { StageResult } from '../parse/source.ts';
import { STAGE_TABLES } from '../stage/tables.ts';
import { buildManifest, readSourceFreshness, type SourceFreshness } from './manifest.ts';
import { findSkipped, type SkippedReport } from './skipped.ts';
import type { BuildOptions, BuildResult } from './options.ts';
import { fsyncFiles, publishSnapshot, pruneSnapshots } from './publish.ts';
import { attachPreviousSnapshot, previousSnapshotDir } from './previous-snapshot.ts';
import { publishedSourceRecords, shrinkError, shrunkSources } from './shrink-guard.ts';
import { createBuildDatabase, CVES_PARQUET_STEP, duckDbWork, PARQUET_STEP, RECORDS_STEP, runSqlSteps, STAGE_STEP, writeCvesParquet } from './sql-steps.ts';
import { SERVING_STEP, startRecordsFile, writeServingFiles, type EarlyRecords } from './serving.ts';
import type { StageWorkerInput, StageWorkerMessage } from './stage-messages.ts';

/** Build ids sort by time: `20261121T201502Z-3fa9`. */
export function newBuildId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `${stamp}-${randomBytes(2).toString('hex')}`;
}

/** Tables whose row counts each SQL step reports, so the log says how many records. */
const STEP_COUNTS: Record<string, string[]> = {
  '01_stage.sql': ['stg_nvd_cve', 'stg_cve5', 'stg_cvss', 'stg_osv_advisory', 'stg_vendor_advisory', 'stg_exploit'],
  '02_merge.sql': ['cve_base', 'osv_latest', 'vendor_advisory_latest', 'kev_current', 'epss_current'],
  '03_score.sql': ['scored'],
  '04_records.sql': ['cves'],
  '05_side_tables.sql': ['affected_packages', 'products', 'references', 'advisories', 'exploits'],
  '06_related_keys.sql': ['related_keys'],
  '07_search_terms.sql': ['search_docs', 'search_terms'],
  '08_summary_trends.sql': ['trends_weekly', 'trends_monthly'],
  '10_changes.sql': ['changes_new', 'changes'],
};

/**
 * Staging lanes, one worker thread each, balanced by what each source costs at full scale
 * (340,000 CVEs, measured): NVD pages ~75 s, the CVE List ~90 s, CSAF ~16 s, GHSA ~5 s, the
 * rest a few seconds together.
 */
const STAGE_LANES: RawSourceKey[][] = [
  ['nvd', 'csaf', 'kev', 'epss', 'exploitdb', 'metasploit', 'nuclei', 'pocInGithub', 'cwe'],
  ['cvelist', 'ghsa', 'msrc'],
];

function runLane(input: StageWorkerInput, onMessage: (m: StageWorkerMessage) => void, started: (w: Worker) => void): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const worker = new Worker(new URL('./stage-worker-entry.mjs', import.meta.url), { workerData: input });
    started(worker);
    let settled = false;
    worker.on('message', (m: StageWorkerMessage) => {
      if (m.type === 'error') {
        settled = true;
        void worker.terminate();
        reject(m.raw ? new RawFormatError(m.file ?? '?', m.record, m.detail ?? m.message) : Object.assign(new Error(m.message), m.system));
        return;
      }
      if (m.type === 'finished') settled = true;
      onMessage(m);
    });
    worker.on('error', (err) => {
      settled = true;
      reject(err);
    });
    worker.on('exit', (code) => {
      if (settled) resolvePromise();
      else reject(new Error(`staging worker for ${input.keys.join(', ')} stopped (exit ${code})`));
    });
  });
}

export async function stageSources(rawDir: string, stageDir: string): Promise<Record<string, StageResult>> {
  for (const table of STAGE_TABLES) await mkdir(join(stageDir, table), { recursive: true });
  const results: Record<string, StageResult> = {};
  await step(
    'stage sources',
    async () => {
      const bar = progress('staging', 0, 'records');
      const workers: Worker[] = [];
      const lanes = STAGE_LANES.map((keys, lane) =>
        runLane(
          { rawDir, stageDir, part: `lane${lane}`, keys },
          (m) => {
            if (m.type === 'tick') bar.tick(m.records);
            else if (m.type === 'done') {
              results[m.key] = m.result;
              info(`  ${m.key}: ${formatCount(m.result.records)} records from ${formatCount(m.result.files)} files (${formatDuration(m.ms)})`);
            }
          },
          (w) => workers.push(w),
        ),
      );
      try {
        await Promise.all(lanes);
      } catch (err) {
        // One lane failed: stop the others and wait until they are gone, so nothing writes into
        // the work folder while the build removes it.
        await Promise.all(workers.map((w) => w.terminate()));
        await Promise.allSettled(lanes);
        throw err;
      } finally {
        bar.stop();
      }
      return results;
    },
    (r) => `${formatCount(Object.values(r).reduce((n, x) => n + x.records, 0))} records`,
  );
  // DuckDB's reader wants at least one file per table: an empty part stands for "no rows".
  for (const table of STAGE_TABLES) await writeFile(join(stageDir, table, 'empty.ndjson'), '', { flag: 'a' });
  const ordered: Record<string, StageResult> = {};
  for (const p of PARSERS) if (results[p.key]) ordered[p.key] = results[p.key]!;
  return ordered;
}

/** Skipped raw files, one line each (the first 20), so data put in the wrong place is seen. */
function reportSkipped(report: SkippedReport): void {
  if (report.total === 0) return;
  info(`! ${formatCount(report.total)} raw file(s)/folder(s) skipped: no parser reads them (listed in manifest.json "skipped")`);
  for (const e of report.entries.slice(0, 20)) info(`  skipped ${printable(e.path)}: ${e.reason}; read are: ${e.expected.slice(0, 6).join(', ')}${e.expected.length > 6 ? ', …' : ''}`);
  if (report.total > 20) info(`  … and ${formatCount(report.total - 20)} more`);
}

/** The raw folder must be one: a mistyped --raw says so, not "no CVE records". */
async function requireRawFolder(rawDir: string): Promise<void> {
  const found = await stat(rawDir).catch(() => null);
  if (found === null) throw new CliError(`--raw ${rawDir}: no such folder (run \`vulnintel fetch --raw ${rawDir}\` first): nothing published`);
  if (!found.isDirectory()) throw new CliError(`--raw ${rawDir}: not a folder (the raw folder holds nvd/, cvelist/, kev/, …): nothing published`);
}

/** The build's lock on its data folder (lib/pid-lock.ts). */
export function buildLockFile(dataDir: string): string {
  return join(dataDir, '_build.lock');
}

/**
 * One build at a time per data folder. Two builds started together both measured their changes
 * against the same published snapshot and both published: every upstream change was recorded
 * twice, under two change_ids, and notified twice. A second build is refused at once rather
 * than queued: it would rebuild from the raw folder the first one is reading, a queue of
 * minutes-long builds is better decided by whoever started them (cron, the poller's next
 * interval), and a lock nobody waits for cannot deadlock with the fetch lock that update and
 * poll hold around their build.
 */
async function acquireBuildLock(dataDir: string): Promise<Lock> {
  return acquirePidLock(
    buildLockFile(dataDir),
    (owner) => `${dataDir}: another vulnintel build (${owner}) is building into this data folder: nothing published; run again once it has finished (lock file ${buildLockFile(dataDir)})`,
  );
}

/** The private folder a build works in, inside the data folder (renamed into snapshots/ when done). */
const WORK_PREFIX = '.build-';

/**
 * Work folders of builds that died (SIGTERM from cron's timeout or systemd, SIGKILL, the OOM
 * killer, a power cut) before their own cleanup: each kept its staged sources and DuckDB's
 * spill files, gigabytes at full scale, and every such death added one. Called under the
 * build lock, so no live build owns any of them.
 */
async function removeAbandonedWork(dataDir: string): Promise<void> {
  const entries = await readdir(dataDir, { withFileTypes: true }).catch(() => []);
  const abandoned = entries.filter((e) => e.isDirectory() && e.name.startsWith(WORK_PREFIX)).map((e) => e.name);
  for (const name of abandoned) await rm(join(dataDir, name), { recursive: true, force: true });
  if (abandoned.length > 0) info(`removed ${abandoned.length} work folder(s) of builds that did not finish: ${abandoned.join(', ')}`);
}

export async function buildSnapshot(opts: BuildOptions): Promise<BuildResult> {
  await requireRawFolder(opts.rawDir);
  const lock = await acquireBuildLock(opts.dataDir);
  try {
    await removeAbandonedWork(opts.dataDir);
    return await buildLocked(opts);
  } finally {
    await lock.release();
  }
}

async function buildLocked(opts: BuildOptions): Promise<BuildResult> {
  const started = performance.now();
  const builtAt = new Date();
  const buildId = newBuildId(builtAt);
  const workDir = join(opts.dataDir, `${WORK_PREFIX}${buildId}`);
  const stageDir = join(workDir, 'stage');
  const outDir = join(workDir, buildId);
  await mkdir(stageDir, { recursive: true });
  await mkdir(outDir, { recursive: true });
  info(`build ${buildId}: raw ${opts.rawDir} → ${opts.dataDir}`);
  try {
    // The snapshot this build's changes are measured against (PULSE §2): the one published now.
    const previousDir = await previousSnapshotDir(opts.dataDir);
    const staged = await stageSources(opts.rawDir, stageDir);
    const skipped = await findSkipped(opts.rawDir);
    reportSkipped(skipped);
    // A wrong --raw path or an empty fetch must not replace a good snapshot with an empty one.
    if ((staged.nvd?.records ?? 0) + (staged.cvelist?.records ?? 0) === 0) {
      throw new CliError(`no CVE records in ${opts.rawDir} (expected NVD pages in nvd/ or CVE 5 records in cvelist/; run \`vulnintel fetch\` first): nothing published`);
    }
    // Nor a raw folder emptied or cut short replace a whole source with nothing.
    const published = previousDir && !opts.allowShrink ? await publishedSourceRecords(previousDir) : null;
    const shrunk = published ? shrunkSources(published, staged) : [];
    if (shrunk.length > 0) throw shrinkError(shrunk, opts.rawDir, basename(previousDir!));

    const instance = await createBuildDatabase(workDir, opts);
    const connection = await duckDbWork('connecting to the build database', () => instance.connect()).catch((err: unknown) => {
      instance.closeSync();
      throw err;
    });
    const counts: Record<string, number> = {};
    let stepSeconds: Record<string, number> = {};
    const countOf = async (table: string): Promise<number> => {
      const reader = await connection.runAndReadAll(`SELECT count(*) AS n FROM "${table}"`);
      return Number(reader.getRowObjectsJson()[0]?.n ?? 0);
    };
    const params = {
      stage: stageDir,
      out: outDir,
      related_product_threshold: opts.relatedProductThreshold,
      mission_wellbeing: opts.missionWellbeing,
      build_id: buildId,
      detected_at: builtAt.toISOString().replace('T', ' ').replace('Z', ''),
      has_previous: previousDir === null ? 'false' : 'true',
    };
    // The CVEs' Parquet, written beside the serving step (see sql/09_write_cves.sql); whatever
    // happens, the database is closed only once it has settled.
    let cvesParquet: Promise<number> | null = null;
    // records.ndjson, written from `cves` on a connection of its own as soon as its step is done,
    // beside the later steps (they leave a share of the two cores idle; this is JavaScript's
    // thread): the serving step then finds it written.
    let records: EarlyRecords | null = null;
    // The side tables' Parquet made durable while the serving files are made (publish fsyncs
    // everything again, finding these done); a failure here is left to publish to report.
    let earlyFsync: Promise<void> | null = null;
    // Read from the staging tables as soon as they are loaded: later steps drop them.
    let freshness: SourceFreshness = {};
    try {
      const comparedWith = previousDir ? `reading the published snapshot ${basename(previousDir)} to compare with` : 'preparing the build database';
      await duckDbWork(comparedWith, () => attachPreviousSnapshot(connection, previousDir)).catch((err: unknown) => {
        // Its changes cannot be measured against a damaged predecessor (as a first build, every
        // CVE would be announced new): say what to do, rather than leave the user at the error.
        if (!previousDir || !(err instanceof CliError)) throw err;
        throw new CliError(`${err.message}: nothing published; restore ${previousDir}, or write the id of a sound snapshot in ${currentPointer(opts.dataDir)}`);
      });
      stepSeconds = await runSqlSteps(
        connection,
        params,
        async (file) => {
          const parts: string[] = [];
          for (const table of STEP_COUNTS[file] ?? []) {
            counts[table] = await countOf(table);
            parts.push(`${table} ${formatCount(counts[table])}`);
          }
          return parts.join(', ');
        },
        async (file) => {
          if (file === STAGE_STEP) freshness = await readSourceFreshness(connection, staged);
          if (file === RECORDS_STEP) {
            const reader = await instance.connect();
            records = startRecordsFile(reader, join(workDir, 'records.ndjson'));
            void records.written.finally(() => reader.closeSync()).catch(() => undefined);
          }
          if (file === PARQUET_STEP) {
            const written = (await readdir(outDir)).filter((name) => name.endsWith('.parquet')).map((name) => join(outDir, name));
            earlyFsync = fsyncFiles(written).catch(() => undefined);
          }
        },
      );
      const manifest = await buildManifest(connection, { buildId, opts, staged, freshness, skipped, startedMs: started, stepSeconds });
      await writeFile(join(outDir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
      Object.assign(counts, manifest.counts);
      const writer = await instance.connect();
      cvesParquet = writeCvesParquet(writer, params).finally(() => writer.closeSync());
      // Its failure (the disk full) is thrown where the serving step awaits it, minutes later at
      // full scale: without a handler until then, Node ended the process on the unhandled
      // rejection, the work folder and the build lock left behind (a poller died with it).
      cvesParquet.catch(() => undefined);
      // The files a replica serves from (DESIGN §8.1), in the build's own database: the same
      // files a replica derives from the Parquet, without reading it back.
      const serving = await step('serving files (sql/11_serving.sql, sql/09_write_cves.sql beside it)', () => duckDbWork('serving files', () => writeServingFiles(outDir, { build: instance, cvesStillRead: cvesParquet!, records: records ?? undefined })), (r) =>
        `${formatCount(r.manifest.cves)} records, ${(r.manifest.record_bytes / 1e6).toFixed(0)} MB`);
      stepSeconds[SERVING_STEP] = serving.manifest.seconds;
      stepSeconds[CVES_PARQUET_STEP] = await cvesParquet;
    } finally {
      await cvesParquet?.catch(() => undefined);
      await (records as EarlyRecords | null)?.written.catch(() => undefined);
      await earlyFsync;
      connection.closeSync();
      instance.closeSync();
    }

    const snapshotDir = await step('publish', () => publishSnapshot(opts.dataDir, outDir, buildId), () => buildId);
    const removed = await pruneSnapshots(opts.dataDir, opts.keep);
    if (removed.length) info(`pruned ${removed.length} old snapshot(s): ${removed.join(', ')}`);
    const seconds = (performance.now() - started) / 1000;
    info(`build ${buildId} published in ${seconds.toFixed(1)} s: ${formatCount(counts.cves ?? 0)} CVEs`);
    return { buildId, snapshotDir, published: true, counts, seconds, stepSeconds };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}
