/**
 * `vulnintel sql "QUERY"`: analysts' SQL over the published snapshot. Every table of the
 * snapshot is a view (`cves`, `advisories`, `affected_packages`, …), read straight from its
 * Parquet files, read-only.
 */
import { readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DuckDBInstance, DuckDBTypeId, JsonDuckDBValueConverter, type DuckDBResultReader, type DuckDBValueConverter, type Json } from '@duckdb/node-api';
import { CliError, firstLineOf } from '../../lib/errors.ts';
import { currentPointer, readCurrentBuildId, SNAPSHOT_TABLES, snapshotsDir, tableReader } from '../../lib/snapshot-layout.ts';

export async function openSnapshotViews(dataDir: string) {
  const buildId = await readCurrentBuildId(dataDir);
  if (!buildId) throw new CliError(`no published snapshot in ${dataDir} (run \`vulnintel build\` first)`);
  const pointer = currentPointer(dataDir);
  const dir = join(snapshotsDir(dataDir), buildId);
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
    throw new CliError(`${pointer} names snapshot ${buildId}, but ${dir} is not there (run \`vulnintel build\` to publish one)`);
  }
  const written = tablesWritten(dir);
  const instance = await DuckDBInstance.create(':memory:', { temp_directory: join(tmpdir(), `vulnintel-sql-${process.pid}`) });
  const connection = await instance.connect();
  const tables: string[] = [];
  for (const table of Object.keys(SNAPSHOT_TABLES)) {
    // A table added after the snapshot was built: not there, and not damage.
    if (written !== null && !written.has(table)) continue;
    tables.push(table);
    try {
      await connection.run(`CREATE VIEW "${table}" AS SELECT * FROM ${tableReader(dir, table)}`);
    } catch (err) {
      // A snapshot with files deleted: DuckDB's error, with its stack, was all the user saw.
      connection.closeSync();
      instance.closeSync();
      throw new CliError(`snapshot ${buildId} is damaged: table ${table} (${join(dir, SNAPSHOT_TABLES[table]!)}) cannot be read: ${firstLineOf(err)}`);
    }
  }
  return { instance, connection, buildId, tables };
}

/** The tables the snapshot's manifest says its build wrote; null when it cannot tell. */
function tablesWritten(dir: string): Set<string> | null {
  try {
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { tables?: unknown };
    return manifest.tables !== null && typeof manifest.tables === 'object' ? new Set(Object.keys(manifest.tables)) : null;
  } catch {
    return null;
  }
}

/** DuckDB's types whose JSON form is a string of digits (they may not fit a double). */
const WIDE_NUMBERS = new Set<DuckDBTypeId>([DuckDBTypeId.BIGINT, DuckDBTypeId.UBIGINT, DuckDBTypeId.HUGEINT, DuckDBTypeId.UHUGEINT, DuckDBTypeId.DECIMAL]);

/**
 * JSON values of a result, with counts, sums and decimals as numbers at any depth (`count(*)`,
 * `1.5`, `[count(*)]`): the library hands BIGINT, HUGEINT and DECIMAL over as strings, which
 * made `{"n": "83"}` of a DECIMAL average or of a count inside a list. A value a double cannot
 * hold exactly (past 2^53, or more than 15 significant digits) stays a string.
 */
const sqlJson: DuckDBValueConverter<Json> = (value, type) => {
  const json = JsonDuckDBValueConverter(value, type, sqlJson);
  if (typeof json !== 'string' || !WIDE_NUMBERS.has(type.typeId)) return json;
  const n = Number(json);
  const exact = /^-?\d+$/.test(json) ? Number.isSafeInteger(n) : json.replace(/^-?0*\.?0*|\./g, '').replace(/0+$/, '').length <= 15;
  return Number.isFinite(n) && exact ? n : json;
};

function csvCell(v: unknown): string {
  const s = v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
  // RFC 4180: a field holding a quote, comma, CR or LF is quoted.
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

export async function runSql(query: string, opts: { data: string; format: 'table' | 'csv' | 'json' }): Promise<void> {
  const { instance, connection } = await openSnapshotViews(resolve(opts.data));
  try {
    let reader: DuckDBResultReader | undefined;
    try {
      // Each statement in turn, the last one's result printed (as `psql -c` does): given several
      // at once, DuckDB's runAndReadAll printed the first result and no later one
      // ("select 1 as a; select 2 as b" printed a).
      const statements = await connection.extractStatements(query).catch(async () => {
        // A text without a statement ("", ";", a comment) fails here with a bare "Error in
        // native callback"; the query run whole gives the parser's own error when it has one.
        await connection.runAndReadAll(query);
        return null;
      });
      for (let i = 0; i < (statements?.count ?? 0); i++) reader = await (await statements!.prepare(i)).runAndReadAll();
    } catch (err) {
      throw new CliError(`query failed: ${(err as Error).message}`);
    }
    // Without a statement it printed an empty line and exited 0.
    if (reader === undefined) throw new CliError('query failed: no SQL statement in it');
    const rows = reader.convertRows(sqlJson);
    // CSV and the table show the names the query gave; JSON objects need one key per column,
    // so a repeated name (`select 1 as a, 2 as a`) is told apart as DuckDB does (`a`, `a:1`).
    const columns = reader.columnNames();
    const keys = reader.deduplicatedColumnNames();
    if (opts.format === 'json') {
      process.stdout.write(`${JSON.stringify(rows.map((r) => Object.fromEntries(keys.map((k, i) => [k, r[i]]))), null, 2)}\n`);
    } else if (opts.format === 'csv') {
      process.stdout.write(`${columns.map(csvCell).join(',')}\n`);
      for (const r of rows) process.stdout.write(`${r.map(csvCell).join(',')}\n`);
    } else {
      // console.table shows strings as util.inspect does: control characters as escapes.
      console.table(rows.map((r) => Object.fromEntries(keys.map((k, i) => [k, typeof r[i] === 'object' && r[i] !== null ? JSON.stringify(r[i]) : r[i]]))));
    }
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
