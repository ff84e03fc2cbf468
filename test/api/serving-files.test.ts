/**
 * Lean replicas (DESIGN §8.1): the serving files the build writes beside the Parquet, the
 * replica opening them instead of loading the Parquet, a snapshot without them derived once, and
 * the per-snapshot response cache.
 */
import { createHash } from 'node:crypto';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cacheKey, ResponseCache } from '../../api/http/response-cache.ts';
import { findVendorAdvisory } from '../../api/queries/advisories.ts';
import { findCveEnrichment } from '../../api/queries/enrichment.ts';
import { findCveReferences } from '../../api/queries/references.ts';
import { findRelatedCves } from '../../api/queries/related.ts';
import { openSnapshot, type OpenSnapshot } from '../../api/snapshot/open.ts';
import { RecordStore } from '../../api/snapshot/records.ts';
import { readDocColumns, startRecordsFile, writePostings, writeServingFiles } from '../../cli/build/serving.ts';
import { readFlatColumns } from '../../lib/flat-columns.ts';
import {
  readServingManifest,
  SERVING_ANSWER_LENGTHS,
  SERVING_COLUMNS,
  SERVING_DB,
  SERVING_IDS,
  SERVING_MANIFEST,
  SERVING_RECORD_DIGESTS,
  SERVING_RECORDS,
  SERVING_RELATED_BRIEFS,
  SERVING_RELATED_TEMPLATES,
  servingDir,
} from '../../lib/serving-layout.ts';
import { currentPointer, snapshotsDir, tableReader } from '../../lib/snapshot-layout.ts';
import { FlatPostings } from '../../api/snapshot/postings.ts';
import { buildCorpus } from '../helpers/sample-snapshot.ts';
import { damagedSampleDataDir, openDamagedSample, openSampleCopy } from './sample-reader.ts';
import { emptyDataDir, openSampleTruth, publishSampleCopy, startOn, startSampleServer, type SampleServer, type SampleTruth } from './server-harness.ts';

let truth: SampleTruth;
let snapshotDir: string;

beforeAll(async () => {
  const { dataDir, result } = await buildCorpus();
  snapshotDir = join(snapshotsDir(dataDir), result.buildId);
  truth = await openSampleTruth();
});

