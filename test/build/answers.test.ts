/**
 * The precomputed answers (cli/build/answers.ts) against the per-request functions they
 * replace: for every CVE (rejected ones too) and every vendor advisory, the stored body must be
 * exactly the JSON.stringify the route sends today; a related body as the replica splices it
 * from its stored template and briefs (api/snapshot/related-splice.ts). On the bundled sample (plus rows added to
 * an in-memory copy: a CWE wide enough for same_cwe's publication windows, texts with control
 * characters, U+2028, quotes and astral characters), on a synthetic corpus of a few thousand
 * CVEs, and on damaged copies whose side tables could not be read.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findVendorAdvisory } from '../../api/queries/advisories.ts';
import { findCveEnrichment } from '../../api/queries/enrichment.ts';
import { findCveReferences } from '../../api/queries/references.ts';
import { findRelatedCves } from '../../api/queries/related.ts';
import { TableUnavailableError, type SnapshotReader } from '../../api/queries/support.ts';
import { openSnapshot, type OpenSnapshot } from '../../api/snapshot/open.ts';
import { spliceRelated, type BriefSource } from '../../api/snapshot/related-splice.ts';
import { ANSWER_TABLES, createAnswerTables } from '../../cli/build/answers.ts';
import { synthesize } from '../../cli/commands/synth.ts';
import { inMemoryCopy, openDamagedSample, openSampleCopy } from '../api/sample-reader.ts';
import { buildCorpus } from '../helpers/sample-snapshot.ts';

process.env.VULNINTEL_QUIET = '1';

/** Reasons for an empty related list are established in full, as at build time. */
const UNLIMITED = { reasonBudgetMs: 600_000 };

interface Comparison {
  cves: number;
  /** CVEs whose enrichment and references bodies were compared. */
  compared: number;
  /** CVEs whose related bodies were compared. */
  comparedRelated: number;
  advisories: number;
  /** `table key`, for each body that differs from today's answer (at most a few). */
  mismatches: string[];
  /** The related body of each CVE (by doc), spliced as the replica does. */
  related: Map<number, string>;
}

async function rows<T>(snapshot: OpenSnapshot, sql: string): Promise<T[]> {
  return (await snapshot.connection.runAndReadAll(sql)).getRows() as T[];
}

/** Runs `work` over `items` in lanes, each lane reading through a connection of its own. */
async function inLanes<T>(snapshot: OpenSnapshot, items: T[], work: (reader: SnapshotReader, item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    const connection = await snapshot.instance.connect();
    try {
      const reader: SnapshotReader = { connection, unreadableTables: snapshot.unreadableTables };
      while (next < items.length) await work(reader, items[next++]!);
    } finally {
      connection.closeSync();
    }
  };
  await Promise.all([lane(), lane()]);
}

/** The related bodies of answer_related_templates and answer_related_briefs, spliced as the replica does. */
async function relatedBodies(snapshot: OpenSnapshot): Promise<Map<number, string>> {
  const briefs = new Map((await rows<[number, string]>(snapshot, `SELECT doc, brief FROM answer_related_briefs`)).map(([doc, brief]) => [doc, Buffer.from(brief)]));
  const source: BriefSource = {
    lengthOf: (doc) => briefs.get(doc)?.length ?? 0,
    copyLine: (doc, out, at) => void briefs.get(doc)!.copy(out, at),
  };
  const templates = await rows<[number, string]>(snapshot, `SELECT doc, template FROM answer_related_templates`);
  return new Map(templates.map(([doc, template]) => [doc, spliceRelated(Buffer.from(template), source).toString('utf8')]));
}

/**
 * Stored bodies against the per-request answers of the same snapshot: related for every CVE or
 * those `pickRelated` keeps, enrichment and references for those `pick` keeps (by doc), and
 * every advisory.
 */
