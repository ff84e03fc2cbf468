/**
 * `vulnintel scan FILE`: a CycloneDX or SPDX JSON SBOM checked offline against the current
 * snapshot. The package index is built from the snapshot's Parquet files, narrowed to the
 * SBOM's package names, and every component judged by lib/packages (the API's code).
 *
 * Exit codes: 0 done (findings or not), 1 a finding reaches `--fail-on`, 2 the SBOM or the
 * snapshot could not be read (message naming the file and what is wrong).
 */
import { resolve } from 'node:path';
import { CliError } from '../../lib/errors.ts';
import { PackageIndex, nameFilterSql } from '../../lib/packages/index.ts';
import { readSbom, SbomFormatError } from '../../lib/sbom/read.ts';
import { componentPurl, failsOn, scanComponents, type FailOn } from '../scan/scan.ts';
import { renderJson, renderSarif, renderTable } from '../scan/render.ts';
import { openSnapshotViews } from './sql.ts';

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
  let views;
  try {
    views = await openSnapshotViews(resolve(opts.data));
  } catch (err) {
    if (err instanceof CliError) throw new CliError(err.message, 2);
    throw err;
  }
  const { instance, connection, buildId } = views;
  try {
    const index = await PackageIndex.load(async (sql) => (await connection.runAndReadAll(sql)).getColumns()[0] as string[], nameFilterSql(names));
    const result = scanComponents(index, sbom.components);
    const ctx = { file, buildId, format: `${sbom.format} ${sbom.specVersion}` };
    const render = opts.format === 'json' ? renderJson : opts.format === 'sarif' ? renderSarif : renderTable;
    process.stdout.write(render(result, ctx));
    if (failsOn(result.findings, opts.failOn)) {
      process.stderr.write(`vulnintel scan: findings at or above --fail-on ${opts.failOn}\n`);
      process.exitCode = 1;
    }
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
