/**
 * Red Hat's first CSAF run starts from the provider's archive (`archive_latest.txt` naming a
 * `.tar.zst` of `<year>/<file>.json`), then goes on from changes.csv. The archive is made here
 * in the real format: a ustar tar (tar-stream), zstd-compressed by Node's zlib.
 */
import { existsSync } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as zlib from 'node:zlib';
import { pack } from 'tar-stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { archiveDate, archiveMemberPath, needsBootstrap } from '../../cli/fetch/sources/csaf-archive.ts';
import { fetchSources } from '../../cli/fetch/run.ts';
import { fixture, startServer, tempRaw, testConfig, testHttp, type Reply, type TestServer } from './helpers.ts';

const zstdCompressSync = (zlib as unknown as { zstdCompressSync: (b: Buffer) => Buffer }).zstdCompressSync;

async function tarZst(entries: Array<{ name: string; body: Buffer | string; mtime: Date; type?: 'file' | 'directory' }>): Promise<Buffer> {
  const p = pack();
  const chunks: Buffer[] = [];
  p.on('data', (c: unknown) => void chunks.push(c as Buffer));
  const done = new Promise<void>((r) => p.on('end', () => r()));
  for (const e of entries) {
    if (e.type === 'directory') p.entry({ name: e.name, type: 'directory', mtime: e.mtime });
    else p.entry({ name: e.name, mtime: e.mtime }, e.body);
  }
  p.finalize();
  await done;
  return zstdCompressSync(Buffer.concat(chunks));
}

