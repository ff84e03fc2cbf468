/**
 * Listings are asked for conditionally (If-None-Match / If-Modified-Since, validators kept per
 * URL): the GitHub releases API, CSAF provider-metadata.json, ROLIE feeds, changes.csv,
 * deletions.csv and the MSRC index. A 304 rewrites nothing and fetches no document.
 */
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fetchSources } from '../../cli/fetch/run.ts';
import type { SourceName } from '../../cli/fetch/config.ts';
import { fixture, startServer, tempRaw, testConfig, testHttp, type Recorded, type TestServer } from './helpers.ts';

interface Resource {
  body: Buffer | string;
  etag?: string;
  lastModified?: string;
}

/** Every file of a folder tree with its size and mtime: what "nothing rewritten" compares. */
async function snapshotTree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const p = join(e.parentPath, e.name);
    const s = await stat(p);
    out[p.slice(dir.length)] = `${s.size}@${s.mtimeMs}`;
  }
  return out;
}

describe('conditional listings', () => {
  let raw: string;
  let cleanup: () => Promise<void>;
  let server: TestServer;
  let table: Record<string, Resource>;
  beforeEach(async () => {
    ({ raw, cleanup } = await tempRaw());
    table = {};
    // A host that honours validators as the real ones do: 304 when If-None-Match matches the
    // ETag, or (without ETag) when If-Modified-Since equals Last-Modified.
    server = await startServer((req, url) => {
      const r = table[decodeURIComponent(url.pathname)];
      if (!r) return { status: 404, body: 'Not Found' };
      const headers: Record<string, string> = {};
      if (r.etag) headers.etag = r.etag;
      if (r.lastModified) headers['last-modified'] = r.lastModified;
      const inm = req.headers['if-none-match'];
      const ims = req.headers['if-modified-since'];
      if ((r.etag && inm === r.etag) || (!r.etag && r.lastModified && ims === r.lastModified)) return { status: 304, headers };
      return { headers, body: r.body };
    });
  });
  afterEach(async () => {
    await server.close();
    await cleanup();
  });

  async function run(source: SourceName, overrides: unknown) {
    const config = await testConfig({ sources: overrides });
    const http = testHttp({ rewrites: [{ from: 'https://psirt.domain.tld/', to: `${server.base}/psirt/` }] }).http;
    const [result] = await fetchSources({ rawDir: raw, config, sources: [source], http });
    expect(result!.error).toBeUndefined();
    return result!;
  }
  const conditional = (r: Recorded) => r.headers['if-none-match'] !== undefined || r.headers['if-modified-since'] !== undefined;

  it('CSAF: provider-metadata.json, a ROLIE feed, changes.csv and deletions.csv answer 304 the second time; nothing is rewritten', async () => {
    const b = server.base;
    const doc = await fixture('csaf/redhat-rhsa-2024_6163.json');
    table['/feed/provider-metadata.json'] = {
      etag: '"pm1"',
      body: JSON.stringify({ distributions: [{ rolie: { feeds: [{ tlp_label: 'WHITE', url: `${b}/feed/feed-tlp-white.json` }] } }] }),
    };
    table['/feed/feed-tlp-white.json'] = { etag: '"feed1"', body: await fixture('csaf/oasis-examples-rolie-feed-example-01.json') };
    table['/psirt/advisories/csaf/2020/2020-ESA-001.json'] = { body: doc };
    table['/dir/provider-metadata.json'] = { lastModified: 'Tue, 03 Sep 2024 10:00:00 GMT', body: JSON.stringify({ distributions: [{ directory_url: `${b}/dir/advisories/` }] }) };
    table['/dir/advisories/changes.csv'] = { lastModified: 'Tue, 03 Sep 2024 10:00:00 GMT', body: '"2024/rhsa-2024_6163.json","2024-09-03T10:00:00+00:00"\n' };
    table['/dir/advisories/deletions.csv'] = { etag: '"del1"', body: '"2023/rhsa-2023_0001.json","2024-01-01T00:00:00+00:00"\n' };
    table['/dir/advisories/2024/rhsa-2024_6163.json'] = { body: doc };
    const providers = { providers: [{ vendor: 'example', url: `${b}/feed/provider-metadata.json` }, { vendor: 'redhat', url: `${b}/dir/provider-metadata.json` }] };

    expect((await run('csaf', { csaf: providers })).outcome!.records).toBe(2);
    expect(await readFile(join(raw, 'csaf', 'example', '2020', '2020-ESA-001.json'))).toEqual(doc);
    const before = await snapshotTree(join(raw, 'csaf'));

    server.requests.length = 0;
    const second = await run('csaf', { csaf: providers });
    expect(second.outcome).toMatchObject({ records: 0, unchanged: true, bytes: 0 });
    expect(server.requests.map((r) => r.path).sort()).toEqual([
      '/dir/advisories/changes.csv',
      '/dir/advisories/deletions.csv',
      '/dir/provider-metadata.json',
      '/feed/feed-tlp-white.json',
      '/feed/provider-metadata.json',
    ]);
    expect(server.requests.every(conditional)).toBe(true);
    expect(server.requests.find((r) => r.path === '/feed/feed-tlp-white.json')!.headers['if-none-match']).toBe('"feed1"');
    expect(server.requests.find((r) => r.path === '/dir/advisories/changes.csv')!.headers['if-modified-since']).toBe('Tue, 03 Sep 2024 10:00:00 GMT');
    expect(await snapshotTree(join(raw, 'csaf'))).toEqual(before);

    // The feed changes: read fresh (a new ETag), and only the newer document is fetched.
    const feed = JSON.parse((await fixture('csaf/oasis-examples-rolie-feed-example-01.json')).toString());
    feed.feed.entry[0].updated = '2025-01-01T00:00:00.000Z';
    table['/feed/feed-tlp-white.json'] = { etag: '"feed2"', body: JSON.stringify(feed) };
    server.requests.length = 0;
    expect((await run('csaf', { csaf: providers })).outcome!.records).toBe(1);
    // The document, and the hash file its entry links (absent here).
    expect(server.requests.filter((r) => r.path.startsWith('/psirt/')).map((r) => r.path)).toEqual([
      '/psirt/advisories/csaf/2020/2020-ESA-001.json',
      '/psirt/advisories/csaf/2020/2020-ESA-001.json.sha512',
    ]);
  });

  it('a listing that did not parse is not kept: the next run asks for it in full', async () => {
    const b = server.base;
    table['/dir/provider-metadata.json'] = { etag: '"pm1"', body: '{ truncated' };
    const config = await testConfig({ sources: { csaf: { providers: [{ vendor: 'redhat', url: `${b}/dir/provider-metadata.json` }] } } });
    const [bad] = await fetchSources({ rawDir: raw, config, sources: ['csaf'], http: testHttp().http });
    expect(bad!.error).toMatch(/provider-metadata\.json: malformed JSON from http:\/\/127\.0\.0\.1:\d+\/dir\/provider-metadata\.json/);
    server.requests.length = 0;
    await fetchSources({ rawDir: raw, config, sources: ['csaf'], http: testHttp().http });
    expect(server.requests[0]!.headers['if-none-match']).toBeUndefined();
  });

  it('MSRC: an unchanged index costs one 304 and no document request', async () => {
    const b = server.base;
    table['/cvrf/v3.0/updates'] = {
      etag: '"idx1"',
      body: JSON.stringify({ value: [{ ID: '2024-Feb', CurrentReleaseDate: '2024-02-13T08:00:00Z', CvrfUrl: `${b}/cvrf/v3.0/cvrf/2024-Feb` }] }),
    };
    table['/cvrf/v3.0/cvrf/2024-Feb'] = { body: await fixture('msrc/2024-Feb.json') };
    const msrc = { msrc: { updatesUrl: `${b}/cvrf/v3.0/updates` } };
    await run('msrc', msrc);
    const before = await snapshotTree(join(raw, 'msrc'));
    server.requests.length = 0;
    expect((await run('msrc', msrc)).outcome!.unchanged).toBe(true);
    expect(server.requests.map((r) => [r.path, r.headers['if-none-match']])).toEqual([['/cvrf/v3.0/updates', '"idx1"']]);
    expect(await snapshotTree(join(raw, 'msrc'))).toEqual(before);
  });

  it('cvelistV5: the GitHub releases API is asked with If-None-Match; a 304 downloads nothing', async () => {
    const b = server.base;
    const inner = Buffer.from(zipSync({ 'cves/2024/1xxx/CVE-2024-1086.json': await fixture('cvelist/CVE-2024-1086.json') }));
    table['/download/2026-10-01_all_CVEs_at_midnight.zip.zip'] = { body: Buffer.from(zipSync({ '2026-10-01_all_CVEs_at_midnight.zip': inner })) };
    table['/repos/CVEProject/cvelistV5/releases'] = {
      etag: 'W/"rel1"',
      body: JSON.stringify([{ tag_name: 't', assets: [{ name: '2026-10-01_all_CVEs_at_midnight.zip.zip', browser_download_url: `${b}/download/2026-10-01_all_CVEs_at_midnight.zip.zip` }] }]),
    };
    const cvelist = { cvelist: { releasesUrl: `${b}/repos/CVEProject/cvelistV5/releases` } };
    await run('cvelist', cvelist);
    const before = await snapshotTree(join(raw, 'cvelist'));
    server.requests.length = 0;
    expect((await run('cvelist', cvelist)).outcome!.unchanged).toBe(true);
    expect(server.requests.map((r) => [r.path, r.headers['if-none-match']])).toEqual([['/repos/CVEProject/cvelistV5/releases', 'W/"rel1"']]);
    expect(await snapshotTree(join(raw, 'cvelist'))).toEqual(before);
  });
});
