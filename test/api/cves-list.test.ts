/**
 * `GET /api/v1/public/cves` against a real server on the sample snapshot (contract 2.3, 4.1;
 * DESIGN §6): every parameter, every 400, the reverse rules, keyset and skip_count paging,
 * and each boolean of the list response in each state. Expected rows come from SQL over the
 * snapshot's own Parquet files.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ids, openSampleTruth, startSampleServer, type SampleServer, type SampleTruth } from './server-harness.ts';

interface ListBody {
  cves: { cve_id: string; severity: string; service_severity: string; max_cvss: number | null; kev: boolean; status: string; published: string; last_modified: string; epss_score: number | null; service_score: number; cvss_v3_score: number }[];
  total: number;
  total_is_lower_bound: boolean;
  total_counted: boolean;
  search_relaxed: boolean;
  reverse_available: boolean;
  reverse?: boolean;
  next_published?: string | null;
  next_cve_id?: string | null;
}

let s: SampleServer;
let truth: SampleTruth;
let activeOrder: string[];

beforeAll(async () => {
  s = await startSampleServer();
  truth = await openSampleTruth();
  activeOrder = await truth.column<string>(`SELECT cve_id FROM cves WHERE status = 'active' ORDER BY published DESC, cve_id DESC`);
});

afterAll(async () => {
  truth?.close();
  await s?.server.close();
});

const list = (query: string) => s.json<ListBody>(`/api/v1/public/cves${query}`);

async function expect400(query: string, code: string, parameter: string) {
  const { status, body } = await s.json<{ code: string; parameter: string; message: string }>(`/api/v1/public/cves${query}`);
  expect(status, query).toBe(400);
  expect(body.code, query).toBe(code);
  expect(body.parameter, query).toBe(parameter);
  expect(body.message.length).toBeGreaterThan(0);
}

describe('default listing', () => {
  it('is the newest 50 active CVEs, counted exactly, with every boolean of 2.3', async () => {
    expect(activeOrder.length).toBeGreaterThan(50);
    const { status, body } = await list('');
    expect(status).toBe(200);
    expect(ids(body)).toEqual(activeOrder.slice(0, 50));
    expect(body.total).toBe(activeOrder.length);
    expect(body.total_counted).toBe(true);
    expect(body.total_is_lower_bound).toBe(false);
    expect(body.search_relaxed).toBe(false);
    expect(body.reverse_available).toBe(true);
    expect(body).not.toHaveProperty('reverse');
    expect(body).not.toHaveProperty('next_published');
    expect(body).not.toHaveProperty('next_cve_id');
  });

  it('each record is the snapshot record_json byte for byte', async () => {
    const res = await s.get('/api/v1/public/cves?limit=3');
    const text = await res.text();
    const jsons = await truth.column<string>(
      `SELECT record_json FROM cves WHERE cve_id IN (${activeOrder.slice(0, 3).map((i) => `'${i}'`).join(',')}) ORDER BY published DESC, cve_id DESC`,
    );
    expect(text.startsWith(`{"cves":[${jsons.join(',')}],`)).toBe(true);
  });

  it('limit and offset page through the same order', async () => {
    const { body } = await list('?limit=7&offset=10');
    expect(ids(body)).toEqual(activeOrder.slice(10, 17));
    expect(body.total).toBe(activeOrder.length);
    const past = await list(`?offset=${activeOrder.length + 5}`);
    expect(past.body.cves).toEqual([]);
    expect(past.body.total).toBe(activeOrder.length);
  });

  it('status: active hides rejected CVEs, rejected shows only them, all shows both', async () => {
    const rejected = await truth.column<string>(`SELECT cve_id FROM cves WHERE status = 'rejected' ORDER BY published DESC, cve_id DESC`);
    expect(rejected.length).toBeGreaterThan(0);
    const active = await list('?limit=200');
    expect(ids(active.body).filter((i) => rejected.includes(i))).toEqual([]);
    const only = await list('?status=rejected&limit=200');
    expect(ids(only.body)).toEqual(rejected);
    expect(only.body.total).toBe(rejected.length);
    const all = await list('?status=ALL&limit=200');
    expect(all.body.total).toBe(activeOrder.length + rejected.length);
  });
});

describe('parameters that are malformed are 400 INVALID_PARAMETER naming them', () => {
  it.each([
    ['?limit=0', 'limit'],
    ['?limit=201', 'limit'],
    ['?limit=-1', 'limit'],
    ['?limit=1.5', 'limit'],
    ['?limit=', 'limit'],
    ['?limit=5&limit=6', 'limit'],
    ['?offset=-1', 'offset'],
    ['?offset=x', 'offset'],
    ['?severity=SEVERE', 'severity'],
    ['?severity=HIGH,', 'severity'],
    ['?severity_basis=cvss', 'severity_basis'],
    ['?min_cvss=10.1', 'min_cvss'],
    ['?min_cvss=-1', 'min_cvss'],
    ['?min_cvss=high', 'min_cvss'],
    ['?kev_only=maybe', 'kev_only'],
    ['?year=24', 'year'],
    ['?year=2024a', 'year'],
    ['?sort=random', 'sort'],
    ['?skip_count=2', 'skip_count'],
    ['?reverse=sideways', 'reverse'],
    ['?since=2024-13-01', 'since'],
    ['?since=2023-02-29', 'since'],
    ['?until=yesterday', 'until'],
    ['?status=withdrawn', 'status'],
    ['?before_published=soon&before_cve_id=CVE-2024-3400', 'before_published'],
    ['?before_published=2024-04-12T08:15:06Z&before_cve_id=3400', 'before_cve_id'],
    [`?search=${'a'.repeat(501)}`, 'search'],
    ['?search=%21%21%21', 'search'],
    [`?search=${Array.from({ length: 17 }, (_, i) => `w${i}`).join('+')}`, 'search'],
  ])('%s', async (query, parameter) => {
    await expect400(query, 'INVALID_PARAMETER', parameter);
  });

  it('only one of the cursor pair names the missing one', async () => {
    await expect400('?before_published=2024-04-12T08:15:06Z', 'INVALID_PARAMETER', 'before_cve_id');
    await expect400('?before_cve_id=CVE-2024-3400', 'INVALID_PARAMETER', 'before_published');
  });

  it('a cursor with another sort than published is refused, naming sort', async () => {
    await expect400('?sort=epss&before_published=2024-04-12T08:15:06Z&before_cve_id=CVE-2024-3400', 'INVALID_PARAMETER', 'sort');
  });

  it('vendor is 400 VENDOR_FILTER_NOT_ALLOWED pointing to /cves/match, whatever else is sent', async () => {
    for (const query of ['?vendor=linux', '?vendor=', '?limit=999&vendor=linux']) {
      const { status, body } = await s.json<{ code: string; message: string; see: string }>(`/api/v1/public/cves${query}`);
      expect(status).toBe(400);
      expect(body.code).toBe('VENDOR_FILTER_NOT_ALLOWED');
      expect(body.message).toContain('/api/v1/public/cves/match');
    }
  });

  it('unknown parameters are ignored; values are case-insensitive', async () => {
    const { status, body } = await list('?limit=3&colour=blue&SORT=epss');
    expect(status).toBe(200);
    expect(ids(body)).toEqual(activeOrder.slice(0, 3));
    const upper = await list('?limit=3&status=ACTIVE&sort=Published&skip_count=TRUE');
    expect(upper.status).toBe(200);
    expect(upper.body.total_counted).toBe(false);
  });
});

describe('filters', () => {
  it('severity filters NVD v3 labels by default and service severity with severity_basis=svc', async () => {
    const nvd = await list('?severity=critical,HIGH&limit=200');
    const nvdExpected = await truth.column<string>(`SELECT cve_id FROM cves WHERE status='active' AND severity IN ('CRITICAL','HIGH') ORDER BY published DESC, cve_id DESC`);
    expect(ids(nvd.body)).toEqual(nvdExpected);
    expect(nvd.body.total).toBe(nvdExpected.length);
    const svc = await list('?severity=critical,HIGH&severity_basis=svc&limit=200');
    const svcExpected = await truth.column<string>(`SELECT cve_id FROM cves WHERE status='active' AND service_severity IN ('CRITICAL','HIGH') ORDER BY published DESC, cve_id DESC`);
    expect(ids(svc.body)).toEqual(svcExpected);
    expect(svcExpected).not.toEqual(nvdExpected);
  });

  it('severity_basis=svc reaches v2-only CVEs that the NVD v3 basis files under NONE', async () => {
    const v2only = await truth.column<string>(`SELECT cve_id FROM cves WHERE status='active' AND cvss_v3_score = 0 AND cvss_v2_score > 0 AND service_severity = 'MEDIUM'`);
    expect(v2only.length).toBeGreaterThan(0);
    const svc = await list('?severity=MEDIUM&severity_basis=svc&limit=200');
    const nvd = await list('?severity=MEDIUM&limit=200');
    for (const id of v2only) {
      expect(ids(svc.body)).toContain(id);
      expect(ids(nvd.body)).not.toContain(id);
    }
  });

  it('min_cvss matches the highest CVSS held, so a v2-only 10.0 is in', async () => {
    const { body } = await list('?min_cvss=10&limit=200');
    const expected = await truth.column<string>(`SELECT cve_id FROM cves WHERE status='active' AND max_cvss >= 10 ORDER BY published DESC, cve_id DESC`);
    expect(ids(body)).toEqual(expected);
    const v2ten = await truth.column<string>(`SELECT cve_id FROM cves WHERE cvss_v3_score = 0 AND cvss_v2_score = 10`);
    expect(v2ten.length).toBeGreaterThan(0);
    expect(ids(body)).toEqual(expect.arrayContaining(v2ten));
    for (const c of body.cves) expect(c.max_cvss).toBeGreaterThanOrEqual(10);
  });

  it('kev_only=true keeps KEV-listed CVEs; kev_only=false filters nothing', async () => {
    const { body } = await list('?kev_only=true&limit=200');
    const expected = await truth.column<string>(`SELECT cve_id FROM cves WHERE status='active' AND in_kev ORDER BY published DESC, cve_id DESC`);
    expect(ids(body)).toEqual(expected);
    expect(body.cves.every((c) => c.kev)).toBe(true);
    expect((await list('?kev_only=false')).body.total).toBe(activeOrder.length);
  });

  it('year is the UTC publication year (CVE-2000-0001 was published in 1999)', async () => {
    const { body } = await list('?year=1999');
    expect(ids(body)).toContain('CVE-2000-0001');
    expect(body.cves.every((c) => c.published.startsWith('1999-'))).toBe(true);
  });

  it('since is inclusive and until exclusive, on last_modified, in any RFC 3339 offset', async () => {
    const [row] = await truth.rows<{ cve_id: string; lm: string; n_ge: string; n_lt: string }>(
      `WITH t AS (SELECT cve_id, last_modified FROM cves WHERE status='active' ORDER BY last_modified DESC LIMIT 1 OFFSET 10)
       SELECT t.cve_id, strftime(t.last_modified, '%Y-%m-%dT%H:%M:%S.%fZ') AS lm,
              (SELECT count(*) FROM cves WHERE status='active' AND last_modified >= t.last_modified) AS n_ge,
              (SELECT count(*) FROM cves WHERE status='active' AND last_modified < t.last_modified) AS n_lt
       FROM t`,
    );
    const since = await list(`?since=${encodeURIComponent(row!.lm)}&limit=200`);
    expect(ids(since.body)).toContain(row!.cve_id);
    expect(since.body.total).toBe(Number(row!.n_ge));
    const until = await list(`?until=${encodeURIComponent(row!.lm)}&limit=200`);
    expect(ids(until.body)).not.toContain(row!.cve_id);
    expect(until.body.total).toBe(Number(row!.n_lt));
    // The same instant written at +02:00 selects the same rows.
    const utc = new Date(`${row!.lm.slice(0, 23)}Z`);
    const shifted = new Date(utc.getTime() + 2 * 3600_000).toISOString().slice(0, 19);
    const micro = row!.lm.slice(19, 26);
    const offset = await list(`?since=${encodeURIComponent(`${shifted}${micro}+02:00`)}&limit=200`);
    expect(offset.body.total).toBe(Number(row!.n_ge));
    const day = await list('?since=2026-01-01&until=2026-02-01');
    const dayExpected = await truth.column<string>(`SELECT count(*) FROM cves WHERE status='active' AND last_modified >= '2026-01-01' AND last_modified < '2026-02-01'`);
    expect(day.body.total).toBe(Number(dayExpected[0]));
  });
});

/** Each sort and the SQL order it must give (ties by cve_id descending are added). */
const SORT_ORDERS: [string, string][] = [
  ['epss', 'epss_score DESC NULLS LAST'],
  ['severity', 'service_score DESC NULLS LAST'],
  ['cvss_v3_score', 'cvss_v3_score DESC NULLS LAST'],
  ['published', 'published DESC'],
];