async function compareAll(
  snapshot: OpenSnapshot,
  pick: (doc: number) => boolean = () => true,
  pickRelated: (doc: number) => boolean = () => true,
): Promise<Comparison> {
  const mismatches: string[] = [];
  const check = (table: string, key: string, stored: string | undefined, today: unknown) => {
    const want = JSON.stringify(today);
    if (stored === want || mismatches.length >= 5) return;
    let at = 0;
    while (at < want.length && stored?.[at] === want[at]) at++;
    mismatches.push(`${table} ${key} at ${at}: stored …${stored?.slice(Math.max(0, at - 80), at + 80)}… today …${want.slice(Math.max(0, at - 80), at + 80)}…`);
  };
  const bodies = async (table: string) => new Map(await rows<[number, string]>(snapshot, `SELECT doc, body FROM ${table}`));
  const references = await bodies('answer_references');
  const enrichment = await bodies('answer_enrichment');
  const related = await relatedBodies(snapshot);
  const cves = await rows<[number, string]>(snapshot, `SELECT doc, cve_id FROM cves ORDER BY doc`);
  const compared = cves.filter(([doc]) => pick(doc) || pickRelated(doc));
  await inLanes(snapshot, compared, async (reader, [doc, id]) => {
    if (pick(doc)) {
      check('answer_references', id, references.get(doc), await findCveReferences(reader, id));
      check('answer_enrichment', id, enrichment.get(doc), await findCveEnrichment(reader, id));
    }
    if (pickRelated(doc)) check('related', id, related.get(doc), await findRelatedCves(reader, id, UNLIMITED));
  });
  for (const [table, map] of [['answer_references', references], ['answer_enrichment', enrichment], ['related', related]] as const) {
    if (map.size !== cves.length) mismatches.push(`${table} holds ${map.size} rows for ${cves.length} CVEs`);
  }
  const advisories = await rows<[string, string, string]>(snapshot, `SELECT vendor, advisory_id, body FROM answer_vendor_advisory`);
  await inLanes(snapshot, advisories, async (reader, [vendor, advisoryId, body]) => {
    check('answer_vendor_advisory', `${vendor}/${advisoryId}`, body, await findVendorAdvisory(reader, vendor, advisoryId));
  });
  return {
    cves: cves.length,
    compared: cves.filter(([doc]) => pick(doc)).length,
    comparedRelated: cves.filter(([doc]) => pickRelated(doc)).length,
    advisories: advisories.length,
    mismatches,
    related,
  };
}

async function count(snapshot: OpenSnapshot, sql: string): Promise<number> {
  return Number((await rows<[bigint | number]>(snapshot, sql))[0]![0]);
}

/** Texts JSON.stringify and DuckDB's to_json could write differently. */
const AWKWARD = 'tab\there, bell \u0007, \u000b\u001f\u007f, "quotes" \\ back\\u001F, line\u2028sep\u2029, é 漢 🦆, </script>';

