/**
 * `vulnintel synth --cves N --raw DIR [--seed S]`: writes a synthetic corpus in the real
 * upstream formats into the raw layout (lib/raw-layout.ts), as the benchmark corpus. Same N
 * and seed → byte-identical files. The generator lives in cli/synth/ (plan.ts explains the
 * shares; scale.ts the counts).
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type Progress, formatCount, info, progress, step } from '../../lib/log.ts';
import { RAW_SOURCES, type RawSourceKey } from '../../lib/raw-layout.ts';
import { listFiles } from '../raw/documents.ts';
import { CliError } from '../../lib/errors.ts';
import { DeflatePool } from '../synth/deflate-pool.ts';
import { evolveCorpus } from '../synth/evolve.ts';
import type { OutputStats } from '../synth/output.ts';
import { CorpusPlan } from '../synth/plan.ts';
import { writeCsaf } from '../synth/writers/csaf.ts';
import { writeCveFeeds } from '../synth/writers/cve-feeds.ts';
import { writeCwe } from '../synth/writers/cwe.ts';
import { writeEpss } from '../synth/writers/epss.ts';
import { writeExploits } from '../synth/writers/exploits.ts';
import { writeGhsa } from '../synth/writers/ghsa.ts';
import { writeKev } from '../synth/writers/kev.ts';
import { writeMsrc } from '../synth/writers/msrc.ts';

export interface SynthOptions {
  cves?: number;
  raw: string;
  seed: string;
  evolveFrom?: string;
  days?: number;
}

export interface SourceReport extends OutputStats {
  /** Bytes on disk (compressed where the source is zipped or gzipped). */
  diskBytes: number;
}

export interface SynthReport {
  sources: Partial<Record<RawSourceKey, SourceReport>>;
}

function mb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

function describe(s: OutputStats): string {
  return `${formatCount(s.entries)} records, ${mb(s.bytes)}`;
}

/**
 * `step` with the step's CPU time (all threads: generation plus the deflate workers) and the
 * heap afterwards in its summary line: the benchmark corpus is judged on time and memory.
 */
async function measured<T>(name: string, fn: () => Promise<T>, detail: (result: T) => string): Promise<T> {
  const cpu = process.cpuUsage();
  return step(name, fn, (result) => {
    const used = process.cpuUsage(cpu);
    const heap = process.memoryUsage();
    return `${detail(result)}; cpu ${((used.user + used.system) / 1e6).toFixed(1)} s, heap ${mb(heap.heapUsed)}, rss ${mb(heap.rss)}`;
  });
}

async function withProgress<T>(label: string, fn: (bar: Progress) => Promise<T>, total = 0): Promise<T> {
  const bar = progress(label, total, 'records');
  try {
    return await fn(bar);
  } finally {
    bar.stop();
  }
}

function sum(parts: OutputStats[]): OutputStats {
  return parts.reduce((a, s) => ({ entries: a.entries + s.entries, bytes: a.bytes + s.bytes }), { entries: 0, bytes: 0 });
}

/** The CLI action: writes the corpus and prints the per-source summary. */
export async function runSynth(opts: SynthOptions): Promise<void> {
  if (opts.evolveFrom !== undefined) {
    if (opts.cves !== undefined) throw new CliError('--cves and --evolve-from do not go together: an evolved corpus keeps the size of its source');
    await evolveCorpus({ from: opts.evolveFrom, raw: opts.raw, days: opts.days ?? 1, seed: String(opts.seed ?? '1') });
    return;
  }
  if (opts.cves === undefined) throw new CliError('give --cves N (a new corpus) or --evolve-from DIR (a later state of one)');
  await synthesize(opts);
}

/** Writes the corpus; returns what was written per source (records, bytes, bytes on disk). */
export async function synthesize(opts: SynthOptions): Promise<SynthReport> {
  const n = Number(opts.cves);
  const seed = String(opts.seed ?? '1');
  if (!Number.isInteger(n) || n <= 0) throw new Error('--cves must be a positive integer');
  const plan = await measured('plan corpus', async () => new CorpusPlan(n, seed), (p) => `${formatCount(p.n)} CVEs, seed ${JSON.stringify(p.seed)}`);
  const pool = new DeflatePool();
  const written: Partial<Record<RawSourceKey, OutputStats>> = {};
  try {
    await writeSources(plan, opts.raw, pool, written);
  } finally {
    await pool.close();
  }
  const sources: SynthReport['sources'] = {};
  for (const [key, stats] of Object.entries(written) as Array<[RawSourceKey, OutputStats]>) {
    let diskBytes = 0;
    for (const file of await listFiles(join(opts.raw, RAW_SOURCES[key]))) diskBytes += (await stat(file)).size;
    sources[key] = { ...stats, diskBytes };
    info(`  ${RAW_SOURCES[key].padEnd(14)} ${formatCount(stats.entries).padStart(9)} records  ${mb(stats.bytes).padStart(10)} content  ${mb(diskBytes).padStart(10)} on disk`);
  }
  info(`synthetic corpus written to ${opts.raw}`);
  return { sources };
}

async function writeSources(plan: CorpusPlan, raw: string, pool: DeflatePool, written: Partial<Record<RawSourceKey, OutputStats>>): Promise<void> {
  const dir = (source: RawSourceKey) => join(raw, RAW_SOURCES[source]);
  await measured('NVD pages + CVE List V5 zip', async () => {
    const stats = await withProgress('CVEs', (bar) => writeCveFeeds(plan, dir('nvd'), dir('cvelist'), pool, bar), plan.n);
    written.nvd = { entries: plan.n, bytes: stats.nvd.bytes };
    written.cvelist = stats.cvelist;
    return stats;
  }, (s) => `nvd ${formatCount(s.nvd.entries)} pages, ${mb(s.nvd.bytes)}; cvelist ${describe(s.cvelist)}`);
  written.kev = await measured('KEV catalog', () => writeKev(plan, dir('kev')), describe);
  written.epss = await measured('EPSS scores', () => writeEpss(plan, dir('epss')), describe);
  written.ghsa = await measured('GHSA (OSV) all.zip', () => withProgress('GHSA', (bar) => writeGhsa(plan, dir('ghsa'), pool, bar)), describe);
  const csaf = await measured('CSAF vendor advisories', () => withProgress('CSAF', (bar) => writeCsaf(plan, dir('csaf'), pool, bar)), (s) =>
    Object.entries(s).map(([v, o]) => `${v} ${formatCount(o.entries)}`).join(', '),
  );
  written.csaf = sum(Object.values(csaf));
  written.msrc = await measured('MSRC CVRF months', () => writeMsrc(plan, dir('msrc')), describe);
  const exploits = await measured('exploit records', () =>
    writeExploits(plan, { exploitdb: dir('exploitdb'), metasploit: dir('metasploit'), nuclei: dir('nuclei'), pocInGithub: dir('pocInGithub') }, pool),
    (s) => Object.entries(s).map(([k, o]) => `${k} ${formatCount(o.entries)}`).join(', '),
  );
  Object.assign(written, exploits);
  written.cwe = await measured('CWE catalog', () => writeCwe(dir('cwe')), describe);
}
