/**
 * Runs the SQL steps of `sql/` in file order. Each file is one step of the pipeline and reads
 * on its own; `{{name}}` placeholders are the only thing substituted.
 */
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { step } from '../../lib/log.ts';
import { CliError, firstLineOf } from '../../lib/errors.ts';

export const SQL_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'sql');

/** The step that loads the staged rows into the `stg_*` tables. */
export const STAGE_STEP = '01_stage.sql';

/** The step that leaves `cves` complete, with each record's JSON, in doc order. */
export const RECORDS_STEP = '04_records.sql';

/** The step that writes the side tables' Parquet files. */
export const PARQUET_STEP = '09_write.sql';

/** The CVEs' Parquet files, written by cli/build/build.ts beside the serving step. */
export const CVES_PARQUET_STEP = '09_write_cves.sql';

/** The folder value DuckDB's hive partitioning writes and reads for a NULL partition key. */
const HIVE_NULL_PARTITION = '__HIVE_DEFAULT_PARTITION__';

/**
 * Steps that runSqlSteps leaves out: the CVEs' Parquet (sql/09_write_cves.sql), run by
 * writeCvesParquet beside the serving step, and the serving files (sql/11_serving.sql), written by
 * cli/build/serving.ts in the build's database (or in a database of their own when a replica
 * derives them from a snapshot's Parquet).
 */
const SEPARATE_STEPS = new Set([CVES_PARQUET_STEP, '11_serving.sql']);

/**
 * DuckDB work of the build, `what` naming it: a failure (out of memory, a setting DuckDB refuses)
 * is a one-line CliError saying what failed, never an uncaught exception with a stack. The build
 * is then undone like any other failed build.
 */
export async function duckDbWork<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(`${what} failed: ${diskFullLine(err) ?? firstLineOf(err)}`);
  }
}

/**
 * DuckDB's line saying the disk is full, naming the file, when there is one: a failed
 * checkpoint's first line says only that ("Detached database 'serving', but CHECKPOINT during
 * DETACH failed."), the file and "No space left on device" come on the next.
 */
function diskFullLine(err: unknown): string | undefined {
  return ((err as Error).message ?? '').split('\n').find((line) => /no space left on device/i.test(line))?.trim();
}

/**
 * The database the build's SQL runs in (the build's steps and the serving step alike): in
 * memory, spilling to `<workDir>/duckdb-tmp` past the memory limit. A database file was tried:
 * its write-ahead log made every CREATE TABLE write its rows twice, ~40 % slower overall.
 */
export function createBuildDatabase(workDir: string, opts: { threads?: number; memoryLimit?: string } = {}): Promise<DuckDBInstance> {
  const threads = String(opts.threads ?? 2);
  const memoryLimit = opts.memoryLimit ?? '1500MB';
  return duckDbWork(`opening the build database (threads ${threads}, memory limit ${memoryLimit})`, () =>
    DuckDBInstance.create(':memory:', {
      threads,
      memory_limit: memoryLimit,
      temp_directory: join(workDir, 'duckdb-tmp'),
      preserve_insertion_order: 'true',
    }),
  );
}

export async function listSqlSteps(): Promise<string[]> {
  return (await readdir(SQL_DIR)).filter((f) => /^\d\d_.+\.sql$/.test(f) && !SEPARATE_STEPS.has(f)).sort();
}

export function fillPlaceholders(sql: string, params: Record<string, string | number>): string {
  return sql.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`SQL placeholder {{${name}}} has no value`);
    return String(value).replaceAll("'", "''");
  });
}

/** Runs one step file on `connection`; returns the seconds it took. */
export async function runSqlStep(connection: DuckDBConnection, file: string, params: Record<string, string | number>): Promise<number> {
  const sql = fillPlaceholders(await readFile(join(SQL_DIR, file), 'utf8'), params);
  const started = performance.now();
  await duckDbWork(`build step sql/${file}`, () => connection.run(sql));
  return (performance.now() - started) / 1000;
}

/**
 * The CVEs' Parquet (sql/09_write_cves.sql) from the build's `cves`, one COPY per year's folder
 * (the step says why); returns the seconds it took.
 */
export async function writeCvesParquet(connection: DuckDBConnection, params: Record<string, string | number>): Promise<number> {
  const started = performance.now();
  const years = (await duckDbWork(`build step sql/${CVES_PARQUET_STEP}`, () => connection.runAndReadAll('SELECT DISTINCT year FROM cves ORDER BY year'))).getRows().map(([year]) => (year === null ? null : Number(year)));
  await mkdir(join(String(params.out), 'cves'), { recursive: true });
  for (const year of years) {
    const partition = year === null ? HIVE_NULL_PARTITION : String(year);
    await mkdir(join(String(params.out), 'cves', `year=${partition}`));
    await runSqlStep(connection, CVES_PARQUET_STEP, { ...params, year_test: year === null ? 'IS NULL' : `= ${year}`, partition });
  }
  return (performance.now() - started) / 1000;
}

/**
 * Runs every step; returns the seconds each took (its SQL only, not the row counts after it).
 * `afterStep` is told of each step done, before the next starts (work that may go on beside
 * the later steps starts there).
 */
export async function runSqlSteps(
  connection: DuckDBConnection,
  params: Record<string, string | number>,
  describe: (file: string) => Promise<string>,
  afterStep: (file: string) => Promise<void> = async () => {},
): Promise<Record<string, number>> {
  const seconds: Record<string, number> = {};
  for (const file of await listSqlSteps()) {
    await step(
      `sql/${file}`,
      async () => {
        seconds[file] = await runSqlStep(connection, file, params);
        return describe(file);
      },
      (detail) => detail,
    );
    await afterStep(file);
  }
  return seconds;
}
