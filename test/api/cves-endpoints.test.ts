/**
 * The other `/cves` endpoints against a real server on the sample snapshot: the record by id,
 * the summary (with the live poller health), the trends, the NDJSON export (filters, cap,
 * streaming headers) and the vendor match.
 */
import { createHash } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ids, openSampleTruth, startSampleServer, type SampleServer, type SampleTruth } from './server-harness.ts';

let s: SampleServer;
let capped: SampleServer;
let truth: SampleTruth;

beforeAll(async () => {
  s = await startSampleServer();
  capped = await startSampleServer({ exportCap: 5 });
  truth = await openSampleTruth();
});

afterAll(async () => {
  truth?.close();
  await s?.server.close();
  await capped?.server.close();
});

describe('GET /cves/{id}', () => {
  it('is the snapshot record_json byte for byte, any case accepted', async () => {
    const [json] = await truth.column<string>(`SELECT record_json FROM cves WHERE cve_id = 'CVE-2024-3400'`);
    for (const id of ['CVE-2024-3400', 'cve-2024-3400', 'Cve-2024-3400']) {
      const res = await s.get(`/api/v1/public/cves/${id}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await res.text()).toBe(json);
      // The ETag is the SHA-1 of the bytes (stored by the build), so a 304 follows.
      expect(res.headers.get('etag')).toBe(`"${createHash('sha1').update(json!).digest('base64url')}"`);
      const again = await s.get(`/api/v1/public/cves/${id}`, { headers: { 'If-None-Match': res.headers.get('etag')! } });
      expect(again.status).toBe(304);
    }
  });

  it('serves rejected records, marked as such', async () => {
    const [id] = await truth.column<string>(`SELECT cve_id FROM cves WHERE status = 'rejected' LIMIT 1`);
    const { status, body } = await s.json<{ status: string; score_assessed: boolean; score_unassessed_reason: string }>(`/api/v1/public/cves/${id}`);
    expect(status).toBe(200);
    expect(body.status).toBe('rejected');
    expect(body.score_unassessed_reason).toBe('rejected');
  });

  it.each(['CVE-2024-1', 'CVE-24-3400', '2024-3400', 'CVE-2024-3400x', 'GHSA-22q7-cg4r-p9mx'])('malformed id %s is 400 naming id', async (id) => {
    const { status, body } = await s.json<{ code: string; parameter: string }>(`/api/v1/public/cves/${id}`);
    expect(status).toBe(400);
    expect(body).toMatchObject({ code: 'INVALID_PARAMETER', parameter: 'id' });
  });

  it('an unknown id is 404 NOT_FOUND', async () => {
    const { status, body } = await s.json<{ code: string }>('/api/v1/public/cves/CVE-1999-99999');
    expect(status).toBe(404);
    expect(body.code).toBe('NOT_FOUND');
  });
});

describe('GET /cves/summary', () => {
  it('is the build summary: buckets sum to total, NVD buckets beside them, snapshot and sources', async () => {
    const { status, body, res } = await s.json<Record<string, any>>('/api/v1/public/cves/summary');
    expect(status).toBe(200);
    const [row] = await truth.rows<Record<string, string>>(`SELECT * FROM summary`);
    for (const key of ['total', 'critical', 'high', 'medium', 'low', 'unscored', 'nvd_critical', 'nvd_high', 'nvd_medium', 'nvd_low', 'nvd_none', 'kev', 'rejected']) {
      expect(body[key], key).toBe(Number(row![key]));
    }
    expect(body.critical + body.high + body.medium + body.low + body.unscored).toBe(body.total);
    expect(body.nvd_critical + body.nvd_high + body.nvd_medium + body.nvd_low + body.nvd_none).toBe(body.total);
    expect(body.snapshot.build_id).toBe(res.headers.get('x-snapshot'));
    expect(body.sources.nvd.records).toBeGreaterThan(0);
    expect(body.sources.nvd.healthy).toBe(true);
    expect(res.headers.get('cache-control')).toBe('public, max-age=15');
  });

  it('reads the poller health live: not_running without the file, its fields and age with it', async () => {
    const path = join(s.dataDir, 'poller-health.json');
    await rm(path, { force: true });
    const before = await s.json<{ poller: { status: string } }>('/api/v1/public/cves/summary');
    expect(before.body.poller.status).toBe('not_running');
    const updated = new Date(Date.now() - 30_000).toISOString();
    await writeFile(path, JSON.stringify({ status: 'idle', pid: 1, last_success_at: updated, nvd_watermark: updated, lag_seconds: 120, updated_at: updated }));
    try {
      // Health is read at most once a second.
      await new Promise((r) => setTimeout(r, 1100));
      const after = await s.json<{ poller: Record<string, unknown> }>('/api/v1/public/cves/summary');
      expect(after.body.poller).toMatchObject({ status: 'idle', lag_seconds: 120, stale: false });
      expect(after.body.poller.age_seconds).toBeGreaterThanOrEqual(29);
    } finally {
      await rm(path, { force: true });
    }
  });
});

describe('GET /cves/trends', () => {
  it('gives 26 consecutive weeks and 24 months anchored at the newest publication week', async () => {
    const { status, body } = await s.json<Record<string, any>>('/api/v1/public/cves/trends');
    expect(status).toBe(200);
    const [anchor] = await truth.column<string>(
      `SELECT strftime(date_trunc('week', max(published)), '%Y-%m-%d') FROM cves WHERE status = 'active'`,
    );
    expect(body.anchor.week_start).toBe(anchor);
    expect(body.weekly).toHaveLength(26);
    expect(body.monthly).toHaveLength(24);
    expect(body.weekly.at(-1).period_start).toBe(anchor);
    for (let i = 1; i < body.weekly.length; i++) {
      const gap = Date.parse(body.weekly[i].period_start) - Date.parse(body.weekly[i - 1].period_start);
      expect(gap).toBe(7 * 86_400_000);
      expect(body.weekly[i].delta).toBe(body.weekly[i].total - body.weekly[i - 1].total);
    }
    // The volume shown equals the active CVEs published in the window.
    const [inWindow] = await truth.column<string>(
      `SELECT count(*) FROM cves WHERE status = 'active' AND published >= DATE '${body.weekly[0].period_start}'`,
    );
    const shown = body.weekly.reduce((n: number, w: { total: number }) => n + w.total, 0);
    expect(shown).toBe(Number(inWindow));
    expect(body.severity_distribution.total).toBe(shown);
    const d = body.severity_distribution;
    expect(d.critical + d.high + d.medium + d.low + d.unscored).toBe(d.total);
    // The anchor week is still running: the comparison uses the last complete week.
    expect(body.weekly.at(-1).complete).toBe(false);
    expect(body.week_over_week.week_start).toBe(body.weekly.at(-2).period_start);
    expect(body.week_over_week.delta).toBe(body.week_over_week.total - body.week_over_week.previous_total);
  });
});

describe('GET /cves/export.ndjson', () => {
  async function exportLines(server: SampleServer, query: string) {
    const res = await server.get(`/api/v1/public/cves/export.ndjson${query}`);
    const text = await res.text();
    return { res, lines: text === '' ? [] : text.replace(/\n$/, '').split('\n') };
  }

  it('streams one record JSON per line, newest first, with the export headers', async () => {
    const { res, lines } = await exportLines(s, '?year=2024');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    const expected = await truth.column<string>(`SELECT record_json FROM cves WHERE status = 'active' AND year = 2024 ORDER BY published DESC, cve_id DESC`);
    expect(lines).toEqual(expected);
    expect(res.headers.get('x-export-total')).toBe(String(expected.length));
    expect(res.headers.get('x-export-rows')).toBe(String(expected.length));
    expect(res.headers.get('x-export-cap')).toBe('50000');
    expect(res.headers.get('x-export-truncated')).toBe('false');
  });

  it('min_cvss matches the highest CVSS held: a v2-only 10.0 is exported', async () => {
    const { lines } = await exportLines(s, '?min_cvss=10');
    const exported = lines.map((l) => JSON.parse(l) as { cve_id: string; cvss_v3_score: number; cvss_v2_score: number });
    const v2ten = exported.filter((r) => r.cvss_v3_score === 0 && r.cvss_v2_score === 10);
    expect(v2ten.map((r) => r.cve_id)).toContain('CVE-2015-90051');
    const expected = await truth.column<string>(`SELECT cve_id FROM cves WHERE status = 'active' AND max_cvss >= 10 ORDER BY published DESC, cve_id DESC`);
    expect(exported.map((r) => r.cve_id)).toEqual(expected);
  });

  it('filters by severity (and basis) and kev_only', async () => {
    const svc = await exportLines(s, '?severity=critical&severity_basis=svc&kev_only=true');
    const expected = await truth.column<string>(
      `SELECT cve_id FROM cves WHERE status = 'active' AND service_severity = 'CRITICAL' AND in_kev ORDER BY published DESC, cve_id DESC`,
    );
    expect(svc.lines.map((l) => (JSON.parse(l) as { cve_id: string }).cve_id)).toEqual(expected);
    const bad = await s.json<{ code: string; parameter: string }>('/api/v1/public/cves/export.ndjson?severity=bad');
    expect(bad.status).toBe(400);
    expect(bad.body.parameter).toBe('severity');
  });

  it('stops at the cap and says so in its headers', async () => {
    const { res, lines } = await exportLines(capped, '');
    const [total] = await truth.column<string>(`SELECT count(*) FROM cves WHERE status = 'active'`);
    expect(lines).toHaveLength(5);
    expect(res.headers.get('x-export-cap')).toBe('5');
    expect(res.headers.get('x-export-rows')).toBe('5');
    expect(res.headers.get('x-export-total')).toBe(String(total));
    expect(res.headers.get('x-export-truncated')).toBe('true');
  });

  it('answers HEAD and If-None-Match without streaming', async () => {
    const head = await s.get('/api/v1/public/cves/export.ndjson?year=2024', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('x-export-total')).not.toBeNull();
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    const etag = head.headers.get('etag')!;
    expect(etag).toMatch(/^W\/"/);
    const again = await s.get('/api/v1/public/cves/export.ndjson?year=2024', { headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
    const other = await s.get('/api/v1/public/cves/export.ndjson?year=2023', { method: 'HEAD' });
    expect(other.headers.get('etag')).not.toBe(etag);
  });

  it('a client that disconnects mid-stream releases the snapshot', async () => {
    const controller = new AbortController();
    const res = await s.get('/api/v1/public/cves/export.ndjson', { signal: controller.signal });
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    await reader.cancel().catch(() => undefined);
    const snapshot = s.server.store.current!;
    const deadline = Date.now() + 5000;
    while (snapshot.inUse > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(snapshot.inUse).toBe(0);
  });
});

describe('GET /cves/match', () => {
  it('lists the CVEs of a vendor and product, spelled with spaces or underscores, any case', async () => {
    const expected = await truth.column<string>(
      `SELECT cve_id FROM cves WHERE status = 'active' AND cve_id IN (SELECT cve_id FROM products WHERE vendor_key = 'linux' AND product_key = 'linux_kernel') ORDER BY published DESC, cve_id DESC`,
    );
    expect(expected.length).toBeGreaterThan(1);
    for (const query of ['vendor=linux&product=linux_kernel', 'vendor=Linux&product=Linux%20Kernel']) {
      const { status, body } = await s.json<Record<string, any>>(`/api/v1/public/cves/match?${query}&limit=200`);
      expect(status).toBe(200);
      expect(ids(body)).toEqual(expected);
      expect(body).toMatchObject({ total: expected.length, total_counted: true, total_is_lower_bound: false, search_relaxed: false, reverse_available: false, vendor: 'linux', product: 'linux_kernel' });
    }
  });

  it('without product, every product of the vendor; pages like the list', async () => {
    const expected = await truth.column<string>(
      `SELECT cve_id FROM cves WHERE status = 'active' AND cve_id IN (SELECT cve_id FROM products WHERE vendor_key = 'linux') ORDER BY published DESC, cve_id DESC`,
    );
    const first = await s.json<Record<string, any>>('/api/v1/public/cves/match?vendor=linux&limit=2&skip_count=1');
    expect(ids(first.body)).toEqual(expected.slice(0, 2));
    expect(first.body.total_counted).toBe(false);
    const second = await s.json<Record<string, any>>(
      `/api/v1/public/cves/match?vendor=linux&limit=2&before_published=${encodeURIComponent(first.body.next_published)}&before_cve_id=${first.body.next_cve_id}`,
    );
    expect(ids(second.body)).toEqual(expected.slice(2, 4));
  });

  it("a CVE 5 entry's CPEs are vendor/products too: Red Hat's entries named for people are found by their CPE names", async () => {
    // CVE-2026-12544 and CVE-2026-96658 (real NVD records) name "Red Hat" / "Red Hat Satellite 6.16
    // for RHEL 8" and list cpe:/a:redhat:satellite:6.16::el8 and others; a scanner asks by CPE.
    const { status, body } = await s.json<Record<string, any>>('/api/v1/public/cves/match?vendor=redhat&product=satellite&limit=200');
    expect(status).toBe(200);
    expect(ids(body)).toEqual(['CVE-2026-96658', 'CVE-2026-12544']);
    const capsule = await s.json<Record<string, any>>('/api/v1/public/cves/match?vendor=redhat&product=satellite_capsule&limit=200');
    expect(ids(capsule.body)).toContain('CVE-2026-12544');
    // The names the CNA wrote still find them.
    const byName = await s.json<Record<string, any>>('/api/v1/public/cves/match?vendor=red%20hat&limit=200');
    expect(ids(byName.body)).toEqual(expect.arrayContaining(['CVE-2026-96658', 'CVE-2026-12544']));
  });

  it('an unknown vendor is an empty list; a missing vendor 400; reverse=true 400 naming reverse (the document allows only false here)', async () => {
    const none = await s.json<Record<string, any>>('/api/v1/public/cves/match?vendor=no_such_vendor');
    expect(none.status).toBe(200);
    expect(none.body.cves).toEqual([]);
    expect(none.body.total).toBe(0);
    const missing = await s.json<{ code: string; parameter: string }>('/api/v1/public/cves/match?product=linux_kernel');
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ code: 'INVALID_PARAMETER', parameter: 'vendor' });
    const reverse = await s.json<{ code: string; parameter: string }>('/api/v1/public/cves/match?vendor=linux&reverse=true');
    expect(reverse.status).toBe(400);
    expect(reverse.body).toMatchObject({ code: 'REVERSE_NOT_ALLOWED', parameter: 'reverse' });
  });
});
