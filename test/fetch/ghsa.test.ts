import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseModifiedIds } from '../../cli/fetch/sources/ghsa.ts';
import { fetchSources } from '../../cli/fetch/run.ts';
import { readSourceStatuses } from '../../cli/fetch/status.ts';
import { fixture, startServer, tempRaw, testConfig, testHttp, type Reply, type TestServer } from './helpers.ts';

const EXPORTED = 'Wed, 30 Sep 2026 06:00:00 GMT';

describe('GHSA through the OSV bulk export', () => {
  let raw: string;
  let cleanup: () => Promise<void>;
  let server: TestServer;
  let table: Record<string, Reply | ((headers: Record<string, unknown>) => Reply)>;
  beforeEach(async () => {
    ({ raw, cleanup } = await tempRaw());
    const npmZip = Buffer.from(zipSync({ 'GHSA-p8p7-x288-28g6.json': await fixture('ghsa/GHSA-p8p7-x288-28g6.json') }));
    const pypiZip = Buffer.from(zipSync({ 'GHSA-235v-2948-prr3.json': await fixture('ghsa/GHSA-235v-2948-prr3.json') }));
    table = {
      '/npm/all.zip': { headers: { 'last-modified': EXPORTED }, body: npmZip },
      '/PyPI/all.zip': { headers: { 'last-modified': EXPORTED }, body: pypiZip },
    };
    server = await startServer((req, url) => {
      const e = table[decodeURIComponent(url.pathname)];
      if (!e) return { status: 404, body: 'NoSuchKey' };
      return typeof e === 'function' ? e(req.headers) : e;
    });
  });
  afterEach(async () => {
    await server.close();
    await cleanup();
  });

  async function run(now: string) {
    const config = await testConfig({ sources: { ghsa: { baseUrl: server.base, ecosystems: ['npm', 'PyPI'] } } });
    const [result] = await fetchSources({ rawDir: raw, config, sources: ['ghsa'], http: testHttp().http, now: () => new Date(now) });
    return result!;
  }

  const paths = () => server.requests.map((r) => decodeURIComponent(r.path));

  it('a damaged state file starts the source over with all.zip per ecosystem (it failed the source at every run with a bare "Unexpected token")', async () => {
    await mkdir(join(raw, 'ghsa'), { recursive: true });
    await writeFile(join(raw, 'ghsa', '_state.json'), '{"npm": {"watermark": "2026-09-');
    const result = await run('2026-09-30T12:00:00Z');
    expect(result.error ?? null).toBeNull();
    expect(result.ok).toBe(true);
    expect(paths()).toEqual(['/npm/all.zip', '/PyPI/all.zip']);
    expect(JSON.parse(await readFile(join(raw, 'ghsa', '_state.json'), 'utf8')).npm.watermark).toBe('2026-09-29T06:00:00.000Z');
  });

  it('downloads all.zip per ecosystem, then only the GHSA records modified since the watermark', async () => {
    expect((await run('2026-09-30T12:00:00Z')).ok).toBe(true);
    expect(paths()).toEqual(['/npm/all.zip', '/PyPI/all.zip']);
    expect(existsSync(join(raw, 'ghsa', 'npm', 'all.zip'))).toBe(true);
    // The watermark starts a day before the export's Last-Modified (overlapHours).
    const state = JSON.parse(await readFile(join(raw, 'ghsa', '_state.json'), 'utf8'));
    expect(state.npm.watermark).toBe('2026-09-29T06:00:00.000Z');

    server.requests.length = 0;
    const updated = JSON.parse((await fixture('ghsa/GHSA-p8p7-x288-28g6.json')).toString());
    updated.modified = '2026-09-30T10:00:00Z';
    table['/npm/modified_id.csv'] = {
      headers: { etag: '"csv1"' },
      body: ['2026-09-30T10:00:00Z,GHSA-p8p7-x288-28g6', '2026-09-30T09:00:00Z,MAL-2026-1234', '2026-09-01T00:00:00Z,GHSA-old0-0000-0000', ''].join('\n'),
    };
    // As OSV serves it (compact, its own key order): stored byte for byte, never re-serialised.
    const served = Buffer.from(JSON.stringify(updated));
    table['/npm/GHSA-p8p7-x288-28g6.json'] = { body: served };
    table['/PyPI/modified_id.csv'] = { body: '2026-09-02T00:00:00Z,GHSA-235v-2948-prr3\n' };
    const second = await run('2026-10-01T12:00:00Z');
    expect(second.ok).toBe(true);
    expect(paths()).toEqual(['/npm/modified_id.csv', '/npm/GHSA-p8p7-x288-28g6.json', '/PyPI/modified_id.csv']);
    expect(await readFile(join(raw, 'ghsa', 'npm', 'updates', 'GHSA-p8p7-x288-28g6.json'))).toEqual(served);
    expect((await readSourceStatuses(raw)).ghsa).toMatchObject({ ok: true, records: 1 });

    // Unchanged listing: one conditional request per ecosystem and nothing else.
    server.requests.length = 0;
    table['/npm/modified_id.csv'] = (h) => (h['if-none-match'] === '"csv1"' ? { status: 304 } : { status: 500 });
    expect((await run('2026-10-01T13:00:00Z')).ok).toBe(true);
    expect(paths()).toEqual(['/npm/modified_id.csv', '/PyPI/modified_id.csv']);
  });

  // OSV lists records as it exports them, not in `modified` order: one modified at 09:30 can
  // first appear after one modified at 10:00 was fetched. It sat below the watermark (10:00) and
  // was skipped until the next all.zip, days later.
  it('fetches a record listed late, modified before the watermark, once; rows already listed are not fetched again', async () => {
    expect((await run('2026-09-30T12:00:00Z')).ok).toBe(true);
    const updated = JSON.parse((await fixture('ghsa/GHSA-p8p7-x288-28g6.json')).toString());
    updated.modified = '2026-09-30T10:00:00Z';
    const lateRecord = JSON.parse((await fixture('ghsa/GHSA-2326-hx7g-3m9r.json')).toString());
    lateRecord.modified = '2026-09-30T09:30:00Z';
    const first = '2026-09-30T10:00:00Z,GHSA-p8p7-x288-28g6\n';
    table['/npm/modified_id.csv'] = { body: first };
    table['/npm/GHSA-p8p7-x288-28g6.json'] = { body: JSON.stringify(updated) };
    table['/npm/GHSA-2326-hx7g-3m9r.json'] = { body: JSON.stringify(lateRecord) };
    table['/PyPI/modified_id.csv'] = { body: '' };
    expect((await run('2026-09-30T13:00:00Z')).ok).toBe(true);
    expect(JSON.parse(await readFile(join(raw, 'ghsa', '_state.json'), 'utf8')).npm.watermark).toBe('2026-09-30T10:00:00.000Z');

    // The next export lists the record modified at 09:30.
    server.requests.length = 0;
    table['/npm/modified_id.csv'] = { body: `${first}2026-09-30T09:30:00Z,GHSA-2326-hx7g-3m9r\n` };
    expect((await run('2026-09-30T14:00:00Z')).ok).toBe(true);
    expect(paths()).toEqual(['/npm/modified_id.csv', '/npm/GHSA-2326-hx7g-3m9r.json', '/PyPI/modified_id.csv']);
    expect((await readdir(join(raw, 'ghsa', 'npm', 'updates'))).sort()).toEqual(['GHSA-2326-hx7g-3m9r.json', 'GHSA-p8p7-x288-28g6.json']);

    // Both are known now: the same listing again fetches neither.
    server.requests.length = 0;
    expect((await run('2026-09-30T15:00:00Z')).ok).toBe(true);
    expect(paths()).toEqual(['/npm/modified_id.csv', '/PyPI/modified_id.csv']);
  });

  it('a changed record that fails keeps the watermark, so the next run fetches it again', async () => {
    expect((await run('2026-09-30T12:00:00Z')).ok).toBe(true);
    table['/npm/modified_id.csv'] = { body: '2026-09-30T10:00:00Z,GHSA-p8p7-x288-28g6\n' };
    table['/npm/GHSA-p8p7-x288-28g6.json'] = { body: '{"id":"GHSA-p8p7' };
    table['/PyPI/modified_id.csv'] = { body: '' };
    const failed = await run('2026-10-01T12:00:00Z');
    expect(failed.ok).toBe(false);
    expect(failed.error).toMatch(/npm: 1 of 1 changed records failed .*malformed JSON/);
    expect(existsSync(join(raw, 'ghsa', 'npm', 'updates'))).toBe(false);
    const state = JSON.parse(await readFile(join(raw, 'ghsa', '_state.json'), 'utf8'));
    expect(state.npm.watermark).toBe('2026-09-29T06:00:00.000Z');
    expect(await readdir(join(raw, 'ghsa', 'npm'))).toEqual(['all.zip']);
  });

  it('after a run that failed on one changed record, the next asks only for what it does not hold yet', async () => {
    expect((await run('2026-09-30T12:00:00Z')).ok).toBe(true);
    const updated = JSON.parse((await fixture('ghsa/GHSA-p8p7-x288-28g6.json')).toString());
    updated.modified = '2026-09-30T10:00:00Z';
    const other = JSON.parse((await fixture('ghsa/GHSA-2326-hx7g-3m9r.json')).toString());
    other.modified = '2026-09-30T11:00:00Z';
    table['/npm/modified_id.csv'] = { body: '2026-09-30T11:00:00Z,GHSA-2326-hx7g-3m9r\n2026-09-30T10:00:00Z,GHSA-p8p7-x288-28g6\n' };
    table['/npm/GHSA-p8p7-x288-28g6.json'] = { body: JSON.stringify(updated) };
    table['/npm/GHSA-2326-hx7g-3m9r.json'] = { status: 503, body: 'Service Unavailable' };
    table['/PyPI/modified_id.csv'] = { body: '' };
    expect((await run('2026-10-01T12:00:00Z')).ok).toBe(false);
    expect(await readdir(join(raw, 'ghsa', 'npm', 'updates'))).toEqual(['GHSA-p8p7-x288-28g6.json']);

    server.requests.length = 0;
    table['/npm/GHSA-2326-hx7g-3m9r.json'] = { body: JSON.stringify(other) };
    expect((await run('2026-10-01T13:00:00Z')).ok).toBe(true);
    expect(paths()).toEqual(['/npm/modified_id.csv', '/npm/GHSA-2326-hx7g-3m9r.json', '/PyPI/modified_id.csv']);
    expect((await readdir(join(raw, 'ghsa', 'npm', 'updates'))).sort()).toEqual(['GHSA-2326-hx7g-3m9r.json', 'GHSA-p8p7-x288-28g6.json']);
    expect(JSON.parse(await readFile(join(raw, 'ghsa', '_state.json'), 'utf8')).npm.watermark).toBe('2026-09-30T11:00:00.000Z');
  });

  // OSV lists an id whose record the bucket does not hold (withdrawn, moved, or the listing ahead
  // of its records). Failing the ecosystem for it kept the watermark where it was: every changed
  // record was fetched again at every run, and the source was reported failed, for ever.
  it('skips a listed record that answers 404, naming it, and still moves the watermark', async () => {
    expect((await run('2026-09-30T12:00:00Z')).ok).toBe(true);
    const updated = JSON.parse((await fixture('ghsa/GHSA-p8p7-x288-28g6.json')).toString());
    updated.modified = '2026-09-30T10:00:00Z';
    table['/npm/modified_id.csv'] = { body: '2026-09-30T11:00:00Z,GHSA-zzzz-zzzz-zzzz\n2026-09-30T10:00:00Z,GHSA-p8p7-x288-28g6\n' };
    table['/npm/GHSA-p8p7-x288-28g6.json'] = { body: JSON.stringify(updated) };
    table['/PyPI/modified_id.csv'] = { body: '' };
    const result = await run('2026-10-01T12:00:00Z');
    expect(result.ok).toBe(true);
    expect(result.outcome?.detail).toMatch(/1 updated records, 1 listed but missing \(404, skipped\)$/);
    expect(await readdir(join(raw, 'ghsa', 'npm', 'updates'))).toEqual(['GHSA-p8p7-x288-28g6.json']);
    const state = JSON.parse(await readFile(join(raw, 'ghsa', '_state.json'), 'utf8'));
    expect(state.npm.watermark).toBe('2026-09-30T11:00:00.000Z');
    // The next run asks for neither again.
    server.requests.length = 0;
    expect((await run('2026-10-01T13:00:00Z')).ok).toBe(true);
    expect(paths()).toEqual(['/npm/modified_id.csv', '/PyPI/modified_id.csv']);
  });

  it('reads both modified_id.csv row forms and skips a header', () => {
    expect(parseModifiedIds('modified,id\n2026-01-02T03:04:05Z,npm/GHSA-aaaa-bbbb-cccc\n2026-01-01T00:00:00.123456Z,PYSEC-2026-1\n')).toEqual([
      { modified: '2026-01-02T03:04:05.000Z', id: 'GHSA-aaaa-bbbb-cccc' },
      { modified: '2026-01-01T00:00:00.123Z', id: 'PYSEC-2026-1' },
    ]);
  });
});
