import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fetchSources } from '../../cli/fetch/run.ts';
import { fixture, startServer, tempRaw, testConfig, testHttp, type Reply, type TestServer } from './helpers.ts';

describe('MSRC CVRF', () => {
  let raw: string;
  let cleanup: () => Promise<void>;
  let server: TestServer;
  let table: Record<string, Reply>;
  let doc: Buffer;
  const index = (feb: string) =>
    JSON.stringify({
      '@odata.context': 'https://api.msrc.microsoft.com/cvrf/v3.0/$metadata#updates',
      value: [
        { ID: '2024-Feb', Alias: '2024-Feb', DocumentTitle: 'February 2024 Security Updates', Severity: null, InitialReleaseDate: '2024-02-13T08:00:00Z', CurrentReleaseDate: feb, CvrfUrl: `${server.base}/cvrf/v3.0/cvrf/2024-Feb` },
        { ID: '2023-Dec', Alias: '2023-Dec', DocumentTitle: 'December 2023 Security Updates', Severity: null, InitialReleaseDate: '2023-12-12T08:00:00Z', CurrentReleaseDate: '2023-12-12T08:00:00Z', CvrfUrl: `${server.base}/cvrf/v3.0/cvrf/2023-Dec` },
      ],
    });

  beforeEach(async () => {
    ({ raw, cleanup } = await tempRaw());
    doc = await fixture('msrc/2024-Feb.json');
    table = {};
    server = await startServer((_req, url) => table[url.pathname] ?? { status: 404 });
    table['/cvrf/v3.0/updates'] = { body: index('2024-02-13T08:00:00Z') };
    table['/cvrf/v3.0/cvrf/2024-Feb'] = { body: doc };
    table['/cvrf/v3.0/cvrf/2023-Dec'] = { body: monthDoc('2023-Dec', 'December 2023 Security Updates') };
  });
  /** The fixture as another month's document (its identification and title). */
  const monthDoc = (id: string, title: string) => {
    const d = JSON.parse(doc.toString('utf8'));
    d.DocumentTracking.Identification.ID.Value = id;
    d.DocumentTracking.Identification.Alias.Value = id;
    d.DocumentTitle.Value = title;
    return Buffer.from(JSON.stringify(d));
  };
  afterEach(async () => {
    await server.close();
    await cleanup();
  });

  async function run(sinceYear: number | null = null) {
    const config = await testConfig({ sources: { msrc: { updatesUrl: `${server.base}/cvrf/v3.0/updates`, sinceYear } } });
    const [result] = await fetchSources({ rawDir: raw, config, sources: ['msrc'], http: testHttp().http });
    return result!;
  }
  const docs = () => server.requests.filter((r) => r.path.startsWith('/cvrf/v3.0/cvrf/'));

  it('fetches each monthly document as JSON once, and again only when the index says it changed', async () => {
    expect((await run()).ok).toBe(true);
    expect((await readdir(join(raw, 'msrc'))).filter((n) => !n.startsWith('_')).sort()).toEqual(['2023-Dec.json', '2024-Feb.json']);
    expect(docs().every((r) => r.headers.accept === 'application/json')).toBe(true);
    expect(await readFile(join(raw, 'msrc', '2024-Feb.json'))).toEqual(doc);

    server.requests.length = 0;
    expect((await run()).ok).toBe(true);
    expect(docs()).toHaveLength(0);

    table['/cvrf/v3.0/updates'] = { body: index('2024-03-01T08:00:00Z') };
    expect((await run()).ok).toBe(true);
    expect(docs().map((r) => r.path)).toEqual(['/cvrf/v3.0/cvrf/2024-Feb']);
  });

  it('honours sinceYear', async () => {
    expect((await run(2024)).ok).toBe(true);
    expect(docs().map((r) => r.path)).toEqual(['/cvrf/v3.0/cvrf/2024-Feb']);
  });

  it("skips another month's document served for a month, keeping the stored copy, and asks for it again next run", async () => {
    await run();
    const file = join(raw, 'msrc', '2024-Feb.json');
    // What the API does for 2026-Jan (MSRC-Microsoft-Security-Updates-API#178): the next month's document.
    table['/cvrf/v3.0/cvrf/2024-Feb'] = { body: monthDoc('2024-Mar', 'March 2024 Security Updates') };
    table['/cvrf/v3.0/updates'] = { body: index('2024-03-12T08:00:00Z') };
    const result = await run();
    // The upstream fault lasts: the source is not failed for it, the skip is said.
    expect(result.ok).toBe(true);
    expect(result.outcome?.detail).toBe("0 of 2 monthly documents; skipped, another month's document served: 2024-Feb (served 2024-Mar)");
    expect(await readFile(file)).toEqual(doc);
    server.requests.length = 0;
    table['/cvrf/v3.0/cvrf/2024-Feb'] = { body: doc };
    expect((await run()).ok).toBe(true);
    expect(docs().map((r) => r.path)).toEqual(['/cvrf/v3.0/cvrf/2024-Feb']);
  });

  it('an XML answer where JSON was asked for fails clearly and keeps the last good document', async () => {
    await run();
    const file = join(raw, 'msrc', '2024-Feb.json');
    await writeFile(file, doc); // resets the mtime: the index is now "newer"
    table['/cvrf/v3.0/cvrf/2024-Feb'] = { body: '<?xml version="1.0"?><cvrfdoc/>' };
    table['/cvrf/v3.0/updates'] = { body: index('2030-01-01T00:00:00Z') };
    const result = await run();
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/MSRC 2024-Feb from http:\/\/127\.0\.0\.1:\d+\/cvrf\/v3\.0\/cvrf\/2024-Feb: malformed JSON/);
    expect(await readFile(file)).toEqual(doc);
  });
});
