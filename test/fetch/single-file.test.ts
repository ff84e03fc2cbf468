import { readFile, readdir, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { strToU8, zipSync } from 'fflate';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fetchSources } from '../../cli/fetch/run.ts';
import { readSourceStatuses } from '../../cli/fetch/status.ts';
import type { SourceName } from '../../cli/fetch/config.ts';
import { fixture, routes, startServer, tempRaw, testConfig, testHttp, type Route, type TestServer } from './helpers.ts';

describe('single-file sources', () => {
  let raw: string;
  let cleanup: () => Promise<void>;
  let server: TestServer | undefined;
  beforeEach(async () => ({ raw, cleanup } = await tempRaw()));
  afterEach(async () => {
    await server?.close();
    server = undefined;
    await cleanup();
  });

  async function run(source: SourceName, route: Route, http = testHttp()) {
    server ??= await startServer(route);
    const b = server.base;
    const config = await testConfig({
      sources: {
        kev: { url: `${b}/kev.json` },
        epss: { url: `${b}/epss.csv.gz` },
        exploitdb: { url: `${b}/files_exploits.csv` },
        metasploit: { url: `${b}/modules_metadata_base.json` },
        nuclei: { url: `${b}/cves.json` },
        'poc-in-github': { url: `${b}/master.zip` },
        cwe: { url: `${b}/cwec_latest.xml.zip` },
      },
    });
    const [result] = await fetchSources({ rawDir: raw, config, sources: [source], http: http.http });
    return result!;
  }

  /** Data files only: no temporary leftovers beside the good file. */
  async function files(source: string): Promise<string[]> {
    return (await readdir(join(raw, source))).filter((n) => n !== '_http.json').sort();
  }

  it('KEV: downloads, then costs one conditional round trip (304) when unchanged', async () => {
    const kev = await fixture('kev/known_exploited_vulnerabilities.head3.json');
    const seen: Array<Record<string, unknown>> = [];
    const route: Route = (req) => {
      seen.push(req.headers);
      if (req.headers['if-none-match'] === '"v1"') return { status: 304 };
      return { headers: { etag: '"v1"', 'last-modified': 'Mon, 25 Aug 2025 17:04:19 GMT' }, body: kev };
    };
    const first = await run('kev', route);
    expect(first.ok).toBe(true);
    expect(await readFile(join(raw, 'kev', 'known_exploited_vulnerabilities.json'))).toEqual(kev);
    expect(seen[0]!['if-none-match']).toBeUndefined();
    let status = (await readSourceStatuses(raw)).kev!;
    expect(status).toMatchObject({ ok: true, records: 3, watermark: '2025-08-25T17:04:19.979Z', unchanged: false });

    const second = await run('kev', route);
    expect(second.ok).toBe(true);
    expect(seen).toHaveLength(2);
    expect(seen[1]!['if-none-match']).toBe('"v1"');
    expect(seen[1]!['if-modified-since']).toBe('Mon, 25 Aug 2025 17:04:19 GMT');
    expect(await readFile(join(raw, 'kev', 'known_exploited_vulnerabilities.json'))).toEqual(kev);
    status = (await readSourceStatuses(raw)).kev!;
    expect(status).toMatchObject({ ok: true, unchanged: true, records: 3, bytes: 0 });
  });

  it('KEV, EPSS: a copy dated before the file in place (a stale CDN edge) is refused, the file in place kept', async () => {
    const kev = await fixture('kev/known_exploited_vulnerabilities.head3.json');
    // The catalog of the day before: a CDN edge that has not seen today's release yet.
    const older = Buffer.from(kev.toString('utf8').replace('"2025.08.25"', '"2025.08.22"').replace('2025-08-25T17:04:19.9796Z', '2025-08-22T16:10:02.0000Z'));
    const csv = (await fixture('epss/epss_scores-current.head.csv')).toString('utf8');
    let body = kev;
    let epss = gzipSync(csv);
    const route: Route = (_req, url) =>
      url.pathname === '/epss.csv.gz' ? { body: epss } : { headers: { etag: body === kev ? '"today"' : '"yesterday"' }, body };
    expect((await run('kev', route)).ok).toBe(true);
    body = older;
    const stale = await run('kev', route);
    expect(stale.ok).toBe(false);
    expect(stale.error).toMatch(
      /^kev known_exploited_vulnerabilities\.json from http:\/\/127\.0\.0\.1:\d+\/kev\.json: dated 2025-08-22T16:10:02\.000Z, older than the file in place \(2025-08-25T17:04:19\.979Z\); a stale copy, refused, the file in place is kept/,
    );
    expect(await readFile(join(raw, 'kev', 'known_exploited_vulnerabilities.json'))).toEqual(kev);
    expect(await files('kev')).toEqual(['known_exploited_vulnerabilities.json']);
    // Not remembered as the copy in place: the next run asks without the stale copy's validators.
    expect(JSON.parse(await readFile(join(raw, 'kev', '_http.json'), 'utf8'))['known_exploited_vulnerabilities.json'].etag).toBe('"today"');
    expect((await readSourceStatuses(raw)).kev).toMatchObject({ ok: false, watermark: '2025-08-25T17:04:19.979Z' });
    // The same day again (or a later one) is taken as usual.
    body = kev;
    expect((await run('kev', route)).ok).toBe(true);

    expect((await run('epss', route)).ok).toBe(true);
    epss = gzipSync(csv.replace('score_date:2026-09-29T12:00:22Z', 'score_date:2026-09-28T12:00:19Z'));
    const staleEpss = await run('epss', route);
    expect(staleEpss.error).toMatch(/epss_scores-current\.csv\.gz from .*: dated 2026-09-28T12:00:19\.000Z, older than the file in place \(2026-09-29T12:00:22\.000Z\)/);
    expect(await readFile(join(raw, 'epss', 'epss_scores-current.csv.gz'))).toEqual(gzipSync(csv));
  });

  it('KEV: malformed JSON keeps the last good file byte for byte and records the error', async () => {
    const dir = join(raw, 'kev');
    await mkdir(dir, { recursive: true });
    const good = await fixture('kev/known_exploited_vulnerabilities.head3.json');
    await writeFile(join(dir, 'known_exploited_vulnerabilities.json'), good);
    const result = await run('kev', routes({ '/kev.json': { body: '{"catalogVersion":"2025.08.26","vulnerabilities":[{"cveID":"CVE-' } }));
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/known_exploited_vulnerabilities\.json from http:\/\/127\.0\.0\.1:\d+\/kev\.json: malformed JSON/);
    expect(await readFile(join(dir, 'known_exploited_vulnerabilities.json'))).toEqual(good);
    expect(await files('kev')).toEqual(['known_exploited_vulnerabilities.json']);
    expect((await readSourceStatuses(raw)).kev).toMatchObject({ ok: false, last_success: null });
  });

  it('KEV: a JSON body of the wrong shape (an error page) is refused', async () => {
    const result = await run('kev', routes({ '/kev.json': { body: '{"error":"maintenance"}' } }));
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/not a KEV catalog/);
    expect(await files('kev')).toEqual([]);
  });

  it('EPSS: stores the gzip, reads the score date; a truncated gzip leaves the previous file intact', async () => {
    const csv = await fixture('epss/epss_scores-current.head.csv');
    const gz = gzipSync(csv);
    const ok = await run('epss', routes({ '/epss.csv.gz': { body: gz } }));
    expect(ok.ok).toBe(true);
    const file = join(raw, 'epss', 'epss_scores-current.csv.gz');
    expect(await readFile(file)).toEqual(gz);
    expect((await readSourceStatuses(raw)).epss).toMatchObject({ records: 59, watermark: '2026-09-29T12:00:22.000Z' });

    await server!.close();
    server = undefined;
    const bad = await run('epss', routes({ '/epss.csv.gz': { body: gz.subarray(0, Math.floor(gz.length / 2)) } }));
    expect(bad.ok).toBe(false);
    expect(bad.error).toMatch(/epss_scores-current\.csv\.gz from .*: not a complete gzip file/);
    expect(await readFile(file)).toEqual(gz);
    expect(await files('epss')).toEqual(['epss_scores-current.csv.gz']);
    const status = (await readSourceStatuses(raw)).epss!;
    expect(status.ok).toBe(false);
    expect(status.last_success).not.toBeNull();
    expect(status.records).toBe(59);
  });

  // A server or CDN that gzips the answer though the download asked for no coding. Stored as
  // received, the catalog was a gzip stream refused as "malformed JSON", naming no encoding.
  it('decodes a download sent with a Content-Encoding it did not ask for', async () => {
    const kev = await fixture('kev/known_exploited_vulnerabilities.head3.json');
    const result = await run('kev', routes({ '/kev.json': { headers: { 'content-encoding': 'gzip', 'content-type': 'application/json' }, body: gzipSync(kev) } }));
    expect(server!.requests[0]!.headers['accept-encoding']).toBeUndefined();
    expect(result.ok).toBe(true);
    expect(await readFile(join(raw, 'kev', 'known_exploited_vulnerabilities.json'))).toEqual(kev);
    expect(await files('kev')).toEqual(['known_exploited_vulnerabilities.json']);
  });

  it('keeps a .gz file sent as Content-Encoding: gzip (a server misconfiguration) as it came, and names a coding it cannot undo', async () => {
    const gz = gzipSync(await fixture('epss/epss_scores-current.head.csv'));
    const ok = await run('epss', routes({ '/epss.csv.gz': { headers: { 'content-encoding': 'gzip' }, body: gz } }));
    expect(ok.ok).toBe(true);
    expect(await readFile(join(raw, 'epss', 'epss_scores-current.csv.gz'))).toEqual(gz);
    await server!.close();
    server = undefined;
    const odd = await run('kev', routes({ '/kev.json': { headers: { 'content-encoding': 'zstd' }, body: 'x' } }));
    expect(odd.error).toMatch(/^GET http:\/\/127\.0\.0\.1:\d+\/kev\.json: unsupported Content-Encoding "zstd" \(not asked for\)$/);
    await server!.close();
    server = undefined;
    const broken = await run('kev', routes({ '/kev.json': { headers: { 'content-encoding': 'gzip' }, body: 'not gzip' } }));
    expect(broken.error).toMatch(/kev\.json: the body, sent with Content-Encoding gzip though none was asked for, does not decode/);
    expect(await files('kev')).toEqual([]);
  });

  it('EPSS: an HTML page answered 200 in place of the gzip is named as such, the file in place kept', async () => {
    const gz = gzipSync(await fixture('epss/epss_scores-current.head.csv'));
    expect((await run('epss', routes({ '/epss.csv.gz': { body: gz } }))).ok).toBe(true);
    await server!.close();
    server = undefined;
    const page = '<!DOCTYPE html>\n<html lang="en">\n<head><title>503 Service Temporarily Unavailable</title></head></html>\n';
    const bad = await run('epss', routes({ '/epss.csv.gz': { headers: { 'content-type': 'text/html' }, body: page } }));
    expect(bad.ok).toBe(false);
    expect(bad.error).toMatch(/^epss epss_scores-current\.csv\.gz from http:\/\/127\.0\.0\.1:\d+\/epss\.csv\.gz: not a gzip file \(it starts with "<!DOCTYPE html> <html lang=\\"en\\"> <head><title>503 Service/);
    expect(await readFile(join(raw, 'epss', 'epss_scores-current.csv.gz'))).toEqual(gz);
    expect(await files('epss')).toEqual(['epss_scores-current.csv.gz']);
  });

  // A server or proxy that gzips every answer on the fly, the .gz included: stored as it came,
  // the file was gzip inside gzip and refused as a CSV with an "unexpected header" of binary.
  it('takes the outer layer off a .gz that was gzipped again on its way (Content-Encoding: gzip over a gzip file)', async () => {
    const gz = gzipSync(await fixture('epss/epss_scores-current.head.csv'));
    const ok = await run('epss', routes({ '/epss.csv.gz': { headers: { 'content-encoding': 'gzip', 'content-type': 'application/gzip' }, body: gzipSync(gz) } }));
    expect(ok.ok).toBe(true);
    expect(await readFile(join(raw, 'epss', 'epss_scores-current.csv.gz'))).toEqual(gz);
    expect((await readSourceStatuses(raw)).epss).toMatchObject({ records: 59, watermark: '2026-09-29T12:00:22.000Z' });
    expect(await files('epss')).toEqual(['epss_scores-current.csv.gz']);
  });

  it('a connection cut mid-body on every attempt is retried, then fails naming the URL, nothing stored', async () => {
    const gz = gzipSync(await fixture('epss/epss_scores-current.head.csv'));
    const result = await run('epss', routes({ '/epss.csv.gz': { body: gz, cutAfter: 100 } }));
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/^GET http:\/\/127\.0\.0\.1:\d+\/epss\.csv\.gz: .*after 4 attempts$/);
    expect(server!.requests).toHaveLength(4);
    expect(await files('epss')).toEqual([]);
  });

  it('a server that never answers times out with a clear message', async () => {
    const result = await run('kev', () => new Promise(() => {}), testHttp({ retries: 0, timeoutMs: 150 }));
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/GET http:\/\/127\.0\.0\.1:\d+\/kev\.json: .*(timeout|Timeout)/i);
  });

  it('Exploit-DB, Metasploit, nuclei: checks the shape and counts records', async () => {
    const exploitdb = await fixture('exploits/exploitdb-files_exploits.csv.head');
    const metasploit = await fixture('exploits/metasploit-modules_metadata_base.excerpt.json');
    const nuclei = await fixture('exploits/nuclei-templates-cves.json.excerpt.jsonl');
    const route = routes({
      '/files_exploits.csv': { body: exploitdb },
      '/modules_metadata_base.json': { body: metasploit },
      '/cves.json': { body: nuclei },
    });
    expect((await run('exploitdb', route)).ok).toBe(true);
    expect((await run('metasploit', route)).ok).toBe(true);
    expect((await run('nuclei', route)).ok).toBe(true);
    const statuses = await readSourceStatuses(raw);
    expect(statuses.exploitdb!.records).toBe(25);
    expect(statuses.metasploit!.records).toBe(2);
    expect(statuses.nuclei!.records).toBe(9);
    expect(await readFile(join(raw, 'exploitdb', 'files_exploits.csv'))).toEqual(exploitdb);
    expect(await readFile(join(raw, 'nuclei', 'cves.json'))).toEqual(nuclei);
  });

  // HTTP/1.1 lets a server end a body by closing the connection (no Content-Length, not
  // chunked). Cut at a line boundary, such a body is a well-formed CSV or JSON Lines file with
  // the first records only: it passed every check and replaced the good file.
  it('Exploit-DB, nuclei: a close-delimited body cut short (fewer than half the records in place) is refused, the file in place kept', async () => {
    const closeDelimited = (body: Buffer): Route => (req) => {
      req.socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n');
      req.socket.end(body);
      return new Promise<never>(() => {});
    };
    const firstLines = (text: Buffer, n: number) => Buffer.from(`${text.toString('utf8').split('\n').slice(0, n).join('\n')}\n`);
    for (const [source, file, good, cut, before, after] of [
      ['exploitdb', 'files_exploits.csv', await fixture('exploits/exploitdb-files_exploits.csv.head'), 11, 25, 10],
      ['nuclei', 'cves.json', await fixture('exploits/nuclei-templates-cves.json.excerpt.jsonl'), 4, 9, 4],
    ] as const) {
      await mkdir(join(raw, source), { recursive: true });
      await writeFile(join(raw, source, file), good);
      const result = await run(source, closeDelimited(firstLines(good, cut)));
      expect(result.ok, source).toBe(false);
      expect(result.error).toMatch(
        new RegExp(`^${source} ${file.replace('.', '\\.')} from http://127\\.0\\.0\\.1:\\d+/${file.replace('.', '\\.')}: ${after} records, fewer than half of the ${before} in the file in place .*; refused, the file in place is kept`),
      );
      expect(await readFile(join(raw, source, file))).toEqual(good);
      expect(await files(source)).toEqual([file]);
      await server!.close();
      server = undefined;
    }
    // Not a shrink: a file with more than half the records replaces the one in place.
    const exploitdb = await fixture('exploits/exploitdb-files_exploits.csv.head');
    const result = await run('exploitdb', closeDelimited(firstLines(exploitdb, 14)));
    expect(result.ok).toBe(true);
    expect((await readSourceStatuses(raw)).exploitdb!.records).toBe(13);
  });

  it('Exploit-DB, nuclei: a close-delimited body cut past half, inside a record or just before its line break, is refused, the file in place kept', async () => {
    const closeDelimited = (body: Buffer): Route => (req) => {
      req.socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n');
      req.socket.end(body);
      return new Promise<never>(() => {});
    };
    const exploitdb = await fixture('exploits/exploitdb-files_exploits.csv.head');
    const nuclei = await fixture('exploits/nuclei-templates-cves.json.excerpt.jsonl');
    // Where the 21st line of the CSV and the 8th of the JSON Lines start: cuts well past half.
    const lineStart = (text: Buffer, n: number) => text.toString('utf8').split('\n').slice(0, n - 1).join('\n').length + 1;
    const csvRow = lineStart(exploitdb, 21);
    const jsonRow = lineStart(nuclei, 8);
    for (const [source, file, good, cut, error] of [
      // Mid-row: fewer fields than the header names, or inside a quoted field.
      ['exploitdb', 'files_exploits.csv', exploitdb, exploitdb.indexOf(',', csvRow) + 1, /malformed CSV \(Invalid Record Length: expect 17, got 2 on line 21\)/],
      ['exploitdb', 'files_exploits.csv', exploitdb, csvRow + 40, /malformed CSV \(Quote Not Closed/],
      // Just before the row's line break: every field there, the last one possibly short.
      ['exploitdb', 'files_exploits.csv', exploitdb, exploitdb.indexOf('\n', csvRow), /the last line has no line break/],
      ['nuclei', 'cves.json', nuclei, nuclei.indexOf('\n', jsonRow), /the last line has no line break/],
    ] as const) {
      await mkdir(join(raw, source), { recursive: true });
      await writeFile(join(raw, source, file), good);
      const result = await run(source, closeDelimited(good.subarray(0, cut)));
      expect([source, cut, result.ok]).toEqual([source, cut, false]);
      expect(result.error).toMatch(error);
      expect(await readFile(join(raw, source, file))).toEqual(good);
      await server!.close();
      server = undefined;
    }
  });

  it('Metasploit: a module entry without its references array is refused, naming the module', async () => {
    const modules = JSON.parse((await fixture('exploits/metasploit-modules_metadata_base.excerpt.json')).toString('utf8')) as Record<string, Record<string, unknown>>;
    const [, second] = Object.keys(modules);
    delete modules[second!]!.references;
    const result = await run('metasploit', routes({ '/modules_metadata_base.json': { body: JSON.stringify(modules) } }));
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(
      new RegExp(`^metasploit modules_metadata_base\\.json from http://127\\.0\\.0\\.1:\\d+/modules_metadata_base\\.json: module "${second!.replace(/[/.]/g, '\\$&')}" has no references array$`),
    );
  });

  it('Exploit-DB: an HTML page served with 200 is not a CSV', async () => {
    const result = await run('exploitdb', routes({ '/files_exploits.csv': { body: '<html><body>Sign in</body></html>\n' } }));
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/CSV header lacks id, file, description, codes \(first line "<html><body>Sign in<\/body><\/html>"\)$/);
  });

  it('PoC-in-GitHub and CWE: zip archives checked through their central directory', async () => {
    const poc = await fixture('exploits/poc-in-github-2002-CVE-2002-0083.json');
    const pocZip = Buffer.from(zipSync({ 'PoC-in-GitHub-master/README.md': strToU8('# PoC'), 'PoC-in-GitHub-master/2002/CVE-2002-0083.json': poc }));
    const cweZip = Buffer.from(zipSync({ 'cwec_v4.18.xml': strToU8('<?xml version="1.0"?><Weakness_Catalog Version="4.18"/>') }));
    const route = routes({ '/master.zip': { body: pocZip }, '/cwec_latest.xml.zip': { body: cweZip } });
    expect((await run('poc-in-github', route)).ok).toBe(true);
    expect((await run('cwe', route)).ok).toBe(true);
    const statuses = await readSourceStatuses(raw);
    expect(statuses['poc-in-github']!.records).toBe(1);
    expect(statuses.cwe!.watermark).toBe('v4.18');
    expect(await readFile(join(raw, 'poc-in-github', 'PoC-in-GitHub.zip'))).toEqual(pocZip);

    await server!.close();
    server = undefined;
    const truncated = await run('cwe', routes({ '/cwec_latest.xml.zip': { body: cweZip.subarray(0, cweZip.length - 30) } }));
    expect(truncated.ok).toBe(false);
    expect(truncated.error).toMatch(/not a complete zip archive/);
    expect(await readFile(join(raw, 'cwe', 'cwec_latest.xml.zip'))).toEqual(cweZip);

    // An HTML page answered 200 is named as one, not as an archive cut short.
    await server!.close();
    server = undefined;
    const page = await run('cwe', routes({ '/cwec_latest.xml.zip': { headers: { 'content-type': 'text/html' }, body: '<html><head><title>Maintenance</title></head></html>' } }));
    expect(page.error).toMatch(/^cwe cwec_latest\.xml\.zip from \S+: not a zip archive \(it starts with "<html><head><title>Maintenance<\/title>/);
    expect(await readFile(join(raw, 'cwe', 'cwec_latest.xml.zip'))).toEqual(cweZip);
  });
});
