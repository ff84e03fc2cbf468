import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { RawFormatError } from '../../lib/errors.ts';
import type { Progress } from '../../lib/log.ts';
import { epssParser, parseEpssComment, stageEpssFile } from '../../cli/parse/epss.ts';
import { MemoryStageSink } from '../../cli/stage/writer.ts';

const FIXTURES = fileURLToPath(new URL('../fixtures/epss/', import.meta.url));
const REAL = join(FIXTURES, 'good', 'epss_scores-current.head.csv');

function countingProgress(): Progress & { ticks: number } {
  const p = { ticks: 0, tick: (n = 1) => void (p.ticks += n), setTotal: () => {}, stop: () => {} };
  return p;
}

const dir = mkdtempSync(join(tmpdir(), 'epss-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function writeCsv(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

async function stageError(file: string): Promise<RawFormatError> {
  try {
    await stageEpssFile(file, new MemoryStageSink());
  } catch (err) {
    expect(err).toBeInstanceOf(RawFormatError);
    return err as RawFormatError;
  }
  throw new Error('expected a RawFormatError');
}

const HEADER = '#model_version:v2025.03.14,score_date:2025-03-17T00:00:00Z\ncve,epss,percentile\n';

describe('EPSS files', () => {
  it('the real file: model version and score date from line 1, every row', async () => {
    const sink = new MemoryStageSink();
    expect(await stageEpssFile(REAL, sink)).toBe(59);
    expect(sink.rows.epss[0]).toEqual({ cve_id: 'CVE-1999-0001', epss: 0.03351, percentile: 0.88255, model_version: 'v2026.06.15', score_date: '2026-09-29' });
    expect(sink.rows.epss.every((r) => r.epss >= 0 && r.epss <= 1 && r.percentile >= 0 && r.percentile <= 1)).toBe(true);
  });

  it('the +0000 form of score_date, gzipped', async () => {
    const sink = new MemoryStageSink();
    expect(await stageEpssFile(join(FIXTURES, 'good', 'epss_scores-2024-01-15.csv.gz'), sink)).toBe(3);
    expect(sink.rows.epss[2]).toEqual({ cve_id: 'CVE-1999-0001', epss: 0.0042, percentile: 0.7201, model_version: 'v2023.03.01', score_date: '2024-01-15' });
  });

  it('no comment line (CRLF): no model version, the date from the file name', async () => {
    const sink = new MemoryStageSink();
    expect(await stageEpssFile(join(FIXTURES, 'nocomment', 'epss_scores-2025-03-17.csv'), sink)).toBe(2);
    expect(sink.rows.epss[1]).toEqual({ cve_id: 'CVE-2025-29927', epss: 0.92, percentile: 0.998, model_version: null, score_date: '2025-03-17' });
  });

  it('the comment line in both zone spellings', () => {
    expect(parseEpssComment('#model_version:v2026.06.15,score_date:2026-09-29T12:00:22Z', 'epss.csv', 'line 1')).toEqual({ model_version: 'v2026.06.15', score_date: '2026-09-29' });
    expect(parseEpssComment('#model_version:v2023.03.01,score_date:2024-01-15T00:00:00+0000', 'epss.csv', 'line 1')).toEqual({ model_version: 'v2023.03.01', score_date: '2024-01-15' });
    expect(parseEpssComment('cve,epss,percentile', 'epss.csv', 'line 1')).toBeNull();
  });

  it('stages every .csv and .csv.gz of the folder and ticks per row', async () => {
    const sink = new MemoryStageSink();
    const progress = countingProgress();
    expect(await epssParser.stage(join(FIXTURES, 'good'), sink, progress)).toEqual({ files: 2, records: 62 });
    expect(progress.ticks).toBe(62);
  });

  it('streams a large gzip file (3,000 rows, in batches of progress)', async () => {
    const rows = Array.from({ length: 3000 }, (_, i) => `CVE-2024-${String(10000 + i)},0.${String(i).padStart(5, '0')},0.5`).join('\n');
    const folder = join(dir, 'large');
    mkdirSync(folder);
    writeFileSync(join(folder, 'epss_scores-2025-06-01.csv.gz'), gzipSync(HEADER + rows + '\n'));
    const sink = new MemoryStageSink();
    const progress = countingProgress();
    expect(await epssParser.stage(folder, sink, progress)).toEqual({ files: 1, records: 3000 });
    expect(progress.ticks).toBe(3000);
    expect(sink.rows.epss[2999]).toMatchObject({ cve_id: 'CVE-2024-12999', epss: 0.02999, score_date: '2025-03-17' });
  });
});

describe('EPSS malformed input', () => {
  it('a truncated gzip is a RawFormatError naming the file', async () => {
    const rows = Array.from({ length: 2000 }, (_, i) => `CVE-2023-${String(20000 + i)},0.${String((i * 7919) % 100000).padStart(5, '0')},0.${String((i * 104729) % 100000).padStart(5, '0')}`).join('\n');
    const whole = gzipSync(HEADER + rows + '\n');
    const file = join(dir, 'epss_scores-truncated.csv.gz');
    writeFileSync(file, whole.subarray(0, Math.floor(whole.length / 2)));
    const err = await stageError(file);
    expect(err.file).toBe(file);
    expect(err.message).toMatch(/epss_scores-truncated\.csv\.gz: not a complete gzip file/);
  });

  it('a bad row names the file and the line number', async () => {
    const base = readFileSync(REAL, 'utf8').split('\n').slice(0, 4).join('\n');
    const outOfRange = writeCsv('range.csv', `${base}\nCVE-2024-0001,1.5,0.9\n`);
    expect((await stageError(outOfRange)).message).toMatch(/range\.csv: record line 5: epss and percentile must be numbers within \[0,1\]/);
    const notNumber = writeCsv('nan.csv', `${base}\nCVE-2024-0001,abc,0.9\n`);
    expect((await stageError(notNumber)).record).toBe('line 5');
    const empty = writeCsv('empty-value.csv', `${base}\nCVE-2024-0001,,0.9\n`);
    expect((await stageError(empty)).record).toBe('line 5');
    const fields = writeCsv('fields.csv', `${base}\nCVE-2024-0001,0.1\n`);
    expect((await stageError(fields)).message).toMatch(/record line 5: expected 3 fields, found 2/);
    // Number() reads these as 1, 0 and 1: no EPSS file writes them (an altered one does).
    for (const [name, value] of [['hex.csv', '0x1'], ['binary.csv', '0b0'], ['octal.csv', '0o1']] as const) {
      expect((await stageError(writeCsv(name, `${base}\nCVE-2024-0001,${value},0.9\n`))).message, name).toMatch(/record line 5: epss and percentile must be numbers/);
    }
    const badId = writeCsv('id.csv', `${base}\nCVE-24-1,0.1,0.2\n`);
    expect((await stageError(badId)).message).toMatch(/record line 5: invalid CVE id "CVE-24-1"/);
  });

  it('a score_date its month lacks names the file and the comment line', async () => {
    const file = writeCsv('epss_scores-current.csv', '#model_version:v2025.03.14,score_date:2025-02-29T00:00:00Z\ncve,epss,percentile\nCVE-2024-0001,0.1,0.5\n');
    expect((await stageError(file)).message).toMatch(/epss_scores-current\.csv: record line 1: unreadable score_date \("2025-02-29T00:00:00Z"\): day 29 does not exist in 2025-02/);
  });

  it('a missing header, or an empty file', async () => {
    const noHeader = writeCsv('noheader.csv', '#model_version:v1,score_date:2025-01-01T00:00:00Z\nCVE-2024-0001,0.1,0.2\n');
    expect((await stageError(noHeader)).message).toMatch(/noheader\.csv: record line 2: expected the header "cve,epss,percentile"/);
    const empty = writeCsv('epss_scores-empty.csv', '');
    expect((await stageError(empty)).message).toMatch(/epss_scores-empty\.csv: no header line/);
  });

  it('a missing file is a RawFormatError, not a crash', async () => {
    expect((await stageError(join(dir, 'gone.csv.gz'))).message).toMatch(/gone\.csv\.gz: cannot be read/);
  });
});