describe('CSAF archive bootstrap', () => {
  let raw: string;
  let cleanup: () => Promise<void>;
  let server: TestServer;
  let table: Record<string, Reply>;
  let doc: Buffer;
  beforeEach(async () => {
    ({ raw, cleanup } = await tempRaw());
    doc = await fixture('csaf/redhat-rhsa-2024_6163.json');
    table = {};
    server = await startServer((_req, url) => table[url.pathname] ?? { status: 404, body: 'Not Found' });
    const b = server.base;
    table['/redhat/provider-metadata.json'] = { body: JSON.stringify({ distributions: [{ directory_url: `${b}/redhat/advisories/` }] }) };
    const archived = new Date('2024-09-04T00:00:00Z');
    table['/redhat/advisories/archive_latest.txt'] = { body: 'csaf_advisories_2024-09-04.tar.zst\n' };
    table['/redhat/advisories/csaf_advisories_2024-09-04.tar.zst'] = {
      headers: { 'accept-ranges': 'bytes', etag: '"a1"' },
      body: await tarZst([
        { name: '2024', body: '', mtime: archived, type: 'directory' },
        { name: '2024/rhsa-2024_6163.json', body: doc, mtime: archived },
        { name: '2024/rhsa-2024_6163.json.asc', body: '-----BEGIN PGP SIGNATURE-----', mtime: archived },
        { name: '2024/rhsa-2024_0001.json', body: doc, mtime: archived },
        { name: 'changes.csv', body: '', mtime: archived },
      ]),
    };
    table['/redhat/advisories/changes.csv'] = {
      body: [
        '"2024/rhsa-2024_6163.json","2024-09-03T10:00:00+00:00"',
        '"2024/rhsa-2024_0001.json","2024-09-10T00:00:00+00:00"',
        '"2024/rhsa-2024_9999.json","2024-09-11T00:00:00+00:00"',
      ].join('\n'),
    };
    table['/redhat/advisories/2024/rhsa-2024_0001.json'] = { body: doc };
    table['/redhat/advisories/2024/rhsa-2024_9999.json'] = { body: doc };
  });
  afterEach(async () => {
    await server.close();
    await cleanup();
  });

  async function run() {
    const config = await testConfig({ sources: { csaf: { providers: [{ vendor: 'redhat', url: `${server.base}/redhat/provider-metadata.json` }] } } });
    const [result] = await fetchSources({ rawDir: raw, config, sources: ['csaf'], http: testHttp().http });
    expect(result!.error).toBeUndefined();
    return result!;
  }
  const documentRequests = () => server.requests.map((r) => r.path).filter((p) => /\/\d{4}\/[^/]+\.json$/.test(p));

  it('unpacks the archive on the first run, then fetches only what changes.csv lists as newer', async () => {
    const first = await run();
    const vendor = join(raw, 'csaf', 'redhat');
    expect(await readFile(join(vendor, '2024', 'rhsa-2024_6163.json'))).toEqual(doc);
    expect((await stat(join(vendor, '2024', 'rhsa-2024_6163.json'))).mtime.toISOString()).toBe('2024-09-04T00:00:00.000Z');
    expect(existsSync(join(vendor, '2024', 'rhsa-2024_6163.json.asc'))).toBe(false);
    // 6163 is in the archive and older than it: not requested. 0001 changed after, 9999 is new.
    expect(documentRequests().sort()).toEqual(['/redhat/advisories/2024/rhsa-2024_0001.json', '/redhat/advisories/2024/rhsa-2024_9999.json']);
    expect((await stat(join(vendor, '2024', 'rhsa-2024_0001.json'))).mtime.toISOString()).toBe('2024-09-10T00:00:00.000Z');
    expect(first.outcome!.records).toBe(2 + 2);
    // No archive file is left in the raw folder.
    expect(server.requests.some((r) => r.path.endsWith('.tar.zst'))).toBe(true);

    server.requests.length = 0;
    await run();
    expect(server.requests.some((r) => r.path.endsWith('archive_latest.txt') || r.path.endsWith('.tar.zst'))).toBe(false);
    expect(documentRequests()).toEqual([]);
  });

  // What the archive holds is dated by its name: every change listed before that day is in it.
  it('dates the unpacked documents by the archive day, not by their tar mtimes', async () => {
    table['/redhat/advisories/csaf_advisories_2024-09-04.tar.zst'] = {
      body: await tarZst([
        // Written a second before changes.csv dates it: in the archive all the same.
        { name: '2024/rhsa-2024_6163.json', body: doc, mtime: new Date('2024-09-03T09:59:59Z') },
        // Dated after its change of 2024-09-10 (a mirror that repacked the archive later): the
        // archive of 2024-09-04 cannot hold that change.
        { name: '2024/rhsa-2024_0001.json', body: doc, mtime: new Date('2024-09-20T00:00:00Z') },
      ]),
    };
    await run();
    const vendor = join(raw, 'csaf', 'redhat');
    expect(documentRequests().sort()).toEqual(['/redhat/advisories/2024/rhsa-2024_0001.json', '/redhat/advisories/2024/rhsa-2024_9999.json']);
    expect((await stat(join(vendor, '2024', 'rhsa-2024_6163.json'))).mtime.toISOString()).toBe('2024-09-04T00:00:00.000Z');
    expect((await stat(join(vendor, '2024', 'rhsa-2024_0001.json'))).mtime.toISOString()).toBe('2024-09-10T00:00:00.000Z');
    expect(archiveDate('csaf_advisories_2024-09-04.tar.zst')?.toISOString()).toBe('2024-09-04T00:00:00.000Z');
    expect(archiveDate('latest.tar.zst')).toBeNull();
  });

  it('a provider without an archive is fetched document by document, as before', async () => {
    delete table['/redhat/advisories/archive_latest.txt'];
    table['/redhat/advisories/2024/rhsa-2024_6163.json'] = { body: doc };
    await run();
    expect(documentRequests()).toHaveLength(3);
  });

  it('an unpack that did not finish is started again; a garbled archive name is refused', async () => {
    const vendor = join(raw, 'csaf', 'redhat');
    expect(await needsBootstrap(vendor, false)).toBe(true);
    await run();
    expect(await needsBootstrap(vendor, false)).toBe(false);
    await writeFile(join(vendor, '_archive.json'), JSON.stringify({ started: '2024-09-05T00:00:00Z', finished: null }));
    expect(await needsBootstrap(vendor, false)).toBe(true);

    table['/redhat/advisories/archive_latest.txt'] = { body: '../../etc/passwd' };
    const config = await testConfig({ sources: { csaf: { providers: [{ vendor: 'redhat', url: `${server.base}/redhat/provider-metadata.json` }] } } });
    const [bad] = await fetchSources({ rawDir: raw, config, sources: ['csaf'], http: testHttp().http });
    expect(bad!.error).toMatch(/archive_latest\.txt: not an archive file name/);
  });

  it('takes only <year>/<file>.json members', () => {
    expect(archiveMemberPath('2024/rhsa-2024_6163.json')).toBe('2024/rhsa-2024_6163.json');
    expect(archiveMemberPath('./2019/rhsa-2019_1862.json')).toBe('2019/rhsa-2019_1862.json');
    expect(archiveMemberPath('2024/rhsa-2024_6163.json.asc')).toBeNull();
    expect(archiveMemberPath('../2024/x.json')).toBeNull();
    expect(archiveMemberPath('changes.csv')).toBeNull();
  });
});