describe('sample corpus, with rows added in memory', () => {
  let sample: OpenSnapshot;
  let result: Comparison;

  beforeAll(async () => {
    sample = await openSampleCopy();
    const c = sample.connection;
    // A CWE carried by 700 CVEs over two years: same_cwe reads publication windows for its CVEs
    // (entries then carry shared_keys before shared_count), except one published far from the rest.
    await c.run(`INSERT INTO cves (cve_id, doc, id_rank, published, last_modified, status, service_score, service_severity, score_assessed, severity, description, cwe_ids)
      SELECT 'CVE-2099-' || (10000 + i), 1000000 + i, 1000000 + i, TIMESTAMP '2097-01-01 12:00:00' + to_days(CAST(i AS INTEGER)), NULL, 'active',
             (i * 7 % 10) / 2.0, 'MEDIUM', true, 'MEDIUM', CASE WHEN i % 50 = 0 THEN '${AWKWARD.replaceAll("'", "''")} ' || repeat('long ', 60) ELSE 'synthetic sibling ' || i END, ['CWE-99999']
      FROM range(700) t(i)`);
    await c.run(`INSERT INTO cves (cve_id, doc, id_rank, published, status, service_score, service_severity, score_assessed, severity, description, cwe_ids)
      VALUES ('CVE-2099-30000', 2000000, 2000000, TIMESTAMP '2080-01-01 00:00:00', 'active', 10.0, 'CRITICAL', true, 'CRITICAL', 'far from the rest', ['CWE-99999']),
             ('CVE-2099-30001', 2000001, 2000001, NULL, 'active', 0.0, 'NONE', false, NULL, NULL, ['CWE-99999'])`);
    // id_rank as openSnapshot gives it: the position in cve_id DESC order.
    await c.run(`UPDATE cves SET id_rank = r.id_rank
      FROM (SELECT cve_id, CAST(row_number() OVER (ORDER BY cve_id DESC) - 1 AS INTEGER) AS id_rank FROM cves) r
      WHERE cves.cve_id = r.cve_id`);
    await c.run(`INSERT INTO related_keys SELECT cve_id, 'cwe', 'CWE-99999', 702, false, 1 FROM cves WHERE cve_id LIKE 'CVE-2099-%'`);
    await c.run(`INSERT INTO related_keys SELECT cve_id, 'product', 'pkg:test/wide', 15, false, 1 FROM cves WHERE cve_id BETWEEN 'CVE-2099-10000' AND 'CVE-2099-10014'`);
    await c.run(`INSERT INTO related_keys SELECT cve_id, 'advisory', 'test/ADV-1', 12, false, 1 FROM cves WHERE cve_id BETWEEN 'CVE-2099-10003' AND 'CVE-2099-10014'`);
    // A shared key holding control characters: the templates carry it (shared_keys).
    await c.run(`INSERT INTO related_keys SELECT cve_id, 'product', 'pkg:test/ctl\u001f\u000b\\u001F', 2, false, 2 FROM cves WHERE cve_id IN ('CVE-2099-10020', 'CVE-2099-10040')`);
    // Awkward texts where the answers copy them: a reference, an exploit, an advisory.
    await c.run(`INSERT INTO "references" (cve_id, url, name, tags, sources, is_patch, is_exploit, is_vendor_advisory, ghsa_id)
      VALUES ('CVE-2099-10000', 'https://example.com/a?b=''c''&\u0001', '${AWKWARD.replaceAll("'", "''")}', ['patch'], ['x'], true, true, false, '')`);
    await c.run(`INSERT INTO exploits (cve_id, source, exploit_id, url, title, published, verified)
      VALUES ('CVE-2099-10000', 'exploitdb', 'E-1', NULL, '${AWKWARD.replaceAll("'", "''")}', TIMESTAMP '1969-12-31 23:59:59.9995', NULL)`);
    await c.run(`INSERT INTO advisories (vendor, advisory_id, title, cvss_score, has_cve, cve_ids)
      VALUES ('test', 'ADV-1 (x)!*''~/é', '${AWKWARD.replaceAll("'", "''")}', 10.0, true, ['CVE-2099-10000'])`);
    await c.run(`INSERT INTO advisory_cves (vendor, advisory_id, cve_id, cvss_score, exploited) VALUES ('test', 'ADV-1 (x)!*''~/é', 'CVE-2099-10000', 0.1, NULL)`);
    await createAnswerTables(c, sample.unreadableTables);
    // Related of every CVE. Enrichment and references of every CVE of the sample; of the 702
    // added, every 20th (the awkward texts among them) and the last two.
    result = await compareAll(sample, (doc) => doc < 1_000_000 || doc % 20 === 0 || doc >= 2_000_000);
  });
  afterAll(() => sample?.close());

  it('gives every CVE and every advisory exactly today\'s body', () => {
    expect(result.mismatches).toEqual([]);
    expect(result.cves).toBeGreaterThan(700);
    expect(result.comparedRelated).toBe(result.cves);
    expect(result.advisories).toBeGreaterThan(0);
  });

  it('holds one row per CVE doc and per advisory', async () => {
    for (const table of ['answer_references', 'answer_enrichment', 'answer_related_templates', 'answer_related_briefs']) {
      expect(await count(sample, `SELECT count(DISTINCT doc) FROM ${table}`), table).toBe(result.cves);
      expect(await count(sample, `SELECT count(*) FROM ${table}`), table).toBe(result.cves);
    }
    expect(await count(sample, `SELECT count(*) FROM answer_vendor_advisory`)).toBe(await count(sample, `SELECT count(*) FROM advisories`));
  });

  it('covers both spellings of same_cwe entries, CVEs without siblings and the awkward texts', async () => {
    const bodies = [...result.related.values()];
    const [doc] = (await rows<[number]>(sample, `SELECT doc FROM cves WHERE cve_id = 'CVE-2099-10350'`))[0]!;
    expect(result.related.get(doc)).toContain('"days_apart":1,"shared_keys"');
    expect(bodies.filter((b) => b.includes('"shared_count":1,"shared_keys":["CWE-99999"]')).length).toBeGreaterThan(0);
    // Control characters in a brief (a description) and in a template (a shared key).
    expect(bodies.filter((b) => b.includes('\\u000b\\u001f')).length).toBeGreaterThan(0);
    expect(bodies.filter((b) => b.includes('"pkg:test/ctl\\u001f\\u000b\\\\u001F"')).length).toBe(2);
    // Rejected CVEs are answered too, and some CVEs list no sibling at all: their template is the body.
    expect(await count(sample, `SELECT count(*) FROM answer_related_templates WHERE NOT contains(template, chr(2))`)).toBeGreaterThan(0);
    expect(bodies.filter((b) => b.includes('"same_product":[],"same_vendor":[],"same_cwe":[]')).length).toBeGreaterThan(0);
    expect(await count(sample, `SELECT count(*) FROM cves WHERE status <> 'active'`)).toBeGreaterThan(0);
    // Only a CVE a list can name has a brief.
    expect(await count(sample, `SELECT count(*) FROM answer_related_briefs JOIN cves USING (doc) WHERE status <> 'active' AND brief <> ''`)).toBe(0);
  });

  it('leaves no working table behind', async () => {
    const left = await rows<[string]>(sample, `SELECT table_name FROM duckdb_tables() WHERE table_name LIKE 'answer%'`);
    expect(left.map(([t]) => t).sort()).toEqual([...ANSWER_TABLES].sort());
  });
});