describe('serving files written by the build', () => {
  it('holds every record, in published order, byte for byte as the Parquet has it', async () => {
    const manifest = await readServingManifest(servingDir(snapshotDir));
    expect(manifest).not.toBeNull();
    const rows = await truth.rows<{ cve_id: string; record_json: string }>(
      `SELECT cve_id, record_json FROM cves ORDER BY published DESC, cve_id DESC`,
    );
    expect(manifest!.cves).toBe(rows.length);
    expect(manifest!.unreadable_tables).toEqual([]);
    const file = await readFile(join(servingDir(snapshotDir), SERVING_RECORDS));
    expect(file.length).toBe(manifest!.record_bytes);
    // Records holding '#' and '?' (which DuckDB's CSV writer would quote) are among them.
    expect(rows.some((r) => r.record_json.includes('#'))).toBe(true);
    const lines = file.toString('utf8').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toEqual(rows.map((r) => r.record_json));
    // Each record's SHA-1 (DuckDB's) is Node's of its bytes: the ETag a replica sends without hashing.
    const digests = await readFile(join(servingDir(snapshotDir), SERVING_RECORD_DIGESTS));
    expect(digests.length).toBe(20 * rows.length);
    rows.forEach((r, doc) => expect(digests.subarray(20 * doc, 20 * doc + 20).toString('hex'), r.cve_id).toBe(createHash('sha1').update(r.record_json).digest('hex')));
  });

  it('holds the search postings as flat files: every term found, its counts and docs as the tables have them', async () => {
    const postings = FlatPostings.open(servingDir(snapshotDir));
    try {
      const stats = await truth.rows<{ term: string; active_count: number; all_count: number }>(`SELECT term, active_count, all_count FROM search_term_stats ORDER BY term`);
      expect(stats.length).toBeGreaterThan(500);
      for (const { term, active_count, all_count } of stats) {
        expect(postings.count(term, 'active'), term).toBe(Number(active_count));
        expect(postings.count(term, 'all'), term).toBe(Number(all_count));
        expect(postings.count(term, 'rejected'), term).toBe(Number(all_count) - Number(active_count));
      }
      const served = await openSampleCopy();
      try {
        for (const { term } of stats.filter((_, i) => i % 7 === 0)) {
          const docs = (await served.connection.runAndReadAll(`SELECT doc FROM search_postings WHERE term_id = $1 ORDER BY doc`, [postings.termIndex(term)])).getColumns()[0]!.map(Number);
          expect(Array.from(postings.docs(term)), term).toEqual(docs);
        }
      } finally {
        served.close();
      }
      for (const absent of ['', 'zzzzzzzzzz', 'a\u0000', stats[0]!.term.slice(0, -1) + '\u0000']) {
        expect(postings.count(absent, 'all')).toBe(0);
        expect(postings.docs(absent)).toHaveLength(0);
      }
    } finally {
      postings.close();
    }
  });

  it('refuses postings not stored in term and doc order, or not where the counts put them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vulnintel-postings-'));
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    try {
      await connection.run(`ATTACH ':memory:' AS serving`);
      await connection.run(`CREATE TABLE serving_terms AS SELECT * FROM (VALUES ('alpha', 0, 3, 3), ('beta', 1, 2, 2)) t(term, term_id, all_count, active_count)`);
      const store = (rows: string) => connection.run(`CREATE OR REPLACE TABLE serving.search_postings AS SELECT CAST(t AS INTEGER) AS term_id, CAST(d AS INTEGER) AS doc, true AS active FROM (VALUES ${rows}) v(t, d)`);
      await store('(0, 1), (0, 4), (0, 9), (1, 0), (1, 4)');
      await writePostings(connection, dir);
      const postings = FlatPostings.open(dir);
      expect(Array.from(postings.docs('alpha'))).toEqual([1, 4, 9]);
      expect(Array.from(postings.docs('beta'))).toEqual([0, 4]);
      postings.close();
      await store('(0, 1), (0, 9), (0, 4), (1, 0), (1, 4)');
      await expect(writePostings(connection, dir)).rejects.toThrow(/postings: row 2 is \(term 0, doc 4\), expected term 0 after doc 9/);
      await store('(0, 1), (0, 4), (1, 0), (0, 9), (1, 4)');
      await expect(writePostings(connection, dir)).rejects.toThrow(/postings: row 2 is \(term 1, doc 0\), expected term 0/);
      await store('(0, 1), (0, 4), (0, 9), (1, 0)');
      await expect(writePostings(connection, dir)).rejects.toThrow(/wrote 4 docs, the terms count 5/);
    } finally {
      connection.closeSync();
      instance.closeSync();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('finds terms beyond ASCII: the dictionary is in DuckDB\'s byte order, searched by bytes', async () => {
    const terms = ['e', 'z', 'é', 'ä', 'straße', 'strasse', 'ω', 'Ω', '日本', '0', '9z', 'ǅ', '\u{1f600}'];
    const dir = await mkdtemp(join(tmpdir(), 'vulnintel-postings-'));
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    try {
      await connection.run(`ATTACH ':memory:' AS serving`);
      const literals = terms.map((t) => `('${t}')`).join(', ');
      // As sql/11_serving.sql leaves them: the terms numbered in DuckDB's order, the postings by number.
      await connection.run(`CREATE TABLE serving_terms AS SELECT term, CAST(row_number() OVER (ORDER BY term) - 1 AS INTEGER) AS term_id, 3 AS all_count, 2 AS active_count FROM (VALUES ${literals}) t(term)`);
      await connection.run(`CREATE TABLE serving.search_postings AS SELECT term_id, CAST(doc AS INTEGER) AS doc, doc % 2 = 0 AS active FROM serving_terms, range(3) d(doc) ORDER BY term_id, doc`);
      await writePostings(connection, dir);
      const postings = FlatPostings.open(dir);
      for (const term of terms) {
        expect(postings.count(term, 'all'), term).toBe(3);
        expect(postings.count(term, 'active'), term).toBe(2);
        expect(Array.from(postings.docs(term)), term).toEqual([0, 1, 2]);
      }
      expect(postings.count('straß', 'all')).toBe(0);
      postings.close();
    } finally {
      connection.closeSync();
      instance.closeSync();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('are the files a replica derives from the Parquet: every file byte for byte, every table row for row', async () => {
    // The build writes them from its own database, a replica from the snapshot's Parquet files:
    // one code path (cli/build/serving.ts) from two sources, which must give the same files.
    const target = await mkdtemp(join(tmpdir(), 'vulnintel-derived-'));
    try {
      await writeServingFiles(snapshotDir, { target: join(target, 'serving'), threads: 1 });
      const built = servingDir(snapshotDir);
      const derived = join(target, 'serving');
      const files = (await readdir(built)).sort();
      expect((await readdir(derived)).sort()).toEqual(files);
      for (const file of files) {
        if (file === SERVING_DB || file === SERVING_MANIFEST) continue;
        const [a, b] = await Promise.all([readFile(join(built, file)), readFile(join(derived, file))]);
        expect(a.equals(b), file).toBe(true);
      }
      const { seconds: _a, ...builtManifest } = (await readServingManifest(built))!;
      const { seconds: _b, ...derivedManifest } = (await readServingManifest(derived))!;
      expect(derivedManifest).toEqual(builtManifest);
      expect(await tableDigests(join(derived, SERVING_DB))).toEqual(await tableDigests(join(built, SERVING_DB)));
    } finally {
      await rm(target, { recursive: true, force: true });
    }
  });

  it('takes a records file written early only in doc order: one in another order is written again, sorted', async () => {
    // The build writes records.ndjson from its `cves` as held, beside its later steps
    // (startRecordsFile), and the serving step takes it when its ids are the docs' in order.
    // Here the build's `cves` are held by cve_id, not in doc order: the early file must be
    // set aside and the records written sorted, the same files as the build's.
    const target = await mkdtemp(join(tmpdir(), 'vulnintel-early-records-'));
    const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
    const connection = await instance.connect();
    const reader = await instance.connect();
    try {
      await connection.run(`CREATE TABLE cves AS SELECT * FROM ${tableReader(snapshotDir, 'cves')} ORDER BY cve_id`);
      for (const table of ['search_terms', 'search_docs']) await connection.run(`CREATE TABLE ${table} AS SELECT * FROM ${tableReader(snapshotDir, table)}`);
      const early = startRecordsFile(reader, join(target, 'early-records.ndjson'));
      const heldIds = (await early.written).ids!;
      expect(heldIds).toEqual([...heldIds].sort());
      const built = servingDir(snapshotDir);
      const builtIds = (await readFile(join(built, SERVING_IDS), 'utf8')).split('\n');
      expect(heldIds).not.toEqual(builtIds);
      const { dir } = await writeServingFiles(snapshotDir, { target: join(target, 'serving'), build: instance, records: early });
      for (const file of [SERVING_RECORDS, SERVING_RECORD_DIGESTS, SERVING_IDS, SERVING_COLUMNS]) {
        const [a, b] = await Promise.all([readFile(join(built, file)), readFile(join(dir, file))]);
        expect(a.equals(b), file).toBe(true);
      }
      // The early file was set aside, not left beside the snapshot.
      expect(await readdir(target)).toEqual(['serving']);
    } finally {
      reader.closeSync();
      connection.closeSync();
      instance.closeSync();
      await rm(target, { recursive: true, force: true });
    }
  });

  it('opens read-only with the records served from the file, by doc and by id', async () => {
    const { dataDir, result } = await buildCorpus();
    const a = await openSnapshot(dataDir, result.buildId, { threads: 1 });
    // A second replica opens the same files at the same time (read-only, no lock held).
    const b = await openSnapshot(dataDir, result.buildId, { threads: 1 });
    try {
      expect(a.derivedServingFiles).toBe(false);
      const records = RecordStore.open(a.servingDir, readDocColumns(a.servingDir));
      try {
        const rows = await truth.rows<{ cve_id: string; record_json: string }>(`SELECT cve_id, record_json FROM cves`);
        expect(records.size).toBe(rows.length);
        for (const row of rows) {
          const doc = records.docOf(row.cve_id);
          expect(doc).toBeTypeOf('number');
          expect(records.bytes(doc!).toString('utf8')).toBe(row.record_json);
          expect(records.cveIds[doc!]).toBe(row.cve_id);
        }
        expect(records.totalBytes).toBe(rows.reduce((n, r) => n + Buffer.byteLength(r.record_json), 0));
      } finally {
        records.close();
      }
      expect(() => records.bytes(0)).toThrow(/closed/);
      await expect(a.connection.run(`CREATE TABLE x AS SELECT 1`)).rejects.toThrow(/read-only/i);
      const count = (await b.connection.runAndReadAll(`SELECT count(*) FROM cves`)).getRows()[0]![0];
      expect(Number(count)).toBe((await truth.rows(`SELECT 1 FROM cves`)).length);
    } finally {
      a.close();
      b.close();
    }
  });
});

describe('answers stored by the build, served as they are', () => {
  let s: SampleServer;
  let reader: OpenSnapshot;
  beforeAll(async () => {
    s = await startSampleServer();
    reader = await openSampleCopy();
  });
  afterAll(async () => {
    reader?.close();
    await s?.server.close();
  });

  it('enrichment and references of every CVE are the bytes the per-request queries give', async () => {
    const ids = await truth.column<string>(`SELECT cve_id FROM cves ORDER BY cve_id`);
    for (const id of ids) {
      const expected = {
        enrichment: JSON.stringify(await findCveEnrichment(reader, id)),
        references: JSON.stringify(await findCveReferences(reader, id)),
      };
      for (const [kind, body] of Object.entries(expected)) {
        const res = await fetch(`${s.base}/api/v1/public/cves/${id}/${kind}`);
        expect(res.status, `${id} ${kind}`).toBe(200);
        expect(await res.text(), `${id} ${kind}`).toBe(body);
      }
    }
  });

  it('related of every CVE is the bytes the per-request query gives, reasons established', async () => {
    const ids = await truth.column<string>(`SELECT cve_id FROM cves ORDER BY cve_id`);
    const basis = new Set<string>();
    for (const id of ids) {
      // The build establishes every reason: the per-request query without a budget.
      const expected = await findRelatedCves(reader, id, { reasonBudgetMs: 600_000 });
      const res = await fetch(`${s.base}/api/v1/public/cves/${id.toLowerCase()}/related`);
      expect(res.status, id).toBe(200);
      expect(await res.text(), id).toBe(JSON.stringify(expected));
      for (const b of Object.values(expected!.basis)) basis.add(b);
    }
    expect([...basis].sort()).toEqual(['capped', 'no_data', 'no_siblings', 'no_specific_key', 'ok']);
    for (const id of ['CVE-1900-0001', 'CVE-2026-99999']) {
      const missing = await s.get(`/api/v1/public/cves/${id}/related`);
      expect(missing.status, id).toBe(404);
    }
  });

  it('related is stored as a template per CVE and a brief per CVE a list can name', async () => {
    const dir = servingDir(snapshotDir);
    const lengths = readFlatColumns(join(dir, SERVING_ANSWER_LENGTHS)) as Record<string, Uint32Array>;
    const cves = (await readServingManifest(dir))!.cves;
    for (const [file, column] of [[SERVING_RELATED_TEMPLATES, 'related_template_bytes'], [SERVING_RELATED_BRIEFS, 'related_brief_bytes']] as const) {
      const text = await readFile(join(dir, file), 'utf8');
      const lines = text.split('\n');
      expect(lines.pop(), file).toBe('');
      expect(lines.length, file).toBe(cves);
      expect(lines.map((l) => Buffer.byteLength(l)), file).toEqual([...lengths[column]!]);
    }
    const templates = (await readFile(join(dir, SERVING_RELATED_TEMPLATES), 'utf8')).split('\n');
    // Siblings are named by doc, never copied: no template holds a sibling's brief.
    expect(templates.filter((t) => t.includes('\u0002')).length).toBeGreaterThan(0);
    expect(templates.filter((t) => t.includes('"description"')).length).toBe(0);
    const briefs = (await readFile(join(dir, SERVING_RELATED_BRIEFS), 'utf8')).split('\n');
    expect(briefs.filter((b) => b === '').length).toBeGreaterThan(1);
    expect(briefs.filter((b) => b.startsWith('{"cve_id":"CVE-') && !b.endsWith('}')).length).toBeGreaterThan(0);
  });

  it('every vendor advisory, asked in any case, is the bytes the per-request query gives', async () => {
    const advisories = await truth.rows<{ vendor: string; advisory_id: string }>(`SELECT vendor, advisory_id FROM advisories`);
    expect(advisories.length).toBeGreaterThan(10);
    for (const { vendor, advisory_id } of advisories) {
      const expected = JSON.stringify(await findVendorAdvisory(reader, vendor, advisory_id));
      for (const [v, id] of [[vendor, advisory_id], [vendor.toUpperCase(), advisory_id.toLowerCase()]] as const) {
        const res = await fetch(`${s.base}/api/v1/public/vendor-advisories/${encodeURIComponent(v)}/${encodeURIComponent(id)}`);
        expect(res.status, `${v}/${id}`).toBe(200);
        expect(await res.text(), `${v}/${id}`).toBe(expected);
      }
    }
    const missing = await s.get('/api/v1/public/vendor-advisories/redhat/RHSA-1999%3A0001');
    expect(missing.status).toBe(404);
  });
});

describe('a snapshot whose related_keys could not be read', () => {
  it('answers related of every CVE as the per-request query does: empty lists, basis unknown', async () => {
    const { dataDir, buildId } = await damagedSampleDataDir(['related_keys']);
    const s = await startOn(dataDir, buildId);
    const reader = await openDamagedSample(['related_keys']);
    try {
      expect(reader.unreadableTables.has('related_keys')).toBe(true);
      const ids = await truth.column<string>(`SELECT cve_id FROM cves ORDER BY cve_id`);
      for (const id of ids) {
        const expected = await findRelatedCves(reader, id);
        expect(expected!.basis).toEqual({ same_product: 'unknown', same_vendor: 'unknown', same_cwe: 'unknown' });
        const res = await fetch(`${s.base}/api/v1/public/cves/${id}/related`);
        expect(res.status, id).toBe(200);
        expect(await res.text(), id).toBe(JSON.stringify(expected));
      }
      expect((await s.get('/api/v1/public/cves/CVE-1900-0001/related')).status).toBe(404);
    } finally {
      reader.close();
      await s.server.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('a snapshot published without serving files', () => {
  let dataDir: string;
  beforeAll(async () => {
    const { dataDir: sampleDir, result } = await buildCorpus();
    dataDir = await mkdtemp(join(tmpdir(), 'vulnintel-serving-'));
    await cp(join(snapshotsDir(sampleDir), result.buildId), join(snapshotsDir(dataDir), result.buildId), { recursive: true });
    await rm(servingDir(join(snapshotsDir(dataDir), result.buildId)), { recursive: true });
    await cp(currentPointer(sampleDir), currentPointer(dataDir));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('has them derived once at open, then served like a built one', async () => {
    const { result } = await buildCorpus();
    const dir = join(snapshotsDir(dataDir), result.buildId);
    const first = await openSnapshot(dataDir, result.buildId, { threads: 1 });
    first.close();
    expect(first.derivedServingFiles).toBe(true);
    const built = await stat(join(servingDir(dir), SERVING_DB));
    const again = await openSnapshot(dataDir, result.buildId, { threads: 1 });
    again.close();
    expect(again.derivedServingFiles).toBe(false);
    expect((await stat(join(servingDir(dir), SERVING_DB))).mtimeMs).toBe(built.mtimeMs);
    const s = await startOn(dataDir, result.buildId);
    try {
      const served = await s.get('/api/v1/public/cves/CVE-2024-3400');
      expect(served.status).toBe(200);
      const [row] = await truth.rows<{ record_json: string }>(`SELECT record_json FROM cves WHERE cve_id = 'CVE-2024-3400'`);
      expect(await served.text()).toBe(row!.record_json);
    } finally {
      await s.server.close();
    }
  });
});

describe('serving files derived by two replicas at once', () => {
  let dataDir: string;
  let dir: string;
  beforeEach(async () => {
    const { dataDir: sampleDir, result } = await buildCorpus();
    dataDir = await mkdtemp(join(tmpdir(), 'vulnintel-serving-twice-'));
    dir = join(snapshotsDir(dataDir), result.buildId);
    await cp(join(snapshotsDir(sampleDir), result.buildId), dir, { recursive: true });
    await rm(servingDir(dir), { recursive: true });
  });
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  /** The snapshot folder holds `serving/` whole, as the build wrote it, and no work folder is left. */
  async function expectOneWholeFolder(): Promise<void> {
    expect((await readdir(dir)).filter((name) => name.startsWith('serving'))).toEqual(['serving']);
    const built = servingDir(snapshotDir);
    const files = (await readdir(built)).sort();
    expect((await readdir(servingDir(dir))).sort()).toEqual(files);
    for (const file of files) {
      if (file === SERVING_DB || file === SERVING_MANIFEST) continue;
      expect((await readFile(join(servingDir(dir), file))).equals(await readFile(join(built, file))), file).toBe(true);
    }
  }

  it('both get the one folder that won, whole (in one process they shared a work folder and one failed)', async () => {
    const [a, b] = await Promise.allSettled([writeServingFiles(dir, { threads: 1 }), writeServingFiles(dir, { threads: 1 })]);
    expect(a.status, a.status === 'rejected' ? String(a.reason) : '').toBe('fulfilled');
    expect(b.status, b.status === 'rejected' ? String(b.reason) : '').toBe('fulfilled');
    const kept = await readServingManifest(servingDir(dir));
    for (const result of [a, b]) {
      if (result.status !== 'fulfilled') continue;
      expect(result.value.dir).toBe(servingDir(dir));
      expect(result.value.manifest).toEqual(kept);
    }
    await expectOneWholeFolder();
    const opened = await openSnapshot(dataDir, basename(dir), { threads: 1 });
    opened.close();
    expect(opened.derivedServingFiles).toBe(false);
  });

  it('replace a folder of an older format, and leave nothing of it', async () => {
    await mkdir(servingDir(dir));
    await writeFile(join(servingDir(dir), SERVING_MANIFEST), JSON.stringify({ format: 1, unreadable_tables: [], cves: 1, record_bytes: 1, seconds: 0 }));
    await writeFile(join(servingDir(dir), 'cves.arrow'), 'old');
    const opened = await openSnapshot(dataDir, basename(dir), { threads: 1 });
    opened.close();
    expect(opened.derivedServingFiles).toBe(true);
    await expectOneWholeFolder();
  });
});

describe('response cache', () => {
  it('evicts the least recently used answers past its byte bound, and never keeps an oversized one', () => {
    const cache = new ResponseCache(90, 40);
    const answer = (n: number) => ({ body: new Uint8Array(n), etag: `"${n}"`, contentType: 'application/json', headers: {} });
    cache.set('/a', answer(30));
    cache.set('/b', answer(30));
    cache.get('/a'); // /b is now the least recently used
    cache.set('/c', answer(30));
    expect(cache.get('/b')).toBeUndefined();
    expect(cache.get('/a')?.etag).toBe('"30"');
    expect(cache.get('/c')).toBeDefined();
    expect(cache.totalBytes).toBeLessThanOrEqual(90);
    cache.set('/big', answer(41));
    expect(cache.get('/big')).toBeUndefined();
  });

  it('keys a query by its parameters in name order, repeats in the order sent', () => {
    expect(cacheKey('http://h/api/v1/public/cves?severity=HIGH&limit=5')).toBe(cacheKey('http://h/api/v1/public/cves?limit=5&severity=HIGH'));
    expect(cacheKey('http://h/x?a=1&a=2')).not.toBe(cacheKey('http://h/x?a=2&a=1'));
    expect(cacheKey('http://h/x')).toBe('/x');
  });

  describe('on a server', () => {
    let s: SampleServer;
    beforeAll(async () => {
      s = await startSampleServer();
    });
    afterAll(() => s.server.close());

    it('answers a repeated query from the cache with the same bytes, headers and conditional answers', async () => {
      const cache = s.server.store.current!.responses;
      const path = '/api/v1/public/cves?severity=HIGH,CRITICAL&limit=5';
      const before = cache.size;
      const first = await s.get(path);
      const firstBody = await first.text();
      expect(cache.size).toBe(before + 1);
      const second = await s.get('/api/v1/public/cves?limit=5&severity=HIGH,CRITICAL');
      expect(cache.size).toBe(before + 1);
      expect(await second.text()).toBe(firstBody);
      for (const name of ['etag', 'content-type', 'cache-control', 'content-length', 'x-snapshot', 'access-control-allow-origin']) {
        expect(second.headers.get(name), name).toBe(first.headers.get(name));
      }
      const revalidated = await s.get(path, { headers: { 'If-None-Match': first.headers.get('etag')! } });
      expect(revalidated.status).toBe(304);
      expect(await revalidated.text()).toBe('');
      expect(revalidated.headers.get('access-control-allow-origin')).toBe('*');
    });

    it('keeps no errors, no live answers and no streams', async () => {
      const cache = s.server.store.current!.responses;
      const before = cache.size;
      expect((await s.get('/api/v1/public/cves?severity=LOUD')).status).toBe(400);
      expect((await s.get('/api/v1/public/cves/CVE-2099-9999')).status).toBe(404);
      expect((await s.get('/api/v1/public/cves/summary')).status).toBe(200);
      const exported = await s.get('/api/v1/public/cves/export.ndjson?year=2024');
      await exported.text();
      expect(cache.size).toBe(before);
    });
  });

  it('keeps no answer the execution budget shaped (a relaxed phrase search, an uncounted total)', async () => {
    const s = await startSampleServer({ queryBudgetMs: 0 });
    try {
      const cache = s.server.store.current!.responses;
      const phrase = await s.json<{ search_relaxed: boolean }>('/api/v1/public/cves?search=%22remote%20code%22');
      expect(phrase.status).toBe(200);
      expect(phrase.body.search_relaxed).toBe(true);
      const filtered = await s.json<{ total_counted: boolean; total_is_lower_bound: boolean }>('/api/v1/public/cves?severity=HIGH&limit=1');
      expect(filtered.body.total_counted && !filtered.body.total_is_lower_bound).toBe(false);
      expect(cache.size).toBe(0);
      // Nor does a browser or a CDN (they kept it for five minutes): revalidated, by its ETag.
      for (const shaped of [phrase, filtered]) {
        expect(shaped.res.headers.get('cache-control')).toBe('no-cache');
        expect(shaped.res.headers.get('etag')).toMatch(/^"/);
      }
      // Answers the budget did not touch are kept as usual; stored records are sent as they are.
      const whole = await s.get('/api/v1/public/cves?limit=2');
      expect(whole.status).toBe(200);
      expect(whole.headers.get('cache-control')).toBe('public, max-age=300');
      expect(cache.size).toBe(1);
      expect((await s.get('/api/v1/public/cves/CVE-2024-3400')).status).toBe(200);
      expect((await s.get('/api/v1/public/cves/CVE-2024-3400/references')).status).toBe(200);
      expect(cache.size).toBe(1);
    } finally {
      await s.server.close();
    }
  });

  it('is per snapshot: after a swap the new snapshot answers, not the old one\'s cache', async () => {
    const dataDir = await emptyDataDir();
    await publishSampleCopy(dataDir, '20260101T000000Z-aaaa');
    const s = await startOn(dataDir, '20260101T000000Z-aaaa');
    try {
      const first = await s.get('/api/v1/public/cves?limit=3');
      expect(first.headers.get('x-snapshot')).toBe('20260101T000000Z-aaaa');
      await publishSampleCopy(dataDir, '20260102T000000Z-bbbb');
      const deadline = Date.now() + 20_000;
      while (s.server.store.current?.buildId !== '20260102T000000Z-bbbb') {
        if (Date.now() > deadline) throw new Error('no swap');
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(s.server.store.current.responses.size).toBe(0);
      const after = await s.get('/api/v1/public/cves?limit=3');
      expect(after.headers.get('x-snapshot')).toBe('20260102T000000Z-bbbb');
      expect(s.server.store.current.responses.size).toBe(1);
    } finally {
      await s.server.close();
    }
  });
});

/** Each table of a serving database: its columns with their types, and its rows in stored order. */
async function tableDigests(path: string): Promise<Record<string, { columns: string; rows: number; digest: string }>> {
  const instance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  const connection = await instance.connect();
  try {
    const out: Record<string, { columns: string; rows: number; digest: string }> = {};
    const tables = (await connection.runAndReadAll(`SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' ORDER BY 1`)).getRows();
    for (const [table] of tables as [string][]) {
      const [columns] = (await connection.runAndReadAll(`SELECT string_agg(column_name || ' ' || column_type, ', ') FROM (DESCRIBE "${table}")`)).getRows()[0] as [string];
      const [rows, digest] = (await connection.runAndReadAll(
        `SELECT count(*), md5(coalesce(string_agg(CAST(x AS VARCHAR), chr(10) ORDER BY n), '')) FROM (SELECT row_number() OVER () AS n, x FROM "${table}" x)`,
      )).getRows()[0] as [bigint, string];
      out[table] = { columns, rows: Number(rows), digest };
    }
    expect(Object.keys(out).length).toBeGreaterThan(10);
    return out;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
