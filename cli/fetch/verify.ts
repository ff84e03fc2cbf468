/**
 * Checks a downloaded temporary file before it may replace the last good one: complete gzip,
 * readable zip, parseable JSON of the expected shape, CSV with the expected header. Each check
 * streams the file (memory stays flat on 100 MB archives) and returns the record count for the
 * status record.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { parse as parseCsv } from 'csv-parse';
import yauzl from 'yauzl';
import { GZIP_MAGIC } from './content-coding.ts';
import { FetchError } from './errors.ts';

export interface Verified {
  records: number;
  /** A source-specific freshness mark found in the file (score date, catalog release …). */
  watermark?: string | null;
}

function lines(stream: NodeJS.ReadableStream) {
  return createInterface({ input: stream, crlfDelay: Infinity });
}

/**
 * A new file with fewer than half the records of the one in place is refused. HTTP/1.1 lets a
 * server end a body by closing the connection (no Content-Length, not chunked): such a body cut
 * at a line boundary is a well-formed CSV or JSON Lines file with the first part of the records,
 * and nothing else can tell (Exploit-DB's files_exploits.csv, nuclei's cves.json replaced good
 * files with half of them). `what` names the source, the file and the URL.
 */
export function refuseShrink(before: number, after: number, what: string): void {
  if (after * 2 < before) {
    throw new FetchError(
      `${what}: ${after} records, fewer than half of the ${before} in the file in place (a download cut short?); refused, the file in place is kept (delete it to accept the new one)`,
    );
  }
}

/**
 * A new file dated before the one in place (the KEV catalog's `dateReleased`, the EPSS score
 * date) is refused. A CDN edge or a mirror still holding yesterday's copy answers 200 with it
 * (the conditional request names today's validators, which it does not know), and taken, it
 * rolled the data back: KEV entries added since vanished and came back a day later, each a
 * change (and an alert) of its own. Marks that are no date (CWE's `v4.18`) are not compared.
 */
export function refuseOlder(before: string | null | undefined, after: string | null | undefined, what: string): void {
  const date = (mark: string | null | undefined) => (mark && /^\d{4}-\d{2}-\d{2}T/.test(mark) ? Date.parse(mark) : NaN);
  const [was, now] = [date(before), date(after)];
  if (Number.isNaN(was) || Number.isNaN(now) || now >= was) return;
  throw new FetchError(
    `${what}: dated ${after}, older than the file in place (${before}); a stale copy, refused, the file in place is kept (delete it to accept the older one)`,
  );
}

/**
 * What a file that should be binary starts with, for an error message: a server's HTML or text
 * page answered with 200 in place of the file reads as itself, anything else as hex.
 */
async function fileStart(file: string): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(64);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    const bytes = head.subarray(0, bytesRead);
    if (bytesRead === 0) return 'nothing (an empty file)';
    // A character cut by the 64-byte limit decodes as U+FFFD: not a sign of binary.
    const text = bytes.toString('utf8').replace(/\ufffd+$/, '');
    return /^[\t\n\r\x20-\x7e\u00a0-\uffff]*$/.test(text) && !text.includes('\ufffd')
      ? JSON.stringify(text.replace(/\s+/g, ' ').trim())
      : `bytes ${bytes.subarray(0, 8).toString('hex')}`;
  } finally {
    await handle.close();
  }
}

/** Throws FetchError naming what `file` starts with unless it starts with one of `magics`. */
async function requireMagic(file: string, magics: Buffer[], kind: string, what: string): Promise<void> {
  const head = Buffer.alloc(Math.max(...magics.map((m) => m.length)));
  const handle = await open(file, 'r');
  let bytesRead: number;
  try {
    ({ bytesRead } = await handle.read(head, 0, head.length, 0));
  } finally {
    await handle.close();
  }
  if (!magics.some((m) => bytesRead >= m.length && head.subarray(0, m.length).equals(m))) {
    throw new FetchError(`${what}: not ${kind} (it starts with ${await fileStart(file)})`);
  }
}