describe('synthetic corpus of 3,000 CVEs', () => {
  let snapshot: OpenSnapshot;
  let result: Comparison;

  beforeAll(async () => {
    const raw = join(await mkdtemp(join(tmpdir(), 'answers-synth-')), 'raw');
    await synthesize({ cves: 3000, raw, seed: 'answers' });
    const { dataDir, result: build } = await buildCorpus(raw);
    snapshot = await inMemoryCopy(await openSnapshot(dataDir, build.buildId, { threads: 2, memoryLimit: '1GB' }));
    await createAnswerTables(snapshot.connection, snapshot.unreadableTables);
    // Related of every CVE; enrichment and references of one CVE in twelve, spread over the
    // publication order (each request costs tens of ms).
    result = await compareAll(snapshot, (doc) => doc % 12 === 0);
  }, 400_000);
  afterAll(() => snapshot?.close());

  it('gives the CVEs compared and every advisory exactly today\'s body', () => {
    expect(result.mismatches).toEqual([]);
    expect(result.cves).toBe(3000);
    expect(result.compared).toBe(250);
    expect(result.comparedRelated).toBe(3000);
    expect(result.advisories).toBeGreaterThan(100);
  });

  it('has full lists, capped shared keys and many references among them', async () => {
    const bodies = [...result.related.values()];
    expect(bodies.filter((b) => !b.includes('"basis":{"same_product":"ok","same_vendor":"ok","same_cwe":"ok"}')).length).toBeGreaterThan(0);
    expect(bodies.filter((b) => b.includes('"basis":{"same_product":"ok"')).length).toBeGreaterThan(100);
    expect(await count(snapshot, `SELECT max(len(regexp_extract_all(body, '"url"'))) FROM answer_references`)).toBeGreaterThan(5);
  });
});

describe('side tables that could not be read', () => {
  const cases = [
    ['references', 'related_keys', 'advisory_cves'],
    ['exploits', 'affected_packages', 'cwes', 'osv_advisories', 'advisories'],
  ];

  it.each(cases)('%s …: the same degraded bodies as today', async (...tables) => {
    const damaged = await inMemoryCopy(await openDamagedSample(tables));
    try {
      expect([...damaged.unreadableTables].sort()).toEqual([...tables].sort());
      await createAnswerTables(damaged.connection, damaged.unreadableTables);
      const result = await compareAll(damaged);
      expect(result.mismatches).toEqual([]);
      // Without advisories or advisory_cves the endpoint answers 503 for every advisory: no body.
      expect(result.advisories).toBe(0);
      await expect(findVendorAdvisory(damaged, 'redhat', 'RHSA-2026:9102')).rejects.toBeInstanceOf(TableUnavailableError);
      const failed = await count(damaged, `SELECT count(*) FROM answer_enrichment WHERE NOT contains(body, '"failed_sections":[]')`);
      expect(failed).toBe(result.cves);
      // Without related_keys every related list is empty and its basis unknown, as today.
      const unknown = [...result.related.values()].filter((b) => b.endsWith('"basis":{"same_product":"unknown","same_vendor":"unknown","same_cwe":"unknown"}}'));
      expect(unknown.length).toBe(tables.includes('related_keys') ? result.cves : 0);
    } finally {
      damaged.close();
    }
  });
});
