/**
 * Related CVEs (contract 2.5) on the sample snapshot: every `basis` value of each list (the
 * cases of data/sample/expected.json, `unknown` with a forced budget), the order of each list
 * checked against a brute-force reading of `related_keys`, the 10-entry cap and the nearest-date
 * windows on siblings added to an in-memory copy, the first-50-keys cap.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  RELATED_KEY_CAP,
  RELATED_LIST_MAX,
  findRelatedCves,
  type RelatedCves,
  type RelatedListName,
} from '../../api/queries/related.ts';
import { OUT_OF_BUDGET, withinBudget } from '../../api/queries/support.ts';
import type { OpenSnapshot } from '../../api/snapshot/open.ts';
import { SAMPLE_RAW } from '../helpers/sample-snapshot.ts';
import { openDamagedSample, openSample, openSampleCopy } from './sample-reader.ts';
import { startSampleServer, type SampleServer } from './server-harness.ts';

const LISTS: RelatedListName[] = ['same_product', 'same_vendor', 'same_cwe'];
const expected = JSON.parse(readFileSync(join(SAMPLE_RAW, 'expected.json'), 'utf8')) as {
  cves: Record<string, { related?: Partial<Record<RelatedListName, string>> }>;
};

let sample: OpenSnapshot;
beforeAll(async () => {
  sample = await openSample();
});
afterAll(() => sample?.close());

/** The list as a plain reading of contract 2.5 over related_keys: no windows, no shortcuts. */
async function bruteForce(connection: DuckDBConnection, cveId: string, list: RelatedListName): Promise<string[]> {
  const kind = { same_product: 'product', same_vendor: 'advisory', same_cwe: 'cwe' }[list];
  const keyFilter = list === 'same_product' ? 'NOT m.too_common' : `m.key_rank <= ${RELATED_KEY_CAP}`;
  const order = {
    same_product: 'min(m.key_cve_count)',
    same_vendor: 'count(*) DESC',
    same_cwe: `abs(date_diff('day', CAST(c.published AS DATE), (SELECT CAST(published AS DATE) FROM cves WHERE cve_id = $1))) NULLS LAST`,
  }[list];
  const reader = await connection.runAndReadAll(
    `SELECT s.cve_id FROM related_keys m
     JOIN related_keys s ON s.kind = m.kind AND s.key = m.key AND s.cve_id <> m.cve_id
     JOIN cves c ON c.cve_id = s.cve_id
     WHERE m.cve_id = $1 AND m.kind = '${kind}' AND ${keyFilter} AND c.status = 'active'
     GROUP BY s.cve_id, c.published, c.service_score
     ORDER BY ${order}, c.service_score DESC, s.cve_id DESC
     LIMIT ${RELATED_LIST_MAX}`,
    [cveId],
  );
  return reader.getRowObjectsJson().map((r) => r.cve_id as string);
}

const ids = (r: RelatedCves, list: RelatedListName) => r[list].map((e) => e.cve_id);

