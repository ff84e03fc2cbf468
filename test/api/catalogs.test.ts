/**
 * Catalogues (contract 4.11) on the sample snapshot: CWEs with active-CVE counts and a text
 * filter, package ecosystems, vendors with a prefix filter; paging.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listCwes, listEcosystems, listVendors, vendorKeyOf } from '../../api/queries/catalogs.ts';
import { TableUnavailableError } from '../../api/queries/support.ts';
import type { OpenSnapshot } from '../../api/snapshot/open.ts';
import { openDamagedSample, openSample, openSampleCopy } from './sample-reader.ts';
import { startSampleServer, type SampleServer } from './server-harness.ts';

let sample: OpenSnapshot;
beforeAll(async () => {
  sample = await openSample();
});
afterAll(() => sample?.close());

const page = { limit: 50, offset: 0 };

describe('/cwes', () => {
  it('lists the catalog, most used first, with counts of active CVEs only', async () => {
    const result = await listCwes(sample, undefined, { limit: 3, offset: 0 });
    expect(result.total).toBe(98);
    expect(result.cwes.map((c) => [c.cwe_id, c.cve_count])).toEqual([
      ['CWE-79', 7],
      ['CWE-502', 5],
      ['CWE-22', 4],
    ]);
    expect(result.cwes[0]).toMatchObject({ name: expect.stringContaining('Cross-site Scripting'), abstraction: 'Base', status: 'Stable' });
    // Counts agree with cve_cwes restricted to active CVEs.
    const [row] = (await sample.connection.runAndReadAll(
      `SELECT count(DISTINCT cc.cve_id)::INTEGER AS n FROM cve_cwes cc JOIN cves c USING (cve_id) WHERE cc.cwe_id = 'CWE-79' AND c.status = 'active'`,
    )).getRowObjectsJson();
    expect(row!.n).toBe(7);
  });

  it('q filters id or name, any case; an exact id comes first', async () => {
    const byName = await listCwes(sample, 'INJECTION', page);
    expect(byName.total).toBe(5);
    expect(byName.cwes.every((c) => c.name!.toLowerCase().includes('injection'))).toBe(true);
    const byId = await listCwes(sample, '79', page);
    expect(byId.cwes[0]!.cwe_id).toBe('CWE-79');
    expect(byId.cwes.map((c) => c.cwe_id).sort()).toEqual(['CWE-1079', 'CWE-79', 'CWE-798']);
    expect((await listCwes(sample, 'cwe-502', page)).cwes[0]!.cwe_id).toBe('CWE-502');
    expect((await listCwes(sample, 'no such weakness', page))).toMatchObject({ cwes: [], total: 0 });
  });

  it('pages without overlap, descriptions short', async () => {
    const a = await listCwes(sample, undefined, { limit: 10, offset: 0 });
    const b = await listCwes(sample, undefined, { limit: 10, offset: 10 });
    const ab = await listCwes(sample, undefined, { limit: 20, offset: 0 });
    expect([...a.cwes, ...b.cwes]).toEqual(ab.cwes);
    const all = await listCwes(sample, undefined, { limit: 200, offset: 0 });
    expect(all.cwes).toHaveLength(98);
    expect(all.cwes.every((c) => [...(c.description ?? '')].length <= 200)).toBe(true);
    const counts = all.cwes.map((c) => c.cve_count);
    expect(counts).toEqual([...counts].sort((x, y) => y - x));
  });
});

describe('/ecosystems', () => {
  it('lists ecosystems with distinct packages and active CVEs', async () => {
    expect(await listEcosystems(sample)).toEqual([
      { ecosystem: 'PyPI', package_count: 7, cve_count: 8, package_lookup: true },
      { ecosystem: 'npm', package_count: 3, cve_count: 3, package_lookup: true },
      { ecosystem: 'Go', package_count: 2, cve_count: 2, package_lookup: true },
      { ecosystem: 'Alpine:v3.20', package_count: 1, cve_count: 1, package_lookup: true },
      { ecosystem: 'Debian:11', package_count: 1, cve_count: 1, package_lookup: true },
      { ecosystem: 'Debian:12', package_count: 1, cve_count: 1, package_lookup: true },
      { ecosystem: 'GIT', package_count: 1, cve_count: 1, package_lookup: false },
      { ecosystem: 'Maven', package_count: 1, cve_count: 1, package_lookup: true },
      { ecosystem: 'NuGet', package_count: 1, cve_count: 1, package_lookup: true },
      { ecosystem: 'Rocky Linux:9', package_count: 1, cve_count: 1, package_lookup: true },
      { ecosystem: 'RubyGems', package_count: 1, cve_count: 1, package_lookup: true },
      { ecosystem: 'Ubuntu:22.04:LTS', package_count: 1, cve_count: 1, package_lookup: true },
      { ecosystem: 'crates.io', package_count: 1, cve_count: 1, package_lookup: true },
    ]);
  });
});

describe('/vendors', () => {
  it('lists vendors by CVE count, with product counts', async () => {
    const result = await listVendors(sample, undefined, { limit: 3, offset: 0 });
    expect(result.total).toBe(49);
    expect(result.vendors[0]).toEqual({ vendor: 'linux', name: 'linux', product_count: 2, cve_count: 8 });
    const counts = (await listVendors(sample, undefined, { limit: 200, offset: 0 })).vendors.map((v) => v.cve_count);
    expect(counts).toEqual([...counts].sort((x, y) => y - x));
  });

  it('q is a prefix of the normalised vendor key', async () => {
    const g = await listVendors(sample, 'G', page);
    expect(g.vendors.map((v) => v.vendor).sort()).toEqual(['geovision_inc.', 'gitea', 'gnu', 'go-gitea', 'google', 'grafana']);
    const redHat = await listVendors(sample, 'Red H', page);
    expect(redHat.vendors).toEqual([{ vendor: 'red_hat', name: 'red hat', product_count: 11, cve_count: 3 }]);
    expect(vendorKeyOf('  Red   Hat ')).toBe('red_hat');
  });

  it('names a vendor by its spelling on the most rows of active CVEs, a tie going to the least spelling', async () => {
    const copy = await openSampleCopy();
    try {
      const [[activeCve]] = (await copy.connection.runAndReadAll(`SELECT cve_id FROM cves WHERE status = 'active' ORDER BY cve_id LIMIT 1`)).getRows() as [[string]];
      // Rows inserted with the least spelling last, so that neither file order nor a first-seen
      // pick gives the rule's answer by chance; `acme_works` is spelt one way more often.
      const rows: [string, string, string][] = [
        ['tie_vendor', 'tie_vendor', 'one'],
        ['tie_vendor', 'tie_vendor', 'two'],
        ['tie_vendor', 'Tie Vendor', 'three'],
        ['tie_vendor', 'Tie Vendor', 'four'],
        ['acme_works', 'acme works', 'one'],
        ['acme_works', 'acme_works', 'two'],
        ['acme_works', 'acme_works', 'three'],
      ];
      for (const [key, spelling, product] of rows) {
        await copy.connection.run(`INSERT INTO products BY NAME SELECT $1 AS cve_id, $2 AS vendor_key, $3 AS vendor, $4 AS product_key, $4 AS product`, [activeCve, key, spelling, product]);
      }
      const names = new Map((await listVendors(copy, undefined, { limit: 1000, offset: 0 })).vendors.map((v) => [v.vendor, v.name]));
      expect(names.get('tie_vendor')).toBe('Tie Vendor');
      expect(names.get('acme_works')).toBe('acme_works');
      // Every other vendor of the sample follows the same rule, counted here from the rows.
      const spellings = (await copy.connection.runAndReadAll(
        `SELECT p.vendor_key, p.vendor, count(*)::INTEGER AS uses FROM products p JOIN cves c USING (cve_id) WHERE c.status = 'active' GROUP BY ALL`,
      )).getRows() as [string, string, number][];
      const expected = new Map<string, [string, number]>();
      for (const [key, spelling, uses] of spellings) {
        const best = expected.get(key);
        if (!best || uses > best[1] || (uses === best[1] && spelling < best[0])) expected.set(key, [spelling, uses]);
      }
      expect(names.size).toBe(expected.size);
      for (const [key, [spelling]] of expected) expect([key, names.get(key)]).toEqual([key, spelling]);
    } finally {
      copy.close();
    }
  });

  it('pages', async () => {
    const a = await listVendors(sample, undefined, { limit: 5, offset: 45 });
    expect(a).toMatchObject({ total: 49, limit: 5, offset: 45 });
    expect(a.vendors).toHaveLength(4);
  });
});

describe('damaged tables', () => {
  it('are reported as unavailable', async () => {
    const damaged = await openDamagedSample(['cwes', 'products', 'affected_packages']);
    try {
      await expect(listCwes(damaged, undefined, page)).rejects.toBeInstanceOf(TableUnavailableError);
      await expect(listVendors(damaged, undefined, page)).rejects.toMatchObject({ table: 'products' });
      await expect(listEcosystems(damaged)).rejects.toMatchObject({ table: 'affected_packages' });
    } finally {
      damaged.close();
    }
  });
});

describe('HTTP', () => {
  let api: SampleServer;
  beforeAll(async () => {
    api = await startSampleServer();
  });
  afterAll(async () => {
    await api?.server.close();
  });

  it('/cwes pages and filters', async () => {
    const { status, body } = await api.json<{ cwes: { cwe_id: string }[]; total: number; limit: number; offset: number }>('/api/v1/public/cwes?q=Injection&limit=2&offset=1');
    expect(status).toBe(200);
    expect(body).toMatchObject({ total: 5, limit: 2, offset: 1 });
    expect(body.cwes.map((c) => c.cwe_id)).toEqual((await listCwes(sample, 'injection', { limit: 2, offset: 1 })).cwes.map((c) => c.cwe_id));
    expect((await api.json<{ limit: number }>('/api/v1/public/cwes')).body.limit).toBe(50);
  });

  it('/ecosystems answers every ecosystem with a total', async () => {
    const { status, body } = await api.json('/api/v1/public/ecosystems');
    expect(status).toBe(200);
    expect(body).toEqual({ ecosystems: await listEcosystems(sample), total: 13 });
  });

  it('/ecosystems says which ecosystems /packages answers, and /packages agrees for each', async () => {
    const { body } = await api.json<{ ecosystems: { ecosystem: string; package_lookup: boolean }[] }>('/api/v1/public/ecosystems');
    for (const { ecosystem, package_lookup } of body.ecosystems) {
      const res = await api.get(`/api/v1/public/packages/${encodeURIComponent(ecosystem)}/no-such-package`);
      expect([ecosystem, res.status]).toEqual([ecosystem, package_lookup ? 200 : 400]);
    }
  });

  it('/vendors pages and filters by prefix', async () => {
    const { body } = await api.json<{ vendors: { vendor: string }[]; total: number }>('/api/v1/public/vendors?q=gr&limit=1');
    expect(body).toMatchObject({ total: 1, vendors: [{ vendor: 'grafana' }] });
  });

  it('/pulse/suggest offers vendors, products, packages and CWEs by prefix, labelled the same way every time', async () => {
    type Suggestions = { field: string; values: { value: string; label: string }[] };
    const vendors = await api.json<Suggestions>('/pulse/suggest?field=vendor&q=Red%20H');
    expect(vendors.body).toEqual({ field: 'vendor', values: [{ value: 'red_hat', label: 'red hat (3 CVEs)' }] });

    // A product key of several vendors, and a package of several ecosystems, are labelled with
    // the least of them (read here from the tables): the first such name of each, its least
    // group and its CVEs, then the suggestion asked for by that name.
    const sharedName = async (field: string, table: string, name: string, group: string) => {
      const [[value, least, cves]] = (await sample.connection.runAndReadAll(
        `SELECT ${name}, min(${group}), count(DISTINCT cve_id)::INTEGER FROM ${table} GROUP BY ${name}
         HAVING count(DISTINCT ${group}) > 1 ORDER BY ${name} LIMIT 1`,
      )).getRows() as [[string, string, number]];
      const suggested = await api.json<Suggestions>(`/pulse/suggest?field=${field}&q=${encodeURIComponent(value)}`);
      expect(suggested.body.values).toContainEqual({ value, label: `${value} (${least}), ${cves} ${cves === 1 ? 'CVE' : 'CVEs'}` });
      return least;
    };
    const vendor = await sharedName('product', 'products', 'product_key', 'vendor_key');
    await sharedName('package', 'affected_packages', 'package_name', 'ecosystem');

    // Scoped to a vendor, only its products; a LIKE wildcard in q is a character, not a pattern.
    const scoped = await api.json<Suggestions>(`/pulse/suggest?field=product&q=&scope=${encodeURIComponent(vendor)}`);
    const ofVendor = (await sample.connection.runAndReadAll(`SELECT DISTINCT product_key FROM products WHERE vendor_key = $1`, [vendor])).getRows().map((r) => r[0]);
    expect(scoped.body.values.length).toBeGreaterThan(0);
    for (const v of scoped.body.values) expect(ofVendor).toContain(v.value);
    expect((await api.json<Suggestions>('/pulse/suggest?field=product&q=%25')).body.values).toEqual([]);
    expect((await api.json<Suggestions>('/pulse/suggest?field=cwe&q=CWE-79')).body.values[0]).toMatchObject({ value: 'CWE-79', label: expect.stringMatching(/^CWE-79 .*\(7 CVEs\)$/) });

    const bad = await api.json('/pulse/suggest?field=colour&q=x');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'INVALID_PARAMETER', parameter: 'field' });
  });

  it('/pulse/suggest says a count of one in the singular (it offered "citrix (1 CVEs)", "Maven (1 packages)")', async () => {
    type Suggestions = { field: string; values: { value: string; label: string }[] };
    expect((await api.json<Suggestions>('/pulse/suggest?field=vendor&q=citrix')).body.values).toEqual([{ value: 'citrix', label: 'citrix (1 CVE)' }]);
    expect((await api.json<Suggestions>('/pulse/suggest?field=ecosystem&q=maven')).body.values).toEqual([{ value: 'Maven', label: 'Maven (1 package)' }]);
    expect((await api.json<Suggestions>('/pulse/suggest?field=ecosystem&q=pypi')).body.values).toEqual([{ value: 'PyPI', label: 'PyPI (7 packages)' }]);
  });

  it('/pulse/suggest refuses, naming it, a parameter sent twice, text too long or with a control character or a lone surrogate', async () => {
    for (const [query, parameter] of [
      ['field=vendor&field=cwe&q=a', 'field'],
      ['field=vendor&q=a&q=b', 'q'],
      ['field=product&scope=linux&scope=cisco', 'scope'],
      [`field=vendor&q=${'a'.repeat(101)}`, 'q'],
      [`field=vendor&q=${'🙂'.repeat(101)}`, 'q'],
      ['field=vendor&q=a%00b', 'q'],
      ['field=vendor&q=a%1Bb', 'q'],
      ['field=product&q=x&scope=li%0Anux', 'scope'],
      ['field=vendor&q=%ED%A0%80', 'q'],
    ] as const) {
      const res = await api.json<{ code: string; parameter: string; message: string }>(`/pulse/suggest?${query}`);
      expect([query, res.status, res.body.code, res.body.parameter]).toEqual([query, 400, 'INVALID_PARAMETER', parameter]);
      expect(res.body.message).toContain(`${parameter}: `);
    }
    // At the bounds: 100 characters (emoji counted as one each), an empty q, blank scope.
    for (const query of [`field=vendor&q=${'a'.repeat(100)}`, `field=vendor&q=${'🙂'.repeat(100)}`, 'field=vendor&q=', 'field=product&q=&scope=%20']) {
      expect([query, (await api.get(`/pulse/suggest?${query}`)).status]).toEqual([query, 200]);
    }
  });

  it('400 naming the malformed parameter', async () => {
    for (const [path, parameter] of [
      ['/api/v1/public/cwes?limit=500', 'limit'],
      ['/api/v1/public/cwes?offset=x', 'offset'],
      [`/api/v1/public/cwes?q=${'a'.repeat(101)}`, 'q'],
      ['/api/v1/public/vendors?limit=0', 'limit'],
      [`/api/v1/public/vendors?q=${'a'.repeat(101)}`, 'q'],
    ] as const) {
      const { status, body } = await api.json(path);
      expect(status, path).toBe(400);
      expect(body).toMatchObject({ code: 'INVALID_PARAMETER', parameter });
    }
  });
});
