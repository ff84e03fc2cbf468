/**
 * The per-CVE and per-advisory answers of four endpoints, computed once for the whole snapshot
 * instead of per request (several DuckDB queries each):
 *
 *   answer_references(doc, body)       GET /cves/{id}/references        (api/queries/references.ts)
 *   answer_enrichment(doc, body)       GET /cves/{id}/enrichment        (api/queries/enrichment.ts)
 *   answer_related(doc, body)          GET /cves/{id}/related           (api/queries/related.ts,
 *                                      with an unlimited reason budget: basis never `unknown` for time)
 *   answer_vendor_advisory(vendor, advisory_id, body)
 *                                      GET /vendor-advisories/{vendor}/{advisory_id}
 *                                      (api/queries/advisories.ts), under vendor and id as stored
 *
 * Each body is exactly the JSON.stringify of what the per-request function returns (the bytes
 * the route sends), for every CVE of `cves` (rejected ones too) and every advisory. The SQL is
 * set-based, one step per file under sql/answers/; it runs against a connection holding the
 * snapshot tables as openSnapshot (api/snapshot/open.ts) serves them (`cves` with `doc` and
 * `id_rank`). Only the related bodies are finished here: SQL writes each as a template naming
 * its siblings by doc, and the siblings' briefs are spliced in from one copy each (see
 * buildRelated). A table named in `unreadableTables` (openSnapshot's) is never read: the
 * sections that need it are served empty and named in `failed_sections`, as the endpoints do
 * today.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBBlobValue, DuckDBConnection } from '@duckdb/node-api';
import { VENDOR_ADVISORY_TABLES } from '../../api/queries/advisories.ts';
import { SECTION_TABLES, unreadableSections } from '../../api/queries/enrichment.ts';
import { failedReferenceSections } from '../../api/queries/references.ts';
import { CWE_WINDOWING_FROM, CWE_WINDOWS_DAYS, RELATED_KEY_CAP, RELATED_LIST_MAX, SHARED_KEYS_SHOWN } from '../../api/queries/related.ts';
import { SHORT_TEXT_MAX } from '../../api/queries/support.ts';
import { fillPlaceholders, SQL_DIR } from './sql-steps.ts';

const ANSWERS_SQL_DIR = join(SQL_DIR, 'answers');

/** The tables createAnswerTables creates, each holding one JSON body per row. */
export const ANSWER_TABLES = ['answer_references', 'answer_enrichment', 'answer_related', 'answer_vendor_advisory'] as const;

export interface AnswerOptions {
  /** Told the seconds each SQL file took (for the build's step log and benchmarks). */
  onStep?: (file: string, seconds: number) => void;
  /**
   * Called as soon as each answer table is complete, before the next is made: the caller may
   * write it out and drop it, so the bodies of all four never sit in memory together.
   */
  onTable?: (table: (typeof ANSWER_TABLES)[number]) => Promise<void>;
  /**
   * false: answer_related is not made. At 340,000 CVEs its bodies (up to 30 sibling briefs
   * each) come to gigabytes, more than the build's memory and time allow; the replica then
   * answers /related per request.
   */
  related?: boolean;
}

/**
 * A step that builds the items of one section: its file, the snapshot tables it reads, and
 * the item tables `(cve_id, items)` it creates (created empty when a table cannot be read).
 */
interface SectionStep {
  file: string;
  reads: readonly string[];
  creates: readonly string[];
}

const REFERENCE_STEPS: SectionStep[] = [
  { file: 'references_items.sql', reads: ['references'], creates: ['answer_reference_items'] },
  { file: 'references_exploits.sql', reads: ['exploits'], creates: ['answer_unreferenced_exploits'] },
];

const ENRICHMENT_STEPS: SectionStep[] = [
  { file: 'enrichment_vendor_advisories.sql', reads: SECTION_TABLES.vendor_advisories, creates: ['answer_enrichment_vendor_advisories'] },
  { file: 'enrichment_patches.sql', reads: SECTION_TABLES.patches, creates: ['answer_enrichment_patches'] },
  {
    file: 'enrichment_packages.sql',
    reads: [...SECTION_TABLES.affected_packages, ...SECTION_TABLES.fixed_versions],
    creates: ['answer_enrichment_affected_packages', 'answer_enrichment_fixed_versions'],
  },
  { file: 'enrichment_cwes.sql', reads: SECTION_TABLES.cwes, creates: ['answer_enrichment_cwes'] },
  { file: 'enrichment_exploits.sql', reads: SECTION_TABLES.exploits, creates: ['answer_enrichment_exploits'] },
  { file: 'enrichment_timeline.sql', reads: SECTION_TABLES.timeline, creates: ['answer_enrichment_timeline'] },
];

