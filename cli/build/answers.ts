/**
 * The per-CVE and per-advisory answers of four endpoints, computed once for the whole snapshot
 * instead of per request (several DuckDB queries each):
 *
 *   answer_references(doc, body)       GET /cves/{id}/references        (api/queries/references.ts)
 *   answer_enrichment(doc, body)       GET /cves/{id}/enrichment        (api/queries/enrichment.ts)
 *   answer_related_templates(doc, template)
 *   answer_related_briefs(doc, brief)  GET /cves/{id}/related           (api/queries/related.ts,
 *                                      with an unlimited reason budget: basis never `unknown` for time)
 *   answer_vendor_advisory(vendor, advisory_id, body)
 *                                      GET /vendor-advisories/{vendor}/{advisory_id}
 *                                      (api/queries/advisories.ts), under vendor and id as stored
 *
 * Each body is exactly the JSON.stringify of what the per-request function returns (the bytes
 * the route sends), for every CVE of `cves` (rejected ones too) and every advisory. A related
 * body is stored in two parts, since whole bodies come to gigabytes at full scale (up to 30
 * sibling briefs each): its template, whose entries name each sibling as `\x02<doc>\x03`, and
 * one brief per CVE; the replica splices them (api/snapshot/related-splice.ts), and that splice
 * is the body. The SQL is set-based, one step per file under sql/answers/; it runs against a
 * connection holding the snapshot tables as openSnapshot (api/snapshot/open.ts) serves them
 * (`cves` with `doc` and `id_rank`). A table named in `unreadableTables` (openSnapshot's) is
 * never read: the sections that need it are served empty and named in `failed_sections`, as
 * the endpoints do today.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { VENDOR_ADVISORY_TABLES } from '../../api/queries/advisories.ts';
import { SECTION_TABLES, unreadableSections } from '../../api/queries/enrichment.ts';
import { failedReferenceSections } from '../../api/queries/references.ts';
import { CWE_WINDOWING_FROM, CWE_WINDOWS_DAYS, RELATED_KEY_CAP, RELATED_LIST_MAX, SHARED_KEYS_SHOWN } from '../../api/queries/related.ts';
import { SHORT_TEXT_MAX } from '../../api/queries/support.ts';
import { lowercaseUnicodeEscapes } from './json-escapes.ts';
import { fillPlaceholders, SQL_DIR } from './sql-steps.ts';

const ANSWERS_SQL_DIR = join(SQL_DIR, 'answers');

/** The tables createAnswerTables creates: a JSON body (or a related template or brief) per row. */
export const ANSWER_TABLES = ['answer_references', 'answer_enrichment', 'answer_related_templates', 'answer_related_briefs', 'answer_vendor_advisory'] as const;
export type AnswerTable = (typeof ANSWER_TABLES)[number];

/** The column of each answer table that holds its JSON text. */
export const ANSWER_TEXT_COLUMN: Record<AnswerTable, string> = {
  answer_references: 'body',
  answer_enrichment: 'body',
  answer_related_templates: 'template',
  answer_related_briefs: 'brief',
  answer_vendor_advisory: 'body',
};

export interface AnswerOptions {
  /** Told the seconds each SQL file took (for the build's step log and benchmarks). */
  onStep?: (file: string, seconds: number) => void;
  /**
   * Called as soon as each answer table is complete, before the next is made: the caller may
   * write it out and drop it, so the answers of all endpoints never sit in memory together.
   */
  onTable?: (table: AnswerTable) => Promise<void>;
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

/** CVEs (docs) per batch of related templates: the working tables of a batch stay small. */
const RELATED_BATCH = 50_000;

/**
 * Creates the ANSWER_TABLES in the connection's default schema (see the header). Working
 * tables are TEMP and dropped at the end. answer_vendor_advisory is empty when advisories or advisory_cves cannot be read: the
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

  const done = async (table: AnswerTable) => {
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

  if (readable(['related_keys'])) {
    // related_keys.sql makes the briefs: no batch reads them, so they may go at once.
    await run('related_keys.sql');
    await done('answer_related_briefs');
    const [[first, past]] = (await connection.runAndReadAll(await answerSql('related_docs.sql'))).getRows() as [[number, number]];
    for (let from = first; from < past; from += RELATED_BATCH) await run('related_batch.sql', { from, to: from + RELATED_BATCH });
  } else {
    await run('related_unavailable.sql');
    await done('answer_related_briefs');
  }
  await done('answer_related_templates');

  await run(readable(VENDOR_ADVISORY_TABLES) ? 'vendor_advisory.sql' : 'vendor_advisory_unavailable.sql');
  await done('answer_vendor_advisory');

  await run('cleanup.sql');
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
 * `\u001f` (json-escapes.ts). The few texts of `table` holding such an escape are written again
 * with lower-case escapes: the bytes of the per-request answer. A related template or brief is
 * fixed apart from the pieces it is spliced with, which gives the fix of the whole body (each
 * piece starts and ends outside a JSON string).
 */
async function rewriteControlEscapes(connection: DuckDBConnection, table: AnswerTable, options: AnswerOptions): Promise<void> {
  const started = performance.now();
  const column = ANSWER_TEXT_COLUMN[table];
  const found = await connection.runAndReadAll(await answerSql('escapes_find.sql', { table, column }));
  const rows = found.getRows() as [bigint, string][];
  if (rows.length > 0) {
    await runAnswerFile(connection, 'escapes_table.sql', {}, options);
    const appender = await connection.createAppender('answer_escape_fixes', 'main', 'temp');
    for (const [rowId, text] of rows) {
      appender.appendBigInt(rowId);
      appender.appendVarchar(lowercaseUnicodeEscapes(text));
      appender.endRow();
    }
    appender.closeSync();
    await runAnswerFile(connection, 'escapes_apply.sql', { table, column }, options);
  }
  options.onStep?.(`escapes ${table} (${rows.length} rewritten)`, (performance.now() - started) / 1000);
}