/** Full gunzip pass: a truncated or corrupt gzip fails here, not in the build. */
export async function verifyGzipText(
  file: string,
  what: string,
  onLine: (line: string, index: number) => void,
): Promise<void> {
  // Not gzip at all (an HTML error page answered 200, a CSV sent uncompressed) is said so: "not a
  // complete gzip file (incorrect header check)" sent the reader looking for a cut download.
  await requireMagic(file, [GZIP_MAGIC], 'a gzip file', what);
  const gunzip = createGunzip();
  const source = createReadStream(file);
  source.on('error', (err) => gunzip.destroy(err));
  source.pipe(gunzip);
  let i = 0;
  try {
    for await (const line of lines(gunzip)) onLine(line, i++);
  } catch (err) {
    if (err instanceof FetchError) throw err;
    throw new FetchError(`${what}: not a complete gzip file (${(err as Error).message})`);
  } finally {
    source.destroy();
  }
}

/** EPSS: optional `#model_version:…,score_date:…` comment, then `cve,epss,percentile`. */
export async function verifyEpssCsvGz(file: string, what: string): Promise<Verified> {
  let header: string | null = null;
  let rows = 0;
  let scoreDate: string | null = null;
  await verifyGzipText(file, what, (line) => {
    if (header === null) {
      if (line.startsWith('#')) {
        const m = /score_date:([^,\s]+)/.exec(line);
        if (m) scoreDate = m[1]!;
        return;
      }
      header = line.trim();
      if (!/^cve,epss,percentile\b/.test(header)) throw new FetchError(`${what}: unexpected CSV header "${header.slice(0, 80)}"`);
      return;
    }
    if (line.trim()) rows++;
  });
  if (header === null) throw new FetchError(`${what}: empty file (no CSV header)`);
  if (rows === 0) throw new FetchError(`${what}: no score rows`);
  return { records: rows, watermark: scoreDate };
}

/** Parses a whole JSON file; `check` returns an error text for a wrong shape, or the record count. */
export async function verifyJsonFile(
  file: string,
  what: string,
  check: (value: unknown) => string | Verified,
): Promise<Verified> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new FetchError(`${what}: malformed JSON (${(err as Error).message})`);
  }
  const result = check(value);
  if (typeof result === 'string') throw new FetchError(`${what}: ${result}`);
  return result;
}

/** JSON Lines: every non-empty line must parse and pass `check` (nuclei `cves.json`). */
export async function verifyJsonLines(file: string, what: string, check: (value: unknown) => boolean): Promise<Verified> {
  let records = 0;
  let n = 0;
  for await (const line of lines(createReadStream(file))) {
    n++;
    if (!line.trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      throw new FetchError(`${what}: line ${n} is not JSON (${(err as Error).message})`);
    }
    if (!check(value)) throw new FetchError(`${what}: line ${n} has an unexpected shape`);
    records++;
  }
  if (records === 0) throw new FetchError(`${what}: no records`);
  await requireFinalNewline(file, what);
  return { records };
}

/**
 * A text file of lines (CSV, JSON Lines) ends with a line break, as every one these sources
 * publish does. A body cut at the end of a line but short of its break is the only cut the
 * record checks cannot see (the last record reads whole, its last field short): a
 * close-delimited body (HTTP/1.1 lets a server end one by closing the connection) is cut anywhere.
 */
async function requireFinalNewline(file: string, what: string): Promise<void> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    if (size === 0) return;
    const last = Buffer.alloc(1);
    await handle.read(last, 0, 1, size - 1);
    if (last[0] !== 0x0a) throw new FetchError(`${what}: the last line has no line break (a body cut short?)`);
  } finally {
    await handle.close();
  }
}

/**
 * CSV with a header naming at least `columns`; counts data rows with a real parser (quoted
 * newlines). Every row has the header's number of fields (Exploit-DB writes each, empty ones
 * as `,,`): a row cut short is refused, naming its line.
 */