/** What DuckDB's to_json writes for a control character (`\u001F`) and JSON.stringify does not. */
const CONTROL_ESCAPE = Buffer.from('\\u00');
const UPPER_CONTROL_ESCAPE = /\\u00[01][A-F]/;

/** CVEs (docs) per batch of related bodies: the working tables of a batch stay small. */
const RELATED_BATCH = 50_000;

/**
 * Creates answer_references, answer_enrichment, answer_related and answer_vendor_advisory in
 * the connection's default schema (see the header). Working tables are TEMP and dropped at the
 * end. answer_vendor_advisory is empty when advisories or advisory_cves cannot be read: the
 * endpoint then answers 503 naming the table, for every advisory.
 */
export async function createAnswerTables(
  connection: DuckDBConnection,
  unreadableTables: ReadonlySet<string> = new Set(),
  options: AnswerOptions = {},
): Promise<void> {
  const params = {
    key_cap: RELATED_KEY_CAP,
    list_max: RELATED_LIST_MAX,
    keys_shown: SHARED_KEYS_SHOWN,
    short_text_max: SHORT_TEXT_MAX,
    cwe_windowing_from: CWE_WINDOWING_FROM,
    cwe_window_max_days: Math.max(...CWE_WINDOWS_DAYS),
  };
  const run = (file: string, extra: Record<string, string | number> = {}) => runAnswerFile(connection, file, { ...params, ...extra }, options);
  const readable = (tables: readonly string[]) => !tables.some((t) => unreadableTables.has(t));
  const sections = async (steps: SectionStep[]) => {
    for (const s of steps) {
      if (readable(s.reads)) await run(s.file);
      else for (const table of s.creates) await run('empty_items.sql', { table });
    }
  };

  await run('00_macros.sql');

  const done = async (table: (typeof ANSWER_TABLES)[number]) => {
    await rewriteControlEscapes(connection, table, options);
    await options.onTable?.(table);
  };

  await run(readable(['references']) ? 'references_urls.sql' : 'references_urls_none.sql');
  await sections(REFERENCE_STEPS);
  await run('references_body.sql', { failed_sections: JSON.stringify(failedReferenceSections(unreadableTables)) });
  await done('answer_references');

  await sections(ENRICHMENT_STEPS);
  await run('enrichment_body.sql', { failed_sections: JSON.stringify(unreadableSections(unreadableTables)) });
  await done('answer_enrichment');

  if (options.related !== false) {
    if (readable(['related_keys'])) {
      await run('related_keys.sql');
      // buildRelated rewrites the bodies' escapes as it stores them.
      await buildRelated(connection, params, options);
      await options.onTable?.('answer_related');
    } else {
      await run('related_unavailable.sql');
      await done('answer_related');
    }
  }

  await run(readable(VENDOR_ADVISORY_TABLES) ? 'vendor_advisory.sql' : 'vendor_advisory_unavailable.sql');
  await done('answer_vendor_advisory');

  await run('cleanup.sql');
}

/**
 * The related bodies, batch by batch of docs: related_batch.sql ranks the lists and writes
 * each body as a template whose entries name their sibling by doc; the sibling's brief, most
 * of a body's bytes, is spliced in here from one copy per CVE (a CVE is the sibling of many)
 * rather than joined into every entry. The bytes are assembled as bytes, then stored as text.
 */