describe('sorts: descending, ties by cve_id descending', () => {
  it.each(SORT_ORDERS)('sort=%s', async (sort, order) => {
    const { body } = await list(`?sort=${sort}&limit=200`);
    const expected = await truth.column<string>(`SELECT cve_id FROM cves WHERE status='active' ORDER BY ${order}, cve_id DESC`);
    expect(ids(body)).toEqual(expected);
    expect(body.total).toBe(expected.length);
    expect(body.reverse_available).toBe(sort === 'published');
  });
});

describe('one year: its range of docs, in every sort, paged', () => {
  it.each(SORT_ORDERS)('sort=%s', async (sort, order) => {
    const years = await truth.column<number>(`SELECT DISTINCT year FROM cves ORDER BY year`);
    expect(years.length).toBeGreaterThan(3);
    for (const year of [...years, 1990]) {
      for (const [extra, where] of [['', ''], ['&severity=HIGH,CRITICAL', " AND severity IN ('HIGH','CRITICAL')"], ['&status=all', '']] as const) {
        const status = extra === '&status=all' ? '' : " AND status = 'active'";
        const expected = await truth.column<string>(`SELECT cve_id FROM cves WHERE year = ${Number(year)}${status}${where} ORDER BY ${order}, cve_id DESC`);
        const whole = await list(`?sort=${sort}&year=${year}${extra}&limit=200`);
        expect(ids(whole.body), `${year}${extra}`).toEqual(expected);
        expect(whole.body.total).toBe(expected.length);
        const second = await list(`?sort=${sort}&year=${year}${extra}&limit=2&offset=2`);
        expect(ids(second.body)).toEqual(expected.slice(2, 4));
        expect(second.body.total).toBe(expected.length);
      }
    }
  });
});