export async function verifyCsvFile(file: string, what: string, columns: string[]): Promise<Verified> {
  const parser = createReadStream(file).pipe(parseCsv({ bom: true }));
  let header: string[] | null = null;
  let records = 0;
  try {
    for await (const row of parser as AsyncIterable<string[]>) {
      if (header === null) {
        header = row.map((c) => c.trim());
        const missing = columns.filter((c) => !header!.includes(c));
        // What the first line was says whether it is another CSV or a page (an HTML sign-in page
        // answered 200 parsed as a one-column "header").
        if (missing.length) throw new FetchError(`${what}: CSV header lacks ${missing.join(', ')} (first line ${JSON.stringify(row.join(',').slice(0, 80))})`);
        continue;
      }
      records++;
    }
  } catch (err) {
    if (err instanceof FetchError) throw err;
    throw new FetchError(`${what}: malformed CSV (${(err as Error).message})`);
  }
  if (header === null) throw new FetchError(`${what}: empty file`);
  await requireFinalNewline(file, what);
  return { records };
}

function openZip(file: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) =>
    yauzl.open(file, { lazyEntries: true, autoClose: false }, (err, zip) => (err ? reject(err) : resolve(zip))),
  );
}

/** A local file header, or the end record of an empty archive: how every zip file starts. */
const ZIP_MAGICS = [Buffer.from('PK\x03\x04', 'latin1'), Buffer.from('PK\x05\x06', 'latin1')];

/** Names of a zip's entries, read from the central directory (a truncated download has none). */
export async function zipEntryNames(file: string, what: string): Promise<string[]> {
  // An HTML page answered 200 is named as one, not as "a zip archive" cut short.
  await requireMagic(file, ZIP_MAGICS, 'a zip archive', what);
  let zip: yauzl.ZipFile;
  try {
    zip = await openZip(file);
  } catch (err) {
    throw new FetchError(`${what}: not a complete zip archive (${(err as Error).message})`);
  }
  try {
    return await new Promise<string[]>((resolve, reject) => {
      const names: string[] = [];
      zip.on('entry', (e: yauzl.Entry) => {
        names.push(e.fileName);
        zip.readEntry();
      });
      zip.on('end', () => resolve(names));
      zip.on('error', (err: Error) => reject(new FetchError(`${what}: broken zip archive (${err.message})`)));
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
}

/** A zip with at least one entry accepted by `counts`; returns how many it accepts. */
export async function verifyZip(file: string, what: string, counts: (name: string) => boolean): Promise<Verified> {
  const names = await zipEntryNames(file, what);
  const records = names.filter(counts).length;
  if (records === 0) throw new FetchError(`${what}: the zip archive holds no expected entries (${names.length} entries)`);
  return { records };
}

/**
 * Streams the single member of a wrapper zip (cvelistV5's `.zip.zip`) to `dest`, without ever
 * holding the archive in memory. Resolves with the member's name.
 */
export async function extractSingleMember(file: string, dest: string, what: string): Promise<string> {
  let zip: yauzl.ZipFile;
  try {
    zip = await openZip(file);
  } catch (err) {
    throw new FetchError(`${what}: not a complete zip archive (${(err as Error).message})`);
  }
  try {
    const entry = await new Promise<yauzl.Entry>((resolve, reject) => {
      const found: yauzl.Entry[] = [];
      zip.on('entry', (e: yauzl.Entry) => {
        if (!e.fileName.endsWith('/')) found.push(e);
        zip.readEntry();
      });
      zip.on('end', () =>
        found.length === 1 ? resolve(found[0]!) : reject(new FetchError(`${what}: expected one member in the wrapper zip, found ${found.length}`)),
      );
      zip.on('error', (err: Error) => reject(new FetchError(`${what}: broken zip archive (${err.message})`)));
      zip.readEntry();
    });
    const stream = await new Promise<NodeJS.ReadableStream>((resolve, reject) =>
      zip.openReadStream(entry, (err, s) => (err ? reject(err) : resolve(s))),
    );
    try {
      await pipeline(stream, createWriteStream(dest));
    } catch (err) {
      throw new FetchError(`${what}: cannot extract ${entry.fileName} (${(err as Error).message})`);
    }
    return entry.fileName;
  } finally {
    zip.close();
  }
}
