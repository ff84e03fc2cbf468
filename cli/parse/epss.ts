/**
 * EPSS daily scores (cve-feeds.md §4): `epss_scores-*.csv.gz` or `.csv`, about 300,000 rows,
 * read line by line from a (gunzip) stream so memory stays flat. Line 1 is usually
 * `#model_version:v2026.06.15,score_date:2026-09-29T12:00:22Z` (older files: `+0000`); copies
 * without it are accepted. Then the header `cve,epss,percentile` and one row per CVE.
 */
import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { createInterface } from 'node:readline';
import { pipeline, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { withoutBom } from '../../lib/bom.ts';
import { quoted, RawFormatError } from '../../lib/errors.ts';
import type { Progress } from '../../lib/log.ts';
import { listFiles } from '../raw/documents.ts';
import type { StageSink } from '../stage/tables.ts';
import { normalizeCveId, optionalDate } from './common.ts';
import type { SourceParser } from './source.ts';

const COMMENT = /^#model_version:([^,]+),score_date:(.+)$/;
/** `epss_scores-2026-09-29.csv.gz`: the date a file without a comment line is for. */
const DATE_IN_NAME = /(\d{4}-\d{2}-\d{2})/;
const COLUMNS = ['cve', 'epss', 'percentile'] as const;
/** Progress is advanced in batches: a tick per row would cost more than parsing the row. */
const TICK_EVERY = 1000;

export interface EpssFileInfo {
  model_version: string | null;
  /** `YYYY-MM-DD`. */
  score_date: string | null;
}

/**
 * `#model_version:…,score_date:…` → its values; null when the line is not that comment. A
 * score_date that is no date is a RawFormatError naming `file` and `where` (the line).
 */
export function parseEpssComment(line: string, file: string, where: string): EpssFileInfo | null {
  const m = COMMENT.exec(line.trim());
  if (!m) return null;
  return { model_version: m[1]!.trim(), score_date: optionalDate(m[2]!.trim(), 'score_date', file, where) };
}

export function isEpssFile(path: string): boolean {
  const lower = path.toLowerCase();
  return lower.endsWith('.csv') || lower.endsWith('.csv.gz');
}

/** A plain decimal, an exponent allowed (`0.00043`, `4.3e-05`): not Number()'s `0x1`, `0b1`, `Infinity`. */
const DECIMAL = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/;

/** A probability or percentile: a plain decimal within [0, 1]. */
function fraction(text: string | undefined): number | null {
  if (text === undefined) return null;
  const t = text.trim();
  if (!DECIMAL.test(t)) return null;
  const n = Number(t);
  return Number.isFinite(n) && n >= 0 && n <= 1 ? n : null;
}

function openLines(file: string): { lines: AsyncIterable<string>; close: () => void } {
  const input = createReadStream(file);
  let source: Readable = input;
  if (file.toLowerCase().endsWith('.gz')) {
    const gunzip = createGunzip();
    // pipeline forwards a read error of the file into the gunzip stream, and so to readline.
    pipeline(input, gunzip, () => {});
    source = gunzip;
  }
  const rl = createInterface({ input: source, crlfDelay: Infinity });
  return {
    lines: rl,
    close: () => {
      rl.close();
      source.destroy();
      input.destroy();
    },
  };
}

/** Stream and zlib failures → a RawFormatError naming the file (a truncated download above all). */
function streamError(err: unknown, file: string): Error {
  if (err instanceof RawFormatError) return err;
  const e = err as NodeJS.ErrnoException;
  if (typeof e.code === 'string' && e.code.startsWith('Z_')) {
    return new RawFormatError(file, undefined, `not a complete gzip file (${e.message})`);
  }
  return new RawFormatError(file, undefined, `cannot be read (${e.message ?? String(err)})`);
}

/** Stages one EPSS file; returns the number of score rows. */
export async function stageEpssFile(file: string, sink: StageSink, progress?: Progress): Promise<number> {
  const nameDate = DATE_IN_NAME.exec(basename(file));
  let info: EpssFileInfo = { model_version: null, score_date: nameDate ? optionalDate(nameDate[1], 'date in the file name', file, undefined) : null };
  let columns: number[] | null = null;
  let width = 0;
  let lineNo = 0;
  let rows = 0;
  let pending = 0;
  const { lines, close } = openLines(file);
  try {
    for await (const raw of lines) {
      lineNo++;
      const line = lineNo === 1 ? withoutBom(raw) : raw;
      if (line.trim() === '') continue;
      const where = `line ${lineNo}`;
      if (line.startsWith('#')) {
        if (columns !== null) throw new RawFormatError(file, where, 'comment line after the header');
        info = parseEpssComment(line, file, where) ?? info;
        continue;
      }
      if (columns === null) {
        const header = line.split(',').map((h) => h.trim().toLowerCase());
        columns = COLUMNS.map((c) => header.indexOf(c));
        if (columns.includes(-1)) throw new RawFormatError(file, where, `expected the header "cve,epss,percentile", found ${quoted(line)}`);
        width = header.length;
        continue;
      }
      const fields = line.split(',');
      if (fields.length !== width) throw new RawFormatError(file, where, `expected ${width} fields, found ${fields.length}: ${quoted(line)}`);
      const cveId = normalizeCveId(fields[columns[0]!]);
      const epss = fraction(fields[columns[1]!]);
      const percentile = fraction(fields[columns[2]!]);
      if (cveId === null) throw new RawFormatError(file, where, `invalid CVE id ${quoted(fields[columns[0]!])}`);
      if (epss === null || percentile === null) {
        throw new RawFormatError(file, where, `epss and percentile must be numbers within [0,1]: ${quoted(line)}`);
      }
      sink.emit('epss', { cve_id: cveId, epss, percentile, model_version: info.model_version, score_date: info.score_date });
      rows++;
      if (++pending === TICK_EVERY) {
        progress?.tick(pending);
        pending = 0;
      }
    }
  } catch (err) {
    throw streamError(err, file);
  } finally {
    close();
  }
  if (pending > 0) progress?.tick(pending);
  if (columns === null) throw new RawFormatError(file, undefined, 'no header line `cve,epss,percentile` (empty file?)');
  return rows;
}

export const epssParser: SourceParser = {
  key: 'epss',
  reads: { accepts: isEpssFile, names: ['*.csv', '*.csv.gz'] },
  async stage(dir, sink, progress) {
    let files = 0;
    let records = 0;
    for (const file of (await listFiles(dir)).filter(isEpssFile)) {
      files++;
      records += await stageEpssFile(file, sink, progress);
    }
    return { files, records };
  },
};