describe('reverse (rule 3)', () => {
  it('reads the default listing from its far end, page in the usual order', async () => {
    const { body } = await list('?reverse=true&limit=5');
    expect(ids(body)).toEqual(activeOrder.slice(-5));
    expect(body.reverse).toBe(true);
    expect(body.reverse_available).toBe(true);
    expect(body.total).toBe(activeOrder.length);
    expect(body.total_counted).toBe(true);
    const next = await list('?reverse=1&limit=5&offset=5');
    expect(ids(next.body)).toEqual(activeOrder.slice(-10, -5));
    const explicit = await list('?reverse=true&sort=published&status=active&limit=3');
    expect(ids(explicit.body)).toEqual(activeOrder.slice(-3));
    const partial = await list(`?reverse=true&limit=10&offset=${activeOrder.length - 4}`);
    expect(ids(partial.body)).toEqual(activeOrder.slice(0, 4));
  });

  it('reverse=false is the ordinary listing and carries no reverse member', async () => {
    const { body } = await list('?reverse=false&limit=2');
    expect(ids(body)).toEqual(activeOrder.slice(0, 2));
    expect(body).not.toHaveProperty('reverse');
  });

  it.each([
    ['&sort=epss', 'sort'],
    ['&sort=severity', 'sort'],
    ['&status=all', 'status'],
    ['&status=rejected', 'status'],
    ['&severity=HIGH', 'severity'],
    ['&min_cvss=0', 'min_cvss'],
    ['&since=2024-01-01', 'since'],
    ['&until=2030-01-01', 'until'],
    ['&year=2024', 'year'],
    ['&kev_only=true', 'kev_only'],
    ['&kev_only=false', 'kev_only'],
    ['&search=linux', 'search'],
    ['&search=', 'search'],
    ['&before_published=2026-01-01T00:00:00Z&before_cve_id=CVE-2026-0001', 'before_published'],
  ])('reverse=true with %s is 400 REVERSE_NOT_ALLOWED naming %s', async (extra, parameter) => {
    await expect400(`?reverse=true${extra}`, 'REVERSE_NOT_ALLOWED', parameter);
  });

  it.each([
    ['', true],
    ['?sort=published&status=active&limit=3&offset=2&skip_count=1', true],
    ['?severity_basis=svc', true],
    ['?sort=epss', false],
    ['?status=all', false],
    ['?severity=HIGH', false],
    ['?min_cvss=1', false],
    ['?since=2020-01-01', false],
    ['?until=2030-01-01', false],
    ['?year=2024', false],
    ['?kev_only=false', false],
    ['?search=linux', false],
    ['?search=', false],
    ['?before_published=2026-01-01T00:00:00Z&before_cve_id=CVE-2026-0001', false],
  ])('reverse_available for "%s" is %s, and reverse=true agrees', async (query, available) => {
    const { body } = await list(query);
    expect(body.reverse_available).toBe(available);
    const withReverse = await s.get(`/api/v1/public/cves${query ? `${query}&` : '?'}reverse=true`);
    await withReverse.arrayBuffer();
    expect(withReverse.status).toBe(available ? 200 : 400);
  });
});

