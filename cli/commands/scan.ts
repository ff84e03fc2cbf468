/**
 * `vulnintel scan FILE`: a CycloneDX or SPDX JSON SBOM checked offline against the current
 * snapshot. The package index is read from the snapshot's serving files (or its Parquet files),
 * narrowed to the SBOM's package names, and every component judged by lib/packages (the API's
 * code).
 *
 * Exit codes: 0 done (findings or not), 1 a finding reaches `--fail-on`, 2 the SBOM or the
 * snapshot could not be read (message naming the file and what is wrong), or the command line
 * is wrong (cli/main.ts).
 */
import { join, resolve } from 'node:path';
import { CliError } from '../../lib/errors.ts';
import { readServingManifest, readServingPackages, servingDir } from '../../lib/serving-layout.ts';
import { readCurrentBuildId, snapshotsDir } from '../../lib/snapshot-layout.ts';
import { PackageIndex, nameFilterSql } from '../../lib/packages/index.ts';
import { readSbom, SbomFormatError, sbomName } from '../../lib/sbom/read.ts';
import { componentPurl, failsOn, scanComponents, type FailOn } from '../scan/scan.ts';
import { renderJson, renderSarif, renderTable } from '../scan/render.ts';

export interface ScanOptions {
  data: string;
  format: 'table' | 'json' | 'sarif';
  failOn?: FailOn;
}

export async function runScan(file: string, opts: ScanOptions): Promise<void> {
  let sbom;
  try {
    sbom = await readSbom(file);
  } catch (err) {
    if (err instanceof SbomFormatError) throw new CliError(err.message, 2);
    throw err;
  }
  const names = sbom.components.map(componentPurl).flatMap((p) => (typeof p === 'string' ? [] : [p.name]));
  const { index, buildId } = await loadIndex(resolve(opts.data), names);
  const result = scanComponents(index, sbom.components);
  const render = opts.format === 'json' ? renderJson : opts.format === 'sarif' ? renderSarif : renderTable;
  // The table names standard input in words; JSON and SARIF keep the argument as given.
  const ctx = { file: render === renderTable ? sbomName(file) : file, buildId, format: `${sbom.format} ${sbom.specVersion}` };
  process.stdout.write(render(result, ctx));
  if (failsOn(result.findings, opts.failOn)) {
    process.stderr.write(`vulnintel scan: findings at or above --fail-on ${opts.failOn}\n`);
    process.exitCode = 1;
  }
}

/**
 * The package index of the current snapshot, narrowed to `names`: from the serving files'
 * packages.ndjson when the snapshot has them (no database to start: loading DuckDB alone took
 * longer than reading the file), else by querying its Parquet files.
 */
async function loadIndex(dataDir: string, names: string[]): Promise<{ index: PackageIndex; buildId: string }> {
  let buildId: string | null;
  try {
    buildId = await readCurrentBuildId(dataDir);
  } catch (err) {
    // Exit 2, as for any snapshot that cannot be read (below): not a finding reaching --fail-on.
    if (err instanceof CliError) throw new CliError(err.message, 2);
    throw err;
  }
  if (buildId) {
    const serving = servingDir(join(snapshotsDir(dataDir), buildId));
    if (await readServingManifest(serving)) {
      const text = await readServingPackages(serving);
      if (text !== null) return { index: PackageIndex.fromLines(text, names), buildId };
    }
  }
  const { openSnapshotViews } = await import('./sql.ts');
  let views;
  try {
    views = await openSnapshotViews(dataDir);
  } catch (err) {
    if (err instanceof CliError) throw new CliError(err.message, 2);
    throw err;
  }
  const { instance, connection } = views;
  try {
    // A result without rows has no column at all (getColumns() is []): an SBOM of packages the
    // snapshot does not know was a TypeError, exit 1 as if a finding reached --fail-on.
    const index = await PackageIndex.load(async (sql) => ((await connection.runAndReadAll(sql)).getColumns()[0] ?? []) as string[], {
      filter: nameFilterSql(names),
      advisories: views.tables.includes('advisory_packages'),
    });
    return { index, buildId: views.buildId };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
