import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { UrlRewrite } from '../../cli/fetch/http.ts';
import { resolveListedPath } from '../../cli/fetch/sources/csaf.ts';
import { fetchSources } from '../../cli/fetch/run.ts';
import { readSourceStatuses } from '../../cli/fetch/status.ts';
import { fixture, startServer, tempRaw, testConfig, testHttp, type Reply, type TestServer } from './helpers.ts';

describe('CSAF providers', () => {
  let raw: string;
  let cleanup: () => Promise<void>;
  let server: TestServer;
  let table: Record<string, Reply>;
  let cisaDoc: Buffer;
  let redhatDoc: Buffer;
  let cisaChanges: string;

  beforeEach(async () => {
    ({ raw, cleanup } = await tempRaw());
    cisaDoc = await fixture('csaf/cisa-icsa-24-081-01.json');
    redhatDoc = await fixture('csaf/redhat-rhsa-2024_6163.json');
    cisaChanges = (await fixture('csaf/cisa-ot-changes.csv.head20')).toString('utf8');
    table = {};
    server = await startServer((_req, url) => {
      const path = decodeURIComponent(url.pathname);
      if (table[path]) return table[path]!;
      // Every CISA document listed in changes.csv answers with the real CISA advisory.
      if (path.startsWith('/cisa/csaf_files/OT/white/2024/') && path.endsWith('.json')) return { body: cisaDoc };
      return { status: 404, body: 'Not Found' };
    });
    const b = server.base;
    table['/cisa/provider-metadata.json'] = {
      body: JSON.stringify({ metadata_version: '2.0', distributions: [{ directory_url: `${b}/cisa/csaf_files/OT/white/` }] }),
    };
    table['/cisa/csaf_files/OT/white/changes.csv'] = { body: cisaChanges };
    table['/redhat/provider-metadata.json'] = {
      body: JSON.stringify({
        distributions: [{ directory_url: `${b}/redhat/advisories/` }, { directory_url: `${b}/redhat/vex/` }],
      }),
    };
    table['/redhat/advisories/changes.csv'] = {
      body: '"2024/rhsa-2024_6163.json","2024-09-03T10:00:00+00:00"\n"2024/rhsa-2024_0001.json","2024-01-02T00:00:00+00:00"\n',
    };
    table['/redhat/advisories/2024/rhsa-2024_6163.json'] = { body: redhatDoc };
    table['/redhat/advisories/2024/rhsa-2024_0001.json'] = { body: redhatDoc };
  });
  afterEach(async () => {
    await server.close();
    await cleanup();
  });

  async function run(providers: unknown[], rewrites: UrlRewrite[] = []) {
    const config = await testConfig({ sources: { csaf: { providers, concurrency: 3 } } });
    const [result] = await fetchSources({ rawDir: raw, config, sources: ['csaf'], http: testHttp({ rewrites }).http });
    return result!;
  }
  const cisa = () => ({ vendor: 'cisa', url: `${server.base}/cisa/provider-metadata.json` });
  const redhat = () => ({ vendor: 'redhat', url: `${server.base}/redhat/provider-metadata.json`, include: ['/advisories'] });
  const docRequests = () => server.requests.filter((r) => r.path.endsWith('.json') && !r.path.endsWith('provider-metadata.json'));

  it("reads CISA's unquoted, unsorted, root-relative changes.csv and sets each file's mtime to its release", async () => {
    const result = await run([cisa()]);
    expect(result.ok).toBe(true);
    const files = (await readdir(join(raw, 'csaf', 'cisa', '2024'))).sort();
    expect(files).toHaveLength(20);
    expect(files).toContain('icsa-24-289-02.json');
    // The repeated `csaf_files/OT/white/` prefix is not doubled in the URL.
    expect(docRequests().every((r) => /^\/cisa\/csaf_files\/OT\/white\/2024\/[a-z0-9-]+\.json$/.test(r.path))).toBe(true);
    expect(await readFile(join(raw, 'csaf', 'cisa', '2024', 'icsa-24-291-05.json'))).toEqual(cisaDoc);
    const s = await stat(join(raw, 'csaf', 'cisa', '2024', 'icsa-24-291-05.json'));
    expect(s.mtime.toISOString()).toBe('2024-10-17T06:00:00.000Z');
    expect((await readSourceStatuses(raw)).csaf).toMatchObject({ ok: true, records: 20, watermark: '2024-10-24T06:00:00.000Z' });

    // Second run: nothing newer listed → no document requested. One row changes → one request.
    server.requests.length = 0;
    expect((await run([cisa()])).ok).toBe(true);
    expect(docRequests()).toHaveLength(0);
    table['/cisa/csaf_files/OT/white/changes.csv'] = {
      body: cisaChanges.replace('icsma-24-163-01.json,2024-06-11T06:00:00.000000Z', 'icsma-24-163-01.json,2024-11-01T06:00:00.000000Z'),
    };
    expect((await run([cisa()])).ok).toBe(true);
    expect(docRequests().map((r) => r.path)).toEqual(['/cisa/csaf_files/OT/white/2024/icsma-24-163-01.json']);
  });

  it("applies Red Hat's deletions.csv and skips excluded distributions", async () => {
    expect((await run([redhat()])).ok).toBe(true);
    expect((await readdir(join(raw, 'csaf', 'redhat', '2024'))).sort()).toEqual(['rhsa-2024_0001.json', 'rhsa-2024_6163.json']);
    expect(server.requests.some((r) => r.path.startsWith('/redhat/vex/'))).toBe(false);

    table['/redhat/advisories/deletions.csv'] = { body: '"2024/rhsa-2024_0001.json","2024-10-01T00:00:00+00:00"\n' };
    expect((await run([redhat()])).ok).toBe(true);
    expect(await readdir(join(raw, 'csaf', 'redhat', '2024'))).toEqual(['rhsa-2024_6163.json']);
  });

  it('follows ROLIE feeds, through mirror URL rewrites', async () => {
    table['/mirror/example/.well-known/csaf/provider-metadata.json'] = { body: await fixture('csaf/oasis-examples-provider-metadata-example-01.json') };
    table['/mirror/example/.well-known/csaf/feed-tlp-white.json'] = { body: await fixture('csaf/oasis-examples-rolie-feed-example-01.json') };
    const bsi = await fixture('csaf/oasis-examples-bsi-2022-0001.json');
    table['/mirror/psirt/advisories/csaf/2020/2020-ESA-001.json'] = { body: bsi };
    const result = await run(
      [{ vendor: 'example', url: 'https://www.example.com/.well-known/csaf/provider-metadata.json' }],
      [
        { from: 'https://www.example.com/', to: `${server.base}/mirror/example/` },
        { from: 'https://psirt.domain.tld/', to: `${server.base}/mirror/psirt/` },
      ],
    );
    expect(result.ok).toBe(true);
    expect(await readFile(join(raw, 'csaf', 'example', '2020', '2020-ESA-001.json'))).toEqual(bsi);
    // The entry's hash link (rel "hash"), through the rewrite; absent there (404): stored unchecked.
    expect(server.requests.filter((r) => r.path.includes('.sha')).map((r) => r.path)).toEqual(['/mirror/psirt/advisories/csaf/2020/2020-ESA-001.json.sha512']);
  });

  it('a ROLIE entry linked relative to its feed is fetched; one whose link is no URL is left out, not the whole provider', async () => {
    table['/mirror/example/.well-known/csaf/provider-metadata.json'] = { body: await fixture('csaf/oasis-examples-provider-metadata-example-01.json') };
    const feed = JSON.parse((await fixture('csaf/oasis-examples-rolie-feed-example-01.json')).toString('utf8'));
    const good = feed.feed.entry[0];
    const relative = {
      ...good,
      id: '2020-ESA-002',
      link: [{ rel: 'self', href: '2020/2020-ESA-002.json' }, { rel: 'hash', href: '2020/2020-ESA-002.json.sha512' }],
      content: { type: 'application/json', src: '2020/2020-ESA-002.json' },
    };
    const broken = { ...good, id: '2020-ESA-003', link: [{ rel: 'self', href: 'https://[broken/2020/x.json' }], content: { type: 'application/json', src: 'https://[broken/2020/x.json' } };
    feed.feed.entry = [broken, good, relative];
    table['/mirror/example/.well-known/csaf/feed-tlp-white.json'] = { body: JSON.stringify(feed) };
    const bsi = await fixture('csaf/oasis-examples-bsi-2022-0001.json');
    table['/mirror/psirt/advisories/csaf/2020/2020-ESA-001.json'] = { body: bsi };
    table['/mirror/example/.well-known/csaf/2020/2020-ESA-002.json'] = { body: bsi };
    const result = await run(
      [{ vendor: 'example', url: 'https://www.example.com/.well-known/csaf/provider-metadata.json' }],
      [
        { from: 'https://www.example.com/', to: `${server.base}/mirror/example/` },
        { from: 'https://psirt.domain.tld/', to: `${server.base}/mirror/psirt/` },
      ],
    );
    expect(result.error).toBeUndefined();
    expect((await readdir(join(raw, 'csaf', 'example', '2020'))).sort()).toEqual(['2020-ESA-001.json', '2020-ESA-002.json']);
    // The relative document and its relative hash link, resolved against the feed, through the rewrite.
    expect(server.requests.map((r) => r.path)).toContain('/mirror/example/.well-known/csaf/2020/2020-ESA-002.json.sha512');
  });

  it('one bad document fails the source with its URL but neither blocks the others nor replaces its last good copy', async () => {
    expect((await run([redhat()])).ok).toBe(true);
    const kept = join(raw, 'csaf', 'redhat', '2024', 'rhsa-2024_6163.json');
    table['/redhat/advisories/changes.csv'] = {
      body: '"2024/rhsa-2024_6163.json","2024-10-03T10:00:00+00:00"\n"2024/rhsa-2024_7777.json","2024-10-02T00:00:00+00:00"\n',
    };
    table['/redhat/advisories/2024/rhsa-2024_6163.json'] = { body: '{"document": {"tracking": ' };
    table['/redhat/advisories/2024/rhsa-2024_7777.json'] = { body: redhatDoc };
    const result = await run([redhat(), cisa()]);
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/^redhat: 1 documents failed \(first: http:\/\/127\.0\.0\.1:\d+\/redhat\/advisories\/2024\/rhsa-2024_6163\.json: malformed JSON/);
    expect(await readFile(kept)).toEqual(redhatDoc);
    expect(existsSync(join(raw, 'csaf', 'redhat', '2024', 'rhsa-2024_7777.json'))).toBe(true);
    expect((await readdir(join(raw, 'csaf', 'cisa', '2024'))).length).toBe(20);
  });

  it('skips a listed document the provider answers 404 for, fetching the others, and asks for it again next run', async () => {
    table['/redhat/advisories/changes.csv'] = {
      body: '"2024/rhsa-2024_9999.json","2024-10-05T10:00:00+00:00"\n"2024/rhsa-2024_6163.json","2024-09-03T10:00:00+00:00"\n"2024/rhsa-2024_0001.json","2024-01-02T00:00:00+00:00"\n',
    };
    const first = await run([redhat()]);
    expect(first.ok).toBe(true);
    expect(first.outcome?.detail).toBe('redhat 2/3 (1 listed but missing)');
    expect((await readdir(join(raw, 'csaf', 'redhat', '2024'))).sort()).toEqual(['rhsa-2024_0001.json', 'rhsa-2024_6163.json']);
    // Published at last: the next run fetches it, and only it.
    table['/redhat/advisories/2024/rhsa-2024_9999.json'] = { body: redhatDoc };
    const asked = docRequests().length;
    expect((await run([redhat()])).ok).toBe(true);
    expect(docRequests().slice(asked).map((r) => r.path)).toEqual(['/redhat/advisories/2024/rhsa-2024_9999.json']);
    expect(existsSync(join(raw, 'csaf', 'redhat', '2024', 'rhsa-2024_9999.json'))).toBe(true);
  });

  it('names the vendor once and the provider-metadata.json URL when it lists nothing to read', async () => {
    table['/redhat/provider-metadata.json'] = { body: JSON.stringify({ metadata_version: '2.0', canonical_url: 'x' }) };
    expect((await run([redhat()])).error).toMatch(/^redhat: provider-metadata\.json from http:\/\/127\.0\.0\.1:\d+\/redhat\/provider-metadata\.json has no distributions$/);
    table['/redhat/provider-metadata.json'] = { body: JSON.stringify({ distributions: [{ directory_url: `${server.base}/redhat/vex/` }] }) };
    expect((await run([redhat()])).error).toMatch(/^redhat: provider-metadata\.json from \S+: no ROLIE feed or directory left after the include\/exclude filters$/);
  });

  it('fails a provider none of whose listed documents is there (a listing that does not match its documents)', async () => {
    delete table['/redhat/advisories/2024/rhsa-2024_6163.json'];
    delete table['/redhat/advisories/2024/rhsa-2024_0001.json'];
    const result = await run([redhat()]);
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/^redhat: every one of the 2 listed documents answers 404\/410 \(first: http:\/\/127\.0\.0\.1:\d+\/redhat\/advisories\/2024\/rhsa-2024_6163\.json\)$/);
  });

  // CSAF 2.0 §7.1.18: a trusted provider publishes `<document>.sha512` / `.sha256` beside each
  // document; the BSI csaf_downloader refuses a document that does not match. We stored it.
  it('checks each document against the hash file published beside it and refuses one that does not match, keeping the stored copy', async () => {
    const sha = (algorithm: string, body: Buffer | string) => `${createHash(algorithm).update(body).digest('hex')}  rhsa-2024_6163.json\n`;
    table['/redhat/advisories/2024/rhsa-2024_6163.json.sha512'] = { body: sha('sha512', redhatDoc) };
    // rhsa-2024_0001 publishes only a SHA-256.
    table['/redhat/advisories/2024/rhsa-2024_0001.json.sha256'] = { body: sha('sha256', redhatDoc) };
    expect((await run([redhat()])).ok).toBe(true);
    const hashRequests = server.requests.filter((r) => /\.sha(256|512)$/.test(r.path)).map((r) => r.path).sort();
    expect(hashRequests).toEqual([
      '/redhat/advisories/2024/rhsa-2024_0001.json.sha256',
      '/redhat/advisories/2024/rhsa-2024_0001.json.sha512',
      '/redhat/advisories/2024/rhsa-2024_6163.json.sha512',
    ]);
    const kept = join(raw, 'csaf', 'redhat', '2024', 'rhsa-2024_6163.json');
    expect(await readFile(kept)).toEqual(redhatDoc);

    // A new release is listed, but the document served no longer matches its published hash.
    table['/redhat/advisories/changes.csv'] = { body: '"2024/rhsa-2024_6163.json","2024-10-03T10:00:00+00:00"\n' };
    table['/redhat/advisories/2024/rhsa-2024_6163.json'] = { body: redhatDoc.toString().replace('"lang": "en"', '"lang": "en", "x": 1') };
    const result = await run([redhat()]);
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(
      /^redhat: 1 documents failed \(first: http:\/\/127\.0\.0\.1:\d+\/redhat\/advisories\/2024\/rhsa-2024_6163\.json: does not match its SHA-512 hash published at http:\/\/\S+\.json\.sha512 /,
    );
    expect(await readFile(kept)).toEqual(redhatDoc);
    // An HTML page answered 200 in place of the document is named as what it is, not as a
    // document that fails its hash, and its hash file is not asked for.
    table['/redhat/advisories/changes.csv'] = { body: '"2024/rhsa-2024_6163.json","2024-10-04T10:00:00+00:00"\n' };
    table['/redhat/advisories/2024/rhsa-2024_6163.json'] = { headers: { 'content-type': 'text/html' }, body: '<!DOCTYPE html><html><body>Access Denied</body></html>' };
    const hashAsked = server.requests.filter((r) => r.path.endsWith('.sha512')).length;
    expect((await run([redhat()])).error).toMatch(/^redhat: 1 documents failed \(first: \S+\/rhsa-2024_6163\.json: malformed JSON \(Unexpected token '<'/);
    expect(server.requests.filter((r) => r.path.endsWith('.sha512')).length).toBe(hashAsked);
    expect(await readFile(kept)).toEqual(redhatDoc);
    table['/redhat/advisories/2024/rhsa-2024_6163.json'] = { body: redhatDoc.toString().replace('"lang": "en"', '"lang": "en", "x": 1') };

    // A hash file that holds no hash is refused too.
    table['/redhat/advisories/2024/rhsa-2024_6163.json.sha512'] = { body: '<html>moved</html>' };
    expect((await run([redhat()])).error).toMatch(/rhsa-2024_6163\.json: its hash file \S+ holds no SHA-512 hash/);
    expect(await readFile(kept)).toEqual(redhatDoc);
  });

  // Siemens' ROLIE feed lists documents at URLs without a year folder. Stored under the year of
  // `updated`, a revision in a new year left a second copy (siemens/2024/x.json and
  // siemens/2025/x.json), both read by the build.
  it('keeps a document whose URL has no year folder under the year of its initial release, whatever its revisions', async () => {
    const docUrl = `${server.base}/productcert/csaf/icsa-24-081-01.json`;
    const feed = (updated: string, published?: string) => ({
      body: JSON.stringify({
        feed: {
          id: 'siemens-ssa-feed-tlp-white',
          entry: [{ id: 'ICSA-24-081-01', link: [{ rel: 'self', href: docUrl }], ...(published ? { published } : {}), updated, content: { type: 'application/json', src: docUrl } }],
        },
      }),
    });
    table['/siemens/provider-metadata.json'] = {
      body: JSON.stringify({ distributions: [{ rolie: { feeds: [{ tlp_label: 'WHITE', url: `${server.base}/siemens/feed.json` }] } }] }),
    };
    table['/productcert/csaf/icsa-24-081-01.json'] = { body: cisaDoc };
    const siemens = () => ({ vendor: 'siemens', url: `${server.base}/siemens/provider-metadata.json` });
    const copies = async () => {
      const out: string[] = [];
      for (const year of (await readdir(join(raw, 'csaf', 'siemens'))).filter((n) => /^\d{4}$/.test(n))) {
        for (const f of await readdir(join(raw, 'csaf', 'siemens', year))) out.push(`${year}/${f}`);
      }
      return out.sort();
    };
    table['/siemens/feed.json'] = feed('2024-03-21T06:00:00Z', '2024-03-21T06:00:00Z');
    expect((await run([siemens()])).ok).toBe(true);
    expect(await copies()).toEqual(['2024/icsa-24-081-01.json']);

    // Revised in a new year: fetched again, kept at the same path.
    table['/siemens/feed.json'] = feed('2025-01-03T00:00:00Z', '2024-03-21T06:00:00Z');
    expect((await run([siemens()])).ok).toBe(true);
    expect(await copies()).toEqual(['2024/icsa-24-081-01.json']);
    expect((await stat(join(raw, 'csaf', 'siemens', '2024', 'icsa-24-081-01.json'))).mtime.toISOString()).toBe('2025-01-03T00:00:00.000Z');

    // A feed without `published`: the document's own initial_release_date decides. A second copy
    // an earlier version left under another year is removed once the document is stored again.
    await mkdir(join(raw, 'csaf', 'siemens', '2025'), { recursive: true });
    await writeFile(join(raw, 'csaf', 'siemens', '2025', 'icsa-24-081-01.json'), cisaDoc);
    table['/siemens/feed.json'] = feed('2025-02-01T00:00:00Z');
    server.requests.length = 0;
    expect((await run([siemens()])).ok).toBe(true);
    const docs = () => server.requests.filter((r) => r.path.startsWith('/productcert/')).map((r) => r.path);
    expect(docs()).toEqual(['/productcert/csaf/icsa-24-081-01.json']);
    expect(await copies()).toEqual(['2024/icsa-24-081-01.json']);
    // And nothing is asked for again while it is current.
    server.requests.length = 0;
    expect((await run([siemens()])).ok).toBe(true);
    expect(docs()).toEqual([]);
  });

  it('resolves listed paths relative to the directory, dropping a repeated tail', () => {
    expect(resolveListedPath('https://x.org/csaf/v2/advisories/', '2024/rhsa-2024_1.json')).toBe('https://x.org/csaf/v2/advisories/2024/rhsa-2024_1.json');
    expect(resolveListedPath('https://raw.example/cisa/CSAF/main/csaf_files/OT/white/', 'csaf_files/OT/white/2024/a.json')).toBe(
      'https://raw.example/cisa/CSAF/main/csaf_files/OT/white/2024/a.json',
    );
    expect(resolveListedPath('https://x.org/d', 'https://y.org/2024/b.json')).toBe('https://y.org/2024/b.json');
  });
});