describe('skip_count and the keyset cursor (rules 4, 5)', () => {
  it('skip_count=1 does not count and carries the cursor of the next page', async () => {
    const { body } = await list('?skip_count=1&limit=10');
    expect(ids(body)).toEqual(activeOrder.slice(0, 10));
    expect(body.total_counted).toBe(false);
    expect(body.total).toBe(0);
    expect(body.total_is_lower_bound).toBe(false);
    expect(body.next_cve_id).toBe(activeOrder[9]);
    expect(body.next_published).toBe(body.cves[9]!.published);
  });

  it('following the cursor walks the whole listing once, in order, and ends with null', async () => {
    const seen: string[] = [];
    let query = '?skip_count=1&limit=7';
    for (let guard = 0; guard < 50; guard++) {
      const { status, body } = await list(query);
      expect(status).toBe(200);
      seen.push(...ids(body));
      if (body.next_cve_id === null) {
        expect(body.next_published).toBeNull();
        break;
      }
      expect(body.total_counted).toBe(false);
      query = `?limit=7&before_published=${encodeURIComponent(body.next_published!)}&before_cve_id=${body.next_cve_id}`;
    }
    expect(seen).toEqual(activeOrder);
  });

  it('a cursor request is never counted, even without skip_count, and filters still apply', async () => {
    const third = activeOrder[2]!;
    const [pub] = await truth.column<string>(`SELECT strftime(published, '%Y-%m-%dT%H:%M:%S.%fZ') FROM cves WHERE cve_id = '${third}'`);
    const { body } = await list(`?limit=5&before_published=${encodeURIComponent(pub!)}&before_cve_id=${third}`);
    expect(ids(body)).toEqual(activeOrder.slice(3, 8));
    expect(body.total_counted).toBe(false);
    expect(body.total).toBe(0);
    const high = await list(`?limit=200&severity=HIGH&before_published=${encodeURIComponent(pub!)}&before_cve_id=${third}`);
    const expected = await truth.column<string>(
      `SELECT cve_id FROM cves WHERE status='active' AND severity='HIGH' AND (published, cve_id) < ((SELECT published FROM cves WHERE cve_id='${third}'), '${third}') ORDER BY published DESC, cve_id DESC`,
    );
    expect(ids(high.body)).toEqual(expected);
    expect(high.body.next_cve_id).toBeNull();
  });

  it('skip_count with a sort that has no keyset gives null cursor values', async () => {
    const { body } = await list('?skip_count=1&sort=epss&limit=3');
    expect(body.total_counted).toBe(false);
    expect(body.next_published).toBeNull();
    expect(body.next_cve_id).toBeNull();
  });

  it('skip_count on a filtered list pages with the cursor too', async () => {
    const expected = await truth.column<string>(`SELECT cve_id FROM cves WHERE status='active' AND in_kev ORDER BY published DESC, cve_id DESC`);
    const first = await list('?kev_only=true&skip_count=1&limit=4');
    expect(ids(first.body)).toEqual(expected.slice(0, 4));
    const second = await list(`?kev_only=true&limit=4&before_published=${encodeURIComponent(first.body.next_published!)}&before_cve_id=${first.body.next_cve_id}`);
    expect(ids(second.body)).toEqual(expected.slice(4, 8));
  });
});
