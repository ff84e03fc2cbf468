/**
 * Recent KEV additions (contract 4.11 `/kev/recent`) on the sample snapshot: the catalog of
 * 2026-11-20 with additions from 2022 to 2026-11-18.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listRecentKev, type KevRecent } from '../../api/queries/kev.ts';
import { TableUnavailableError } from '../../api/queries/support.ts';
import type { OpenSnapshot } from '../../api/snapshot/open.ts';
import { damagedSampleDataDir, openDamagedSample, openSample } from './sample-reader.ts';
import { startOn, startSampleServer, type SampleServer } from './server-harness.ts';

let sample: OpenSnapshot;
beforeAll(async () => {
  sample = await openSample();
});
afterAll(() => sample?.close());

describe('/kev/recent', () => {
  it('counts days back from the catalog date, newest addition first', async () => {
    const recent = await listRecentKev(sample, { days: 30, limit: 50, offset: 0 });
    expect(recent).toMatchObject({ as_of: '2026-11-20', days: 30, window_start: '2026-10-22', total: 4 });
    expect(recent.cves.map((k) => [k.cve_id, k.date_added])).toEqual([
      ['CVE-2026-90031', '2026-11-18'],
      ['CVE-2026-90106', '2026-11-12'],
      ['CVE-2026-90105', '2026-11-04'],
      ['CVE-2026-90101', '2026-10-28'],
    ]);
  });

  it('days=1 is the catalog day only; the window bound is inclusive', async () => {
    expect((await listRecentKev(sample, { days: 1, limit: 50, offset: 0 })).total).toBe(0);
    // 2026-11-20 back to 2026-11-18 inclusive is three days.
    expect((await listRecentKev(sample, { days: 3, limit: 50, offset: 0 })).cves.map((k) => k.cve_id)).toEqual(['CVE-2026-90031']);
    expect((await listRecentKev(sample, { days: 2, limit: 50, offset: 0 })).total).toBe(0);
  });

  it('without days: the newest `limit` additions of the whole catalog', async () => {
    const latest = await listRecentKev(sample, { limit: 6, offset: 0 });
    expect(latest).toMatchObject({ days: null, window_start: null, total: 12 });
    expect(latest.cves.map((k) => k.cve_id)).toEqual(['CVE-2026-90031', 'CVE-2026-90106', 'CVE-2026-90105', 'CVE-2026-90101', 'CVE-2026-90104', 'CVE-2024-49035']);
    const next = await listRecentKev(sample, { limit: 6, offset: 6 });
    expect(next.cves.at(-1)!.cve_id).toBe('CVE-2017-0144');
  });

  it('limit caps the window', async () => {
    const capped = await listRecentKev(sample, { days: 365, limit: 2, offset: 0 });
    expect(capped.total).toBe(5);
    expect(capped.cves).toHaveLength(2);
  });

  it('rows carry the catalog fields and the service score, severity and risk', async () => {
    const [zyxel] = (await listRecentKev(sample, { days: 30, limit: 1, offset: 0 })).cves;
    expect(zyxel).toMatchObject({
      cve_id: 'CVE-2026-90031',
      vendor_project: 'Zyxel',
      due_date: '2026-12-09',
      known_ransomware_campaign_use: 'Known',
      cwes: ['CWE-78'],
      service_score: 10,
      score_assessed: true,
      service_severity: 'CRITICAL',
      service_risk: expect.any(Number),
    });
    expect(zyxel!.required_action).toEqual(expect.any(String));
  });

  it('a damaged kev table is reported as unavailable', async () => {
    const damaged = await openDamagedSample(['kev']);
    try {
      await expect(listRecentKev(damaged, { limit: 5, offset: 0 })).rejects.toBeInstanceOf(TableUnavailableError);
    } finally {
      damaged.close();
    }
  });
});

describe('GET /api/v1/public/kev/recent', () => {
  let api: SampleServer;
  beforeAll(async () => {
    api = await startSampleServer();
  });
  afterAll(async () => {
    await api?.server.close();
  });
  const recent = (query: string) => api.json<KevRecent>(`/api/v1/public/kev/recent${query}`);

  it('defaults to 30 days; limit alone drops the window; both combine', async () => {
    expect((await recent('')).body).toMatchObject({ days: 30, total: 4, limit: 50 });
    const latest = (await recent('?limit=3')).body;
    expect(latest).toMatchObject({ days: null, total: 12 });
    expect(latest.cves).toHaveLength(3);
    const both = (await recent('?days=60&limit=2')).body;
    expect(both).toMatchObject({ days: 60, total: 5 });
    expect(both.cves.map((k) => k.cve_id)).toEqual(['CVE-2026-90031', 'CVE-2026-90106']);
  });

  it('400 naming days, limit or offset', async () => {
    for (const [query, parameter] of [
      ['?days=0', 'days'],
      ['?days=366', 'days'],
      ['?days=1.5', 'days'],
      ['?limit=201', 'limit'],
      ['?offset=-3', 'offset'],
    ] as const) {
      const { status, body } = await api.json(`/api/v1/public/kev/recent${query}`);
      expect(status, query).toBe(400);
      expect(body).toMatchObject({ code: 'INVALID_PARAMETER', parameter });
    }
  });

  it('503 when the kev table could not be read', async () => {
    const copy = await damagedSampleDataDir(['kev']);
    const damaged = await startOn(copy.dataDir, copy.buildId);
    try {
      const { status, body } = await damaged.json('/api/v1/public/kev/recent');
      expect(status).toBe(503);
      expect(body).toMatchObject({ code: 'SNAPSHOT_TABLE_UNAVAILABLE', table: 'kev' });
    } finally {
      await damaged.server.close();
    }
  });
});
