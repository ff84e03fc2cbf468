/**
 * The serving files of a snapshot (DESIGN §8.1, sql/11_serving.sql): derived from the snapshot's
 * Parquet files, written beside them in `serving/`, and what a replica opens instead of loading
 * the Parquet into memory. The build writes them after the Parquet; a replica handed a snapshot
 * without them (built by an older version, or whose serving folder was removed) derives them
 * once with this same code before serving it.
 *
 * The folder is written under a temporary name and renamed when whole, with `serving.json` last
 * inside it, so a reader sees complete serving files or none. `serving.json` also names the
 * snapshot tables that could not be read (a damaged Parquet file): they exist empty in
 * serving.duckdb and the endpoints that need them say so, as before.
 */
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { hash, randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { coresBusy, info } from '../../lib/log.ts';
import { readFlatColumns, writeFlatColumns, type FlatColumn } from '../../lib/flat-columns.ts';
import { packageIndexSql } from '../../lib/packages/index.ts';
import { HIVE_PARTITIONS, SNAPSHOT_TABLES, tableReader } from '../../lib/snapshot-layout.ts';
import { ANSWER_TEXT_COLUMN, createAnswerTables, type AnswerTable } from './answers.ts';
import { streamChunks, streamLines, writeLines, type StreamedLines } from './line-files.ts';
import { fsyncFiles } from './publish.ts';
import { createBuildDatabase, fillPlaceholders, SQL_DIR } from './sql-steps.ts';
import {
  SERVING_FORMAT,
  SERVING_DB,
  SERVING_RECORDS,
  SERVING_MANIFEST,
  SERVING_COLUMNS,
  SERVING_IDS,
  SERVING_RECORD_DIGESTS,
  PER_CVE_ANSWERS,
  type PerCveAnswer,
  SERVING_ADVISORIES,
  SERVING_ADVISORY_KEYS,
  SERVING_RELATED_BRIEFS,
  SERVING_RELATED_TEMPLATES,
  SERVING_PACKAGES,
  SERVING_POSTINGS,
  SERVING_TERM_COLUMNS,
  SERVING_TERMS,
  SERVING_ANSWER_LENGTHS,
  type ServingManifest,
  servingDir,
  readServingManifest,
} from '../../lib/serving-layout.ts';

export const SERVING_STEP = '11_serving.sql';

/** An answer table written by doc (one line per CVE): its file, length column and text column. */
interface ByDoc {
  file: string;
  lengths: string;
  column: string;
}

const perCve = (kind: PerCveAnswer): ByDoc => ({ file: `${kind}.ndjson`, lengths: `${kind}_bytes`, column: ANSWER_TEXT_COLUMN[`answer_${kind}`] });

const BY_DOC: Partial<Record<AnswerTable, ByDoc>> = {
  answer_enrichment: perCve('enrichment'),
  answer_references: perCve('references'),
  answer_related_templates: { file: SERVING_RELATED_TEMPLATES, lengths: 'related_template_bytes', column: ANSWER_TEXT_COLUMN.answer_related_templates },
  answer_related_briefs: { file: SERVING_RELATED_BRIEFS, lengths: 'related_brief_bytes', column: ANSWER_TEXT_COLUMN.answer_related_briefs },
};

/** Severity labels as small integers in columns.bin; NONE (and a missing label) is 0. */
export const SEVERITY_CODES: Record<string, number> = { NONE: 0, LOW: 1, MEDIUM: 2, HIGH: 3, CRITICAL: 4 };

/**
 * The arrays of columns.bin, each indexed by doc except the orders: `order_<sort>` lists the docs
 * in that sort's order (descending, no value last, ties by cve_id descending).
 */
export interface DocColumns {
  record_bytes: Uint32Array;
  /** Microseconds since the epoch (UTC); NaN when unknown. */
  published_us: Float64Array;
  active: Uint8Array;
  severity: Uint8Array;
  service_severity: Uint8Array;
  /** NaN when the CVE holds no CVSS. Float64: a Float32 7.1 is below the 7.1 of a request. */
  max_cvss: Float64Array;
  in_kev: Uint8Array;
  year: Uint16Array;
  last_modified_us: Float64Array;
  order_epss: Int32Array;
  order_severity: Int32Array;
  order_cvss_v3: Int32Array;
}


/** Tables the step reshapes (sql/11_serving.sql); never copied as they are. */
const RESHAPED = new Set(['cves', 'search_terms', 'search_docs']);

/** What the step reads of a reshaped input when its file cannot be read: no rows. */
const EMPTY_INPUTS: Record<string, string> = {
  search_terms: `SELECT NULL::VARCHAR AS term, NULL::VARCHAR AS cve_id, NULL::TIMESTAMP AS published, NULL::VARCHAR AS status WHERE false`,
  search_docs: `SELECT NULL::VARCHAR AS cve_id, NULL::VARCHAR AS text WHERE false`,
};

/** The records' lines of a `cves` (record_json, cve_id), in the query's order. */
function streamRecords(connection: DuckDBConnection, sql: string, path: string): Promise<StreamedLines> {
  return streamLines(connection, sql, path, 'CVE record', { second: 'cve_id', digests: true });
}

/**
 * records.ndjson written by the build beside its SQL steps (startRecordsFile), before the
 * serving step: where it is, and the lines as written.
 */
export interface EarlyRecords {
  path: string;
  written: Promise<StreamedLines>;
}

/**
 * Starts writing the build's records.ndjson at `path` from its `cves` as held, on `connection`
 * (one of its own): sql/04_records.sql leaves `cves` in doc order (published DESC, cve_id
 * DESC), so the file is written while the later SQL steps run, instead of after them. The
 * serving step then proves the order id by id (writeRecords). Nothing may change `cves` until
 * `written` has settled.
 */
export function startRecordsFile(connection: DuckDBConnection, path: string): EarlyRecords {
  const written = streamRecords(connection, `SELECT record_json, cve_id FROM cves`, path);
  // The snapshot's largest file, made durable while the build goes on (see fsyncFiles).
  return { path, written: written.then(async (lines) => (await fsyncFiles([path]), lines)) };
}

/**
 * records.ndjson: each CVE's record JSON and a newline, in doc order (serving_keys, left by the
 * SQL step), and each record's SHA-1 (record-sha1.bin). The build's file, written early from
 * its `cves` as held (startRecordsFile), is taken when its ids are exactly the docs' in order;
 * otherwise (and when a replica derives the files from a snapshot's Parquet, read year by year)
 * the records are written sorted by doc.
 */
async function writeRecords(connection: DuckDBConnection, path: string, early: EarlyRecords | undefined): Promise<Uint32Array> {
  const ids = ((await connection.runAndReadAll(`SELECT cve_id FROM serving_keys ORDER BY doc`)).getColumns()[0] ?? []) as string[];
  const inDocOrder = (written: StreamedLines) => written.ids!.length === ids.length && written.ids!.every((id, doc) => id === ids[doc]);
  let written = early ? await early.written : null;
  if (early && written && inDocOrder(written)) await rename(early.path, path);
  else {
    if (early) {
      info(`  records: the build's cves are not held in doc order; written again, sorted`);
      await rm(early.path, { force: true });
    }
    written = await streamRecords(connection, `SELECT c.record_json, c.cve_id FROM snap.cves c JOIN serving_keys k USING (cve_id) ORDER BY k.doc`, path);
    if (!inDocOrder(written)) throw new Error(`${path}: ${written.lengths.length} records written out of doc order for ${ids.length} CVEs`);
  }
  await writeFile(join(dirname(path), SERVING_RECORD_DIGESTS), written.digests!);
  await connection.run(`DROP TABLE serving_keys`);
  return written.lengths;
}

/**
 * The stored answers (cli/build/answers.ts): enrichment, references and the two parts of related
 * of every CVE, in doc order, and every vendor advisory's detail with its key (vendor,
 * advisory_id as stored). The answer tables are made in memory on `connection`, reading the
 * serving tables, and only their texts reach the serving folder: each table, as soon as it is
 * complete, is written out on `writer` (a connection of its own, one table at a time) and
 * dropped, while `connection` goes on with the next. The writing is JavaScript on the main
 * thread (streamLines), the making DuckDB's threads: the two overlap.
 */
async function writeAnswers(connection: DuckDBConnection, writer: DuckDBConnection, dir: string, unreadable: ReadonlySet<string>, size: number): Promise<void> {
  // Names resolve to the serving tables; what the step creates stays in memory (the default).
  await connection.run(`SET search_path = 'memory.main,serving.main'`);
  const lengths: Record<string, FlatColumn> = {};
  const onStep = process.env.VULNINTEL_SERVING_TIMINGS ? (file: string, seconds: number) => info(`  answers ${file}: ${seconds.toFixed(1)} s`) : undefined;
  const write = async (table: AnswerTable) => {
    const started = performance.now();
    const from = `memory.main.${table}`;
    let files: string[];
    if (table === 'answer_vendor_advisory') {
      files = [join(dir, SERVING_ADVISORIES), join(dir, SERVING_ADVISORY_KEYS)];
      lengths.advisory_bytes = (await streamLines(writer, `SELECT body FROM ${from} ORDER BY vendor, advisory_id`, files[0]!, 'vendor advisory')).lengths;
      await streamLines(writer, `SELECT to_json([vendor, advisory_id])::VARCHAR FROM ${from} ORDER BY vendor, advisory_id`, files[1]!, 'vendor advisory key');
    } else {
      const out = BY_DOC[table];
      if (!out) throw new Error(`answers: no file for ${table}`);
      files = [join(dir, out.file)];
      // Line i must be doc i: one row for each doc, none missing, none twice.
      const [rows, docs, low, high] = (await writer.runAndReadAll(`SELECT count(*), count(DISTINCT doc), min(doc), max(doc) FROM ${from}`)).getRows()[0]!.map(Number);
      if (rows !== size || docs !== size || (size > 0 && (low !== 0 || high !== size - 1))) throw new Error(`${table}: ${rows} rows for docs ${low}…${high}, expected one for each of ${size} docs`);
      // A table already held in doc order (the related templates, made batch by batch) is
      // written as it is held, each line's doc checked; any other is sorted.
      const [misplaced] = (await writer.runAndReadAll(`SELECT count(*) FROM (SELECT doc, row_number() OVER () - 1 AS place FROM ${from}) WHERE place <> doc`)).getRows()[0]!;
      lengths[out.lengths] =
        Number(misplaced) === 0
          ? (await streamLines(writer, `SELECT ${out.column}, doc FROM ${from}`, files[0]!, `${table} text`, { second: 'doc' })).lengths
          : (await streamLines(writer, `SELECT ${out.column} FROM ${from} ORDER BY doc`, files[0]!, `${table} text`)).lengths;
    }
    await writer.run(`DROP TABLE ${from}`);
    // Made durable now, beside the next answer, not all at once when the snapshot is published.
    await fsyncFiles(files);
    onStep?.(`write ${table} (beside)`, (performance.now() - started) / 1000);
  };
  // The writes, in order, one at a time: memory holds at most the table being written and the
  // one being made. A failed write stops the making at its next table.
  let writes: Promise<void> = Promise.resolve();
  let failure: unknown = null;
  const onTable = async (table: AnswerTable) => {
    if (failure !== null) throw failure;
    writes = writes.then(() => write(table)).catch((err: unknown) => {
      failure ??= err;
    });
  };
  try {
    await createAnswerTables(connection, unreadable, { onTable, onStep });
  } finally {
    await writes;
  }
  if (failure !== null) throw failure;
  for (const name of [...Object.values(BY_DOC).map((o) => o.lengths), 'advisory_bytes']) if (!lengths[name]) throw new Error(`answers: ${name} was not written`);
  writeFlatColumns(join(dir, SERVING_ANSWER_LENGTHS), lengths);
  await connection.run(`RESET search_path`);
}

/** The per-doc arrays and ids of a serving folder (written by writeDocColumns). */
export function readDocColumns(dir: string): { columns: DocColumns; ids: string[] } {
  const flat = readFlatColumns(join(dir, SERVING_COLUMNS)) as unknown as DocColumns;
  const text = readFileSync(join(dir, SERVING_IDS), 'utf8');
  const ids = text === '' ? [] : text.split('\n');
  if (ids.length !== flat.record_bytes.length) throw new Error(`${dir}: ${ids.length} ids for ${flat.record_bytes.length} records`);
  return { columns: flat, ids };
}

/** columns.bin and ids.txt from `serving_doc_columns` (left by the SQL step). */
async function writeDocColumns(connection: DuckDBConnection, dir: string, recordBytes: Uint32Array): Promise<void> {
  const size = recordBytes.length;
  const columns: DocColumns = {
    record_bytes: recordBytes,
    published_us: new Float64Array(size),
    active: new Uint8Array(size),
    severity: new Uint8Array(size),
    service_severity: new Uint8Array(size),
    max_cvss: new Float64Array(size),
    in_kev: new Uint8Array(size),
    year: new Uint16Array(size),
    last_modified_us: new Float64Array(size),
    order_epss: new Int32Array(size),
    order_severity: new Int32Array(size),
    order_cvss_v3: new Int32Array(size),
  };
  const ids: string[] = new Array<string>(size);
  const sql = `SELECT doc, cve_id, published_us, active, severity, service_severity, max_cvss, in_kev, year, last_modified_us,
                      epss_rank, severity_rank, cvss_v3_rank
               FROM serving_doc_columns ORDER BY doc`;
  const code = (label: string) => SEVERITY_CODES[label] ?? 0;
  const orNaN = (v: number | null) => (v === null ? Number.NaN : v);
  let seen = 0;
  for await (const chunk of streamChunks(connection, sql)) {
    const [docs, cveIds, published, active, severity, serviceSeverity, maxCvss, inKev, year, lastModified, epssRank, severityRank, cvssRank] =
      chunk.getColumns() as [number[], string[], (number | null)[], boolean[], string[], string[], (number | null)[], boolean[], number[], (number | null)[], number[], number[], number[]];
    for (let i = 0; i < docs.length; i++) {
      const doc = docs[i]!;
      if (doc !== seen) throw new Error(`serving columns: doc ${doc} where ${seen} was expected`);
      seen++;
      ids[doc] = cveIds[i]!;
      columns.published_us[doc] = orNaN(published[i]!);
      columns.active[doc] = active[i] ? 1 : 0;
      columns.severity[doc] = code(severity[i]!);
      columns.service_severity[doc] = code(serviceSeverity[i]!);
      columns.max_cvss[doc] = orNaN(maxCvss[i]!);
      columns.in_kev[doc] = inKev[i] ? 1 : 0;
      columns.year[doc] = year[i]!;
      columns.last_modified_us[doc] = orNaN(lastModified[i]!);
      columns.order_epss[epssRank[i]!] = doc;
      columns.order_severity[severityRank[i]!] = doc;
      columns.order_cvss_v3[cvssRank[i]!] = doc;
    }
  }
  if (seen !== size) throw new Error(`serving columns: ${seen} CVEs for ${size} records`);
  await connection.run(`DROP TABLE serving_doc_columns`);
  writeFlatColumns(join(dir, SERVING_COLUMNS), columns as unknown as Record<string, FlatColumn>);
  await writeFile(join(dir, SERVING_IDS), ids.join('\n'));
}

/**
 * The flat search postings (terms.txt, terms.bin, postings.bin; see lib/serving-layout.ts) from
 * `serving_terms (term, term_id, all_count, active_count)` and `serving.search_postings
 * (term_id, doc)`, both left by sql/11_serving.sql: a one-word search is then a slice of an
 * array, not a query. The postings are read in the order they were stored (by term_id, then
 * doc) and every row is checked to be where the counts put it, so a file in another order is an
 * error, never a served file.
 */
export async function writePostings(connection: DuckDBConnection, dir: string): Promise<void> {
  const terms: string[] = [];
  const allCounts: number[] = [];
  const activeCounts: number[] = [];
  for await (const chunk of streamChunks(connection, `SELECT term, term_id, all_count, active_count FROM serving_terms ORDER BY term_id`)) {
    const [term, id, all, active] = [0, 1, 2, 3].map((i) => chunk.getColumnValues(i));
    for (let i = 0; i < chunk.rowCount; i++) {
      const text = term![i] as string;
      if (text.includes('\n')) throw new Error(`search term ${JSON.stringify(text)} holds a newline`);
      if (Number(id![i]) !== terms.length) throw new Error(`search term ${JSON.stringify(text)} is number ${id![i]}, expected ${terms.length}`);
      terms.push(text);
      allCounts.push(Number(all![i]));
      activeCounts.push(Number(active![i]));
    }
  }
  const start = new Uint32Array(terms.length + 1);
  for (let i = 0; i < terms.length; i++) start[i + 1] = start[i]! + allCounts[i]!;
  const fd = openSync(join(dir, SERVING_POSTINGS), 'w');
  let written = 0;
  let term = 0;
  let previousDoc = -1;
  try {
    for await (const chunk of streamChunks(connection, `SELECT term_id, doc FROM serving.search_postings`)) {
      const ids = chunk.getColumnValues(0) as number[];
      const values = Int32Array.from(chunk.getColumnValues(1) as number[]);
      for (let i = 0; i < values.length; i++, written++) {
        while (term < terms.length && written >= start[term + 1]!) {
          term++;
          previousDoc = -1;
        }
        const doc = values[i]!;
        if (ids[i] !== term || doc <= previousDoc) {
          throw new Error(`postings: row ${written} is (term ${ids[i]}, doc ${doc}), expected term ${term} after doc ${previousDoc}`);
        }
        previousDoc = doc;
      }
      writeSync(fd, new Uint8Array(values.buffer));
    }
  } finally {
    closeSync(fd);
  }
  if (written !== start[terms.length]) throw new Error(`postings: wrote ${written} docs, the terms count ${start[terms.length]}`);
  await writeFile(join(dir, SERVING_TERMS), terms.map((t) => `${t}\n`).join(''));
  writeFlatColumns(join(dir, SERVING_TERM_COLUMNS), { start, all_count: Uint32Array.from(allCounts), active_count: Uint32Array.from(activeCounts) });
}

async function readable(connection: DuckDBConnection, reader: string): Promise<boolean> {
  try {
    await connection.run(`SELECT * FROM ${reader} LIMIT 0`);
    return true;
  } catch {
    return false;
  }
}

export interface WriteServingOptions {
  /** Where to write (default: `<snapshot>/serving`). */
  target?: string;
  threads?: number;
  memoryLimit?: string;
  /**
   * The build's own database, which still holds the tables it has just written as
   * the snapshot's Parquet: the step then runs there and reads the three tables it reshapes
   * (the records' JSON, 11.9 M search terms at full scale) from memory instead of decoding them
   * back from Parquet. It owns that database from then on: every table of the build is dropped
   * before the step (what the step reads as it is comes from the Parquet, in the files' order,
   * exactly as when a replica derives the files) or as soon as the step has read it.
   */
  build?: DuckDBInstance;
  /**
   * With `build`: the CVEs' Parquet being written beside the step from the build's `cves`
   * (sql/09_write_cves.sql). The step reads `cves` from memory, with the columns a reader of
   * those files sees, and drops it only once this has settled.
   */
  cvesStillRead?: Promise<unknown>;
  /** With `build`: records.ndjson as the build wrote it beside its SQL steps (startRecordsFile). */
  records?: EarlyRecords;
}

/** Every table and view the build left in its database, but the RESHAPED tables the step reads. */
async function dropBuildTables(connection: DuckDBConnection, keep: ReadonlySet<string>): Promise<void> {
  const rows = (await connection.runAndReadAll(
    `SELECT 'TABLE', database_name, schema_name, table_name FROM duckdb_tables() WHERE database_name IN ('memory', 'temp')
     UNION ALL
     SELECT 'VIEW', database_name, schema_name, view_name FROM duckdb_views() WHERE NOT internal AND database_name IN ('memory', 'temp')`,
  )).getRows() as [string, string, string, string][];
  for (const [kind, database, schema, name] of rows) {
    if (kind === 'TABLE' && database === 'memory' && schema === 'main' && keep.has(name)) continue;
    await connection.run(`DROP ${kind} IF EXISTS "${database}"."${schema}"."${name}"`);
  }
}

/**
 * A table as its Parquet file gives it (the same columns, in the same order, of the
 * same types), read from the build's memory: the step's result is then the same as a replica's
 * derivation from the file.
 */
async function asWritten(connection: DuckDBConnection, table: string, reader: string): Promise<string> {
  const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;
  const partition = HIVE_PARTITIONS[table];
  if (partition) {
    // Its files may not be written yet (sql/09_write_cves.sql runs beside the step): a reader
    // of them sees the table's own columns, the partition column last, typed as tableReader has it.
    return `SELECT * EXCLUDE (${quoted(partition.column)}), CAST(${quoted(partition.column)} AS ${partition.type}) AS ${quoted(partition.column)} FROM memory.main.${quoted(table)}`;
  }
  const columns = (await connection.runAndReadAll(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM ${reader})`)).getRows() as [string, string][];
  return `SELECT ${columns.map(([name, type]) => `CAST(${quoted(name)} AS ${type}) AS ${quoted(name)}`).join(', ')} FROM memory.main.${quoted(table)}`;
}

/**
 * Writes the serving files of the snapshot at `snapshotDir`; returns their folder and manifest.
 * A folder already complete at the target (another replica was first) is kept as it is.
 */
export async function writeServingFiles(snapshotDir: string, opts: WriteServingOptions = {}): Promise<{ dir: string; manifest: ServingManifest }> {
  const started = performance.now();
  const target = opts.target ?? servingDir(snapshotDir);
  // Its own name: two derivations in one process in the same millisecond shared one folder.
  const work = `${target}.tmp-${process.pid}-${Date.now()}-${randomBytes(4).toString('hex')}`;
  await rm(work, { recursive: true, force: true });
  await mkdir(work, { recursive: true });
  // VULNINTEL_SERVING_TIMINGS=1: each phase's time (bench:build prints it).
  const phase = async <T>(label: string, run: () => Promise<T>): Promise<T> => {
    const at = performance.now();
    const cpu = process.cpuUsage();
    const result = await run();
    if (process.env.VULNINTEL_SERVING_TIMINGS) info(`  serving ${label}: ${((performance.now() - at) / 1000).toFixed(1)} s, ${coresBusy(cpu, at)}`);
    return result;
  };
  const instance = opts.build ?? (await createBuildDatabase(work, opts));
  const connection = await instance.connect();
  // A second connection for the flat files made in JavaScript (doc columns, postings), which
  // run beside the stored answers: those keep DuckDB's threads busy, these the main thread.
  const beside = await instance.connect();
  // And one that writes the stored answers' files while `connection` makes the next answer.
  const answerWriter = await instance.connect();
  try {
    if (opts.build) await dropBuildTables(connection, RESHAPED);
    await connection.run(`ATTACH '${join(work, SERVING_DB).replaceAll("'", "''")}' AS serving`);
    await connection.run(`CREATE SCHEMA snap`);
    const unreadable: string[] = [];
    // Without the CVE table there is nothing to serve: its failure fails the whole step.
    await phase('copy tables', async () => {
      for (const table of Object.keys(SNAPSHOT_TABLES)) {
        const reader = tableReader(snapshotDir, table);
        const ok = table === 'cves' || (await readable(connection, reader));
        if (!ok) unreadable.push(table);
        if (RESHAPED.has(table)) {
          const source = !ok ? EMPTY_INPUTS[table] : opts.build ? await asWritten(connection, table, reader) : `SELECT * FROM ${reader}`;
          await connection.run(`CREATE VIEW snap."${table}" AS ${source}`);
        } else {
          // Any other table is copied in its file's order; an unreadable one exists with no rows
          // (and no columns of its own), so a query naming it runs and finds nothing. (Copied
          // from the build's memory instead, in the same order, it took as long: the time is in
          // writing serving.duckdb, not in reading the Parquet back.)
          await connection.run(
            `CREATE TABLE serving."${table}" AS SELECT * FROM ${ok ? reader : '(SELECT 1 AS unreadable) WHERE false'}`,
          );
        }
      }
    });
    const sql = fillPlaceholders(await readFile(join(SQL_DIR, SERVING_STEP), 'utf8'), { dir: work });
    await phase(SERVING_STEP, () => connection.run(sql));
    // Inputs nobody reads any more: the build's copies are memory to give back at once (the
    // records are written from `cves` next, in the room they leave).
    const release = async (tables: string[]) => {
      for (const table of tables) {
        await connection.run(`DROP VIEW snap."${table}"`);
        if (opts.build) await connection.run(`DROP TABLE memory.main."${table}"`);
      }
    };
    await release(['search_terms', 'search_docs']);
    const recordBytes = await phase('records', () => writeRecords(connection, join(work, SERVING_RECORDS), opts.records));
    await opts.cvesStillRead;
    await release(['cves']);
    await connection.run(`DROP SCHEMA snap`);
    const flatFiles = phase('doc columns and postings (beside the answers)', async () => {
      await writeDocColumns(beside, work, recordBytes);
      await writePostings(beside, work);
      await beside.run(`DROP TABLE serving_terms`);
    });
    // Settled before anything else happens to the folder or the database, whatever the answers do.
    const flatFilesSettled = flatFiles.then(() => undefined, () => undefined);
    try {
      await phase('answers', () => writeAnswers(connection, answerWriter, work, new Set(unreadable), recordBytes.length));
    } finally {
      await flatFilesSettled;
    }
    await flatFiles;
    let packageBytes: number | undefined;
    if (!unreadable.includes('affected_packages')) {
      const lengths = await phase('packages', () => writeLines(connection, packageIndexSql({ schema: 'serving', advisories: !unreadable.includes('advisory_packages') }), join(work, SERVING_PACKAGES), 'package index row'));
      packageBytes = lengths.reduce((sum, n) => sum + n + 1, 0);
    }
    await connection.run(`DETACH serving`);
    const manifest: ServingManifest = {
      format: SERVING_FORMAT,
      unreadable_tables: unreadable.filter((t) => t !== 'cves').sort(),
      cves: recordBytes.length,
      record_bytes: recordBytes.reduce((sum, n) => sum + n + 1, 0),
      ...(packageBytes === undefined ? {} : { package_bytes: packageBytes }),
      seconds: Math.round((performance.now() - started) / 100) / 10,
    };
    if (!opts.build) await rm(join(work, 'duckdb-tmp'), { recursive: true, force: true });
    await writeFile(join(work, SERVING_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    return await putInPlace(work, target, manifest);
  } catch (err) {
    await rm(work, { recursive: true, force: true }).catch(() => undefined);
    throw err;
  } finally {
    connection.closeSync();
    beside.closeSync();
    answerWriter.closeSync();
    if (!opts.build) instance.closeSync();
  }
}

/**
 * Moves the complete serving folder `work` to `target`, by a rename that fails when `target`
 * is there already: another replica deriving the same snapshot may have put its own there
 * first, and its files are the same, so they are kept and `work` removed. Only a folder
 * without a current manifest (an older format, one left incomplete) is moved aside and removed.
 * (The check and the removal were two steps: a replica finishing a moment after another removed
 * the folder the other had just put in place and was opening.)
 */
async function putInPlace(work: string, target: string, manifest: ServingManifest): Promise<{ dir: string; manifest: ServingManifest }> {
  for (let attempt = 0; ; attempt++) {
    try {
      await rename(work, target);
      return { dir: target, manifest };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if ((code !== 'ENOTEMPTY' && code !== 'EEXIST') || attempt === 3) throw err;
    }
    const existing = await readServingManifest(target);
    if (existing) {
      await rm(work, { recursive: true, force: true });
      return { dir: target, manifest: existing };
    }
    const aside = `${target}.old-${process.pid}-${randomBytes(4).toString('hex')}`;
    try {
      await rename(target, aside);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      continue;
    }
    await rm(aside, { recursive: true, force: true });
  }
}

/**
 * The serving files of a snapshot, derived first when missing: beside the snapshot when its
 * folder is writable, else under the system temp folder (a read-only data volume).
 */
export async function ensureServingFiles(snapshotDir: string, buildId: string, opts: WriteServingOptions = {}): Promise<{ dir: string; manifest: ServingManifest; derived: boolean }> {
  const inSnapshot = servingDir(snapshotDir);
  // Named after the snapshot's folder too: two data folders may hold the same build id.
  const fallback = join(tmpdir(), `vulnintel-serving-${buildId}-${hash('sha1', snapshotDir, 'hex').slice(0, 12)}`);
  for (const dir of [inSnapshot, fallback]) {
    const manifest = await readServingManifest(dir);
    if (manifest) return { dir, manifest, derived: false };
  }
  try {
    return { ...(await writeServingFiles(snapshotDir, { ...opts, target: inSnapshot })), derived: true };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EACCES' && code !== 'EROFS' && code !== 'EPERM') throw err;
    return { ...(await writeServingFiles(snapshotDir, { ...opts, target: fallback })), derived: true };
  }
}