describe('basis of each list (data/sample/expected.json)', () => {
  const cases = Object.entries(expected.cves).filter(([, v]) => v.related);

  it('covers every basis value but unknown for each list', () => {
    const seen = new Set(cases.flatMap(([, v]) => Object.entries(v.related!).map(([list, basis]) => `${list}:${basis}`)));
    for (const basis of ['ok', 'no_data', 'no_siblings']) for (const list of LISTS) expect(seen).toContain(`${list}:${basis}`);
    expect(seen).toContain('same_product:no_specific_key');
    expect(seen).toContain('same_vendor:capped');
    expect(seen).toContain('same_cwe:capped');
  });

  it.each(cases)('%s', async (cveId, { related }) => {
    const result = await findRelatedCves(sample, cveId);
    expect(result).not.toBeNull();
    for (const [list, basis] of Object.entries(related!)) {
      expect(result!.basis[list as RelatedListName], list).toBe(basis);
      expect(result![list as RelatedListName].length > 0, list).toBe(basis === 'ok');
    }
  });

  it('no_specific_key: a carrier of 8 CVEs (threshold 4) links nothing, though 7 CVEs share it', async () => {
    const result = (await findRelatedCves(sample, 'CVE-2026-90141'))!;
    expect(result.same_product).toEqual([]);
    const [row] = (await sample.connection.runAndReadAll(
      `SELECT key_cve_count, too_common FROM related_keys WHERE cve_id = 'CVE-2026-90141' AND key = 'cpe:linux:linux_kernel'`,
    )).getRowObjectsJson();
    expect(row).toEqual({ key_cve_count: 8, too_common: true });
  });

  it('capped: the only shared advisory / CWE is the 51st key, so the list stays empty', async () => {
    const vendor = (await findRelatedCves(sample, 'CVE-2026-90161'))!;
    expect(vendor.same_vendor).toEqual([]);
    expect(vendor.basis.same_vendor).toBe('capped');
    // Seen from the other side the same advisory is within the first 50: the link exists.
    expect(ids((await findRelatedCves(sample, 'CVE-2026-90162'))!, 'same_vendor')).toEqual(['CVE-2026-90161']);
    const cwe = (await findRelatedCves(sample, 'CVE-2026-90171'))!;
    expect(cwe.same_cwe).toEqual([]);
    expect(cwe.basis.same_cwe).toBe('capped');
    expect(ids((await findRelatedCves(sample, 'CVE-2026-90172'))!, 'same_cwe')).toEqual(['CVE-2026-90171']);
  });

  it('unknown: with no time for the reason, empty lists say unknown and every list is unchanged', async () => {
    for (const cveId of ['CVE-2026-90152', 'CVE-2026-90161', 'CVE-2026-90153', 'CVE-2026-90141']) {
      const full = (await findRelatedCves(sample, cveId))!;
      const rushed = (await findRelatedCves(sample, cveId, { reasonBudgetMs: 0 }))!;
      for (const list of LISTS) {
        expect(rushed[list]).toEqual(full[list]);
        expect(rushed.basis[list]).toBe(full[list].length > 0 ? 'ok' : 'unknown');
      }
    }
    const rushed = (await findRelatedCves(sample, 'CVE-2026-90152', { reasonBudgetMs: 0 }))!;
    expect(rushed.basis).toEqual({ same_product: 'unknown', same_vendor: 'unknown', same_cwe: 'unknown' });
  });

  it('unknown when the key table could not be loaded, instead of failing', async () => {
    const damaged = await openDamagedSample(['related_keys']);
    try {
      expect(damaged.unreadableTables.has('related_keys')).toBe(true);
      const result = (await findRelatedCves(damaged, 'CVE-2026-90153'))!;
      expect(result.basis).toEqual({ same_product: 'unknown', same_vendor: 'unknown', same_cwe: 'unknown' });
      expect([...result.same_product, ...result.same_vendor, ...result.same_cwe]).toEqual([]);
    } finally {
      damaged.close();
    }
  });
});

describe('the execution budget', () => {
  const slow = (ms: number) => new Promise<string>((resolve) => setTimeout(() => resolve('done'), ms));
  it('gives the result inside the budget and OUT_OF_BUDGET past it', async () => {
    expect(await withinBudget(500, () => slow(5))).toBe('done');
    expect(await withinBudget(10, () => slow(200))).toBe(OUT_OF_BUDGET);
    expect(await withinBudget(0, () => slow(0))).toBe(OUT_OF_BUDGET);
  });
  it('swallows a failure that arrives after the budget', async () => {
    const late = () => new Promise<string>((_, reject) => setTimeout(() => reject(new Error('late')), 30));
    expect(await withinBudget(5, late)).toBe(OUT_OF_BUDGET);
    await new Promise((r) => setTimeout(r, 50));
  });
});