async function buildRelated(connection: DuckDBConnection, params: Record<string, string | number>, options: AnswerOptions): Promise<void> {
  const briefs: Uint8Array[] = [];
  const briefRows = await connection.runAndReadAll(await answerSql('related_briefs_read.sql'));
  for (const [doc, brief] of briefRows.getRows() as [number, DuckDBBlobValue][]) briefs[doc] = brief.bytes;
  const [[first, past]] = (await connection.runAndReadAll(await answerSql('related_docs.sql'))).getRows() as [[number, number]];
  let out = Buffer.allocUnsafe(1 << 20);
  for (let from = first; from < past; from += RELATED_BATCH) {
    await runAnswerFile(connection, 'related_batch.sql', { ...params, from, to: from + RELATED_BATCH }, options);
    const started = performance.now();
    const templates = (await connection.runAndReadAll(await answerSql('related_batch_read.sql'))).getRows() as [number, DuckDBBlobValue][];
    const appender = await connection.createAppender('answer_related_done', 'main', 'temp');
    for (const [doc, template] of templates) {
      const bytes = template.bytes;
      let length = 0;
      const grow = (needed: number) => {
        if (length + needed <= out.length) return;
        const bigger = Buffer.allocUnsafe(Math.max(out.length * 2, length + needed));
        out.copy(bigger, 0, 0, length);
        out = bigger;
      };
      // Each entry's `\x02 doc \x03` becomes the brief of that doc.
      for (let at = 0; at < bytes.length; ) {
        const mark = bytes.indexOf(2, at);
        const end = mark < 0 ? bytes.length : mark;
        grow(end - at);
        out.set(bytes.subarray(at, end), length);
        length += end - at;
        if (mark < 0) break;
        let doc = 0;
        let digit = mark + 1;
        for (; bytes[digit] !== 3; digit++) doc = doc * 10 + bytes[digit]! - 48;
        const brief = briefs[doc]!;
        grow(brief.length);
        out.set(brief, length);
        length += brief.length;
        at = digit + 1;
      }
      appender.appendInteger(doc);
      const body = out.subarray(0, length);
      // The rare body with a control character escaped the to_json way (see rewriteControlEscapes).
      if (body.indexOf(CONTROL_ESCAPE) >= 0 && UPPER_CONTROL_ESCAPE.test(body.toString('utf8'))) {
        appender.appendBlob(Buffer.from(JSON.stringify(JSON.parse(body.toString('utf8')))));
      } else {
        appender.appendBlob(body);
      }
      appender.endRow();
    }
    appender.closeSync();
    options.onStep?.(`related bodies of docs ${from}-${from + RELATED_BATCH - 1} (answers.ts)`, (performance.now() - started) / 1000);
    await runAnswerFile(connection, 'related_batch_store.sql', {}, options);
  }
}

async function answerSql(file: string, params: Record<string, string | number> = {}): Promise<string> {
  return fillPlaceholders(await readFile(join(ANSWERS_SQL_DIR, file), 'utf8'), params);
}

async function runAnswerFile(
  connection: DuckDBConnection,
  file: string,
  params: Record<string, string | number>,
  options: AnswerOptions,
): Promise<void> {
  const sql = await answerSql(file, params);
  const started = performance.now();
  try {
    await connection.run(sql);
  } catch (err) {
    throw new Error(`answer step sql/answers/${file} failed: ${(err as Error).message}`);
  }
  options.onStep?.(file, (performance.now() - started) / 1000);
}

/**
 * DuckDB's to_json writes a control character as `\u001F` where JSON.stringify writes
 * `\u001f`; every other character it writes alike (checked over all of Unicode). The few bodies
 * holding such an escape are parsed and written again by JSON.stringify, which gives exactly
 * the bytes of the per-request answer (strings, key order and numbers are already its own).
 */
async function rewriteControlEscapes(connection: DuckDBConnection, table: string, options: AnswerOptions): Promise<void> {
  const started = performance.now();
  const found = await connection.runAndReadAll(await answerSql('escapes_find.sql', { table }));
  const rows = found.getRows() as [bigint, string][];
  if (rows.length > 0) {
    await runAnswerFile(connection, 'escapes_table.sql', {}, options);
    const appender = await connection.createAppender('answer_escape_fixes', 'main', 'temp');
    for (const [rowId, body] of rows) {
      appender.appendBigInt(rowId);
      appender.appendVarchar(JSON.stringify(JSON.parse(body)));
      appender.endRow();
    }
    appender.closeSync();
    await runAnswerFile(connection, 'escapes_apply.sql', { table }, options);
  }
  options.onStep?.(`escapes ${table} (${rows.length} rewritten)`, (performance.now() - started) / 1000);
}