describe('order and content on every sample CVE', () => {
  let all: RelatedCves[];
  beforeAll(async () => {
    const reader = await sample.connection.runAndReadAll(`SELECT cve_id FROM cves ORDER BY cve_id`);
    all = [];
    for (const { cve_id } of reader.getRowObjectsJson()) all.push((await findRelatedCves(sample, cve_id as string))!);
  });

  it('each list equals the brute-force reading of contract 2.5', async () => {
    for (const result of all) {
      for (const list of LISTS) expect(ids(result, list), `${result.cve_id} ${list}`).toEqual(await bruteForce(sample.connection, result.cve_id, list));
    }
    // The sample has populated lists of each kind, so the comparison above is not vacuous.
    for (const list of LISTS) expect(all.filter((r) => r[list].length > 0).length, list).toBeGreaterThan(1);
  });

  it('never lists a rejected CVE or the CVE itself', async () => {
    const rejected = new Set(
      (await sample.connection.runAndReadAll(`SELECT cve_id FROM cves WHERE status = 'rejected'`)).getRowObjectsJson().map((r) => r.cve_id as string),
    );
    expect(rejected.size).toBeGreaterThan(0);
    for (const result of all) {
      for (const list of LISTS) {
        for (const entry of result[list]) {
          expect(rejected.has(entry.cve_id)).toBe(false);
          expect(entry.cve_id).not.toBe(result.cve_id);
        }
      }
    }
  });

  it('entries carry the brief and their evidence; descriptions at most 200 characters', () => {
    const entries = all.flatMap((r) => LISTS.flatMap((l) => r[l]));
    expect(entries.length).toBeGreaterThan(20);
    for (const e of entries) {
      expect(e).toEqual(
        expect.objectContaining({
          cve_id: expect.stringMatching(/^CVE-\d{4}-\d+$/),
          published: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
          service_score: expect.any(Number),
          service_severity: expect.any(String),
          score_assessed: expect.any(Boolean),
          shared_count: expect.any(Number),
        }),
      );
      expect(e.shared_keys.length).toBeGreaterThan(0);
      expect(e.shared_keys.length).toBeLessThanOrEqual(e.shared_count);
      expect([...(e.description ?? '')].length).toBeLessThanOrEqual(200);
    }
    expect(entries.some((e) => e.description?.endsWith('…'))).toBe(true);
  });

  it('same_cwe: nearest day first, equal distances by service score (CVE-2026-90153)', () => {
    const result = all.find((r) => r.cve_id === 'CVE-2026-90153')!;
    const days = result.same_cwe.map((e) => e.days_apart);
    expect(days).toEqual([...days].sort((a, b) => a! - b!));
    const tied = result.same_cwe.filter((e) => e.days_apart === 28);
    expect(tied.map((e) => [e.cve_id, e.service_score])).toEqual([
      ['CVE-2026-90122', 6.1],
      ['CVE-2026-93463', 5.4],
    ]);
    expect(tied[0]!.shared_keys).toEqual(['CWE-79']);
  });

  it('same_product: most specific shared key first, its CVE count given', () => {
    const result = all.find((r) => r.cve_id === 'CVE-2026-90301')!;
    expect(result.same_product).toEqual([
      expect.objectContaining({ cve_id: 'CVE-2026-90302', key_cve_count: 2, shared_count: 2 }),
    ]);
    for (const r of all) {
      const counts = r.same_product.map((e) => e.key_cve_count);
      expect(counts).toEqual([...counts].sort((a, b) => a - b));
    }
  });
});

describe('cap of 10 and nearest-date windows (siblings added to an in-memory copy)', () => {
  const TARGET = 'CVE-2099-0001';
  const SIBLINGS = 700; // past the point where same_cwe reads publication windows
  const LONER = 'CVE-2099-30000'; // published a year before the first sibling
  let aug: OpenSnapshot;

  beforeAll(async () => {
    aug = await openSampleCopy();
    const c = aug.connection;
    // `doc` and `cwe_ids` as openSnapshot and the build give them (same_cwe windows read cwe_ids).
    await c.run(`INSERT INTO cves (cve_id, doc, published, status, service_score, service_severity, score_assessed, severity, description, cwe_ids)
      SELECT 'CVE-2099-' || (10000 + i), 1000000 + i, TIMESTAMP '2098-01-01 12:00:00' + to_days(CAST(i AS INTEGER)), 'active',
             (i * 7 % 10) / 2.0, 'MEDIUM', true, 'MEDIUM', 'synthetic sibling ' || i, ['CWE-99999']
      FROM range(${SIBLINGS}) t(i)`);
    await c.run(`INSERT INTO cves (cve_id, doc, published, status, service_score, service_severity, score_assessed, severity, description, cwe_ids) VALUES
      ('${TARGET}', 2000000, TIMESTAMP '2098-12-01 08:00:00', 'active', 5.0, 'MEDIUM', true, 'MEDIUM', 'synthetic target', ['CWE-99999']),
      ('CVE-2099-20000', 2000001, TIMESTAMP '2098-12-01 09:00:00', 'rejected', 0, 'NONE', false, 'NONE', 'rejected, same day', ['CWE-99999']),
      ('${LONER}', 2000002, TIMESTAMP '2097-01-01 10:00:00', 'active', 9.0, 'CRITICAL', true, 'CRITICAL', 'a year before the others', ['CWE-99999'])`);
    const keys = (kind: string, key: string, members: string, count: number) =>
      c.run(`INSERT INTO related_keys SELECT cve_id, '${kind}', '${key}', ${count}, false, 1 FROM (${members})`);
    const sib = (from: number, to: number) => `SELECT 'CVE-2099-' || (10000 + i) AS cve_id FROM range(${from}, ${to}) t(i)`;
    await keys('cwe', 'CWE-99999', `${sib(0, SIBLINGS)} UNION ALL SELECT '${TARGET}' UNION ALL SELECT 'CVE-2099-20000' UNION ALL SELECT '${LONER}'`, SIBLINGS + 3);
    await keys('product', 'pkg:test/wide', `${sib(0, 15)} UNION ALL SELECT '${TARGET}'`, 16);
    await keys('product', 'pkg:test/narrow', `${sib(20, 23)} UNION ALL SELECT '${TARGET}'`, 4);
    await keys('advisory', 'test/ADV-1', `${sib(0, 15)} UNION ALL SELECT '${TARGET}'`, 16);
    await keys('advisory', 'test/ADV-2', `${sib(5, 8)} UNION ALL SELECT '${TARGET}'`, 4);
  });
  afterAll(() => aug?.close());

  it('holds at most 10 entries per list, and the right 10', async () => {
    const result = (await findRelatedCves(aug, TARGET))!;
    for (const list of LISTS) {
      expect(result[list]).toHaveLength(RELATED_LIST_MAX);
      expect(ids(result, list), list).toEqual(await bruteForce(aug.connection, TARGET, list));
    }
    expect(result.basis).toEqual({ same_product: 'ok', same_vendor: 'ok', same_cwe: 'ok' });
  });

  it('same_product puts the siblings of the narrower package first, by score then id', async () => {
    const result = (await findRelatedCves(aug, TARGET))!;
    expect(result.same_product.slice(0, 3).map((e) => e.key_cve_count)).toEqual([4, 4, 4]);
    expect(result.same_product[3]!.key_cve_count).toBe(16);
    const head = result.same_product.slice(0, 3).map((e) => [e.service_score, e.cve_id] as const);
    expect(head).toEqual([...head].sort((a, b) => b[0] - a[0] || (a[1] < b[1] ? 1 : -1)));
  });

  it('same_vendor puts the siblings sharing two advisories first', async () => {
    const result = (await findRelatedCves(aug, TARGET))!;
    expect(result.same_vendor.slice(0, 3).map((e) => e.shared_count)).toEqual([2, 2, 2]);
    expect(new Set(result.same_vendor.slice(0, 3).map((e) => e.cve_id))).toEqual(new Set(['CVE-2099-10005', 'CVE-2099-10006', 'CVE-2099-10007']));
    expect(result.same_vendor.slice(3).every((e) => e.shared_count === 1)).toBe(true);
  });

  it('same_cwe takes the nearest publication days on both sides, without the rejected CVE', async () => {
    const result = (await findRelatedCves(aug, TARGET))!;
    // Target 2098-12-01; siblings one a day from 2098-01-01: nearest are 0, ±1, ±2 … days away.
    expect(result.same_cwe.map((e) => e.days_apart)).toEqual([0, 1, 1, 2, 2, 3, 3, 4, 4, 5]);
    expect(ids(result, 'same_cwe')).not.toContain('CVE-2099-20000');
    const days = new Date('2098-12-01').getTime();
    for (const e of result.same_cwe) expect(Math.abs(Date.parse(e.published!.slice(0, 10)) - days) / 86_400_000).toBe(e.days_apart);
  });

  it('widens the window until 10 siblings fall inside', async () => {
    // The first sibling is published 2098-01-01: its nearest are all later, up to 10 days away.
    const edge = (await findRelatedCves(aug, 'CVE-2099-10000'))!;
    expect(ids(edge, 'same_cwe')).toEqual(await bruteForce(aug.connection, 'CVE-2099-10000', 'same_cwe'));
    expect(edge.same_cwe.map((e) => e.days_apart)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    // Nothing within ±30 days, one sibling within ±365 (exactly 365 days later), ten within ±3650.
    const loner = (await findRelatedCves(aug, LONER))!;
    expect(loner.same_cwe.map((e) => e.days_apart)).toEqual([365, 366, 367, 368, 369, 370, 371, 372, 373, 374]);
    expect(ids(loner, 'same_cwe')).toEqual(await bruteForce(aug.connection, LONER, 'same_cwe'));
  });
});

describe('unknown CVE', () => {
  it('is null (the route answers 404)', async () => {
    expect(await findRelatedCves(sample, 'CVE-1900-0001')).toBeNull();
  });
});

describe('GET /api/v1/public/cves/{id}/related', () => {
  let api: SampleServer;
  let rushed: SampleServer;
  beforeAll(async () => {
    api = await startSampleServer();
    // The API's execution budget set to nothing: every reason is out of time.
    rushed = await startSampleServer({ queryBudgetMs: 0 });
  });
  afterAll(async () => {
    await api?.server.close();
    await rushed?.server.close();
  });

  it('answers the three lists and their basis, the id in any case', async () => {
    const { status, body, res } = await api.json<RelatedCves>('/api/v1/public/cves/cve-2026-90153/related');
    expect(status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(body.cve_id).toBe('CVE-2026-90153');
    expect(body.basis).toEqual({ same_product: 'ok', same_vendor: 'ok', same_cwe: 'ok' });
    expect(body).toEqual(await findRelatedCves(sample, 'CVE-2026-90153'));
    const capped = await api.json<RelatedCves>('/api/v1/public/cves/CVE-2026-90161/related');
    expect(capped.body.basis.same_vendor).toBe('capped');
  });

  it('gives the bytes of the data layer for every sample CVE (stored by the build vs per request)', async () => {
    const all = (await sample.connection.runAndReadAll(`SELECT cve_id FROM cves ORDER BY cve_id`)).getRowObjectsJson().map((r) => r.cve_id as string);
    let cut = 0;
    for (const cveId of all) {
      const res = await api.get(`/api/v1/public/cves/${cveId}/related`);
      const text = await res.text();
      expect(text, cveId).toBe(JSON.stringify(await findRelatedCves(sample, cveId)));
      const body = JSON.parse(text) as RelatedCves;
      cut += LISTS.flatMap((l) => body[l]).filter((e) => e.description?.endsWith('…')).length;
    }
    expect(cut).toBeGreaterThan(0);
  });

  it('gives every reason even when the budget leaves no time: the build stored the answer', async () => {
    const { status, body } = await rushed.json<RelatedCves>('/api/v1/public/cves/CVE-2026-90161/related');
    expect(status).toBe(200);
    expect(body.basis).toEqual({ same_product: 'ok', same_vendor: 'capped', same_cwe: 'ok' });
    expect(body.same_product.length).toBeGreaterThan(0);
    // The per-request query could not have said why in that time.
    expect((await findRelatedCves(sample, 'CVE-2026-90161', { reasonBudgetMs: 0 }))!.basis.same_vendor).toBe('unknown');
  });

  it('the pulse CVE page lists the stored answer', async () => {
    for (const cveId of ['CVE-2026-90153', 'CVE-2026-90161']) {
      const { body } = await api.json<RelatedCves>(`/api/v1/public/cves/${cveId}/related`);
      const page = await api.get(`/pulse/cves/${cveId}`);
      expect(page.status).toBe(200);
      const html = await page.text();
      for (const [list, id] of [['same_product', 'related-product'], ['same_vendor', 'related-vendor'], ['same_cwe', 'related-cwe']] as const) {
        const shown = new RegExp(`<ul id="${id}">(.*?)</ul>`, 's').exec(html)?.[1] ?? '';
        const listed = [...shown.matchAll(/href="\/pulse\/cves\/(CVE-[0-9-]+)"/g)].map((m) => m[1]);
        expect(listed, `${cveId} ${list}`).toEqual(ids(body, list));
      }
    }
  });

  it('404 NOT_FOUND for an unknown CVE, 400 INVALID_PARAMETER naming id for a malformed one', async () => {
    const missing = await api.json('/api/v1/public/cves/CVE-1900-0001/related');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: 'NOT_FOUND' });
    for (const bad of ['CVE-2024-1', 'not-a-cve', 'CVE-24-1234', "CVE-2024-1234'"]) {
      const r = await api.json(`/api/v1/public/cves/${encodeURIComponent(bad)}/related`);
      expect(r.status, bad).toBe(400);
      expect(r.body).toMatchObject({ code: 'INVALID_PARAMETER', parameter: 'id' });
    }
  });
});
