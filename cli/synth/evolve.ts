/**
 * `vulnintel synth --evolve-from DIR --raw OUT --days N`: the raw state of a corpus N days
 * later, so that a second build measures the change step (sql/10_changes.sql) at full scale.
 *
 * OUT holds every file of DIR (hard links where the filesystem allows, else copies; DIR is never
 * written) plus what upstream would have published meanwhile, written the way each source
 * publishes it:
 *   - an NVD page of new CVEs (clones of existing records under new ids), rescored CVEs (a new
 *     NVD CVSS v3.1 metric, later lastModified) and rejected CVEs;
 *   - a new KEV catalog with additions (the old one is replaced, not linked);
 *   - a later EPSS file with moved scores (some across 0.10 and 0.50);
 *   - new CSAF advisories per vendor, some naming a new CVE and some none yet, and revisions of
 *     existing advisories that now name a new CVE.
 * Counts per day at 340,000 CVEs follow real rates roughly (NVD: ~120 new CVEs and ~300
 * rescorings a day; KEV: ~3 additions; EPSS: thousands of moves) and scale with the corpus.
 * Same inputs and seed → the same files.
 */
import { copyFile, link, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { CliError } from '../../lib/errors.ts';
import { formatCount, info } from '../../lib/log.ts';
import { RAW_SOURCES } from '../../lib/raw-layout.ts';
import { fileSource, readZipMembers } from '../raw/zip.ts';
import { type Rng, rngFor, seedHash } from './random.ts';
import { CORPUS_NOW } from './scale.ts';

export interface EvolveOptions {
  from: string;
  raw: string;
  days: number;
  seed: string;
}

/** What one day brings at 340,000 CVEs. */
export const EVOLVE_PER_DAY = {
  newCves: 120,
  rescored: 300,
  rejected: 5,
  kevAdded: 3,
  epssMoved: 3000,
  newAdvisories: 25,
  newAdvisoriesWithoutCve: 6,
  advisoriesLinked: 3,
} as const;

const FULL_SCALE = 340_000;

export interface EvolveReport {
  newCves: number;
  rescored: number;
  rejected: number;
  kevAdded: number;
  epssMoved: number;
  newAdvisories: number;
  advisoriesLinked: number;
}

type Json = Record<string, any>;

const KEV_FILE = 'known_exploited_vulnerabilities.json';

/** New NVD primary CVSS v3.1 metrics a rescoring picks from. */
const RESCORE_VECTORS: Array<[string, number, string]> = [
  ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 9.8, 'CRITICAL'],
  ['CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H', 8.8, 'HIGH'],
  ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N', 7.5, 'HIGH'],
  ['CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N', 6.1, 'MEDIUM'],
  ['CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H', 7.8, 'HIGH'],
  ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N', 5.3, 'MEDIUM'],
];

/** Mirrors `from` into `to`: folders made, files hard-linked (copied across filesystems). */
async function mirror(from: string, to: string, skip: (rel: string) => boolean, rel = ''): Promise<number> {
  await mkdir(join(to, rel), { recursive: true });
  let files = 0;
  for (const entry of await readdir(join(from, rel), { withFileTypes: true })) {
    const child = join(rel, entry.name);
    if (entry.isDirectory()) files += await mirror(from, to, skip, child);
    else if (entry.isFile() && !skip(child)) {
      await link(join(from, child), join(to, child)).catch(() => copyFile(join(from, child), join(to, child)));
      files++;
    }
  }
  return files;
}

function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** NVD's timestamp spelling: no zone, milliseconds. */
function nvdTime(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '');
}

/** `count` distinct indices of [0, n), in a seeded order. */
function pick(rng: Rng, n: number, count: number): number[] {
  const chosen = new Set<number>();
  const want = Math.min(count, n);
  while (chosen.size < want) chosen.add(rng.int(0, n - 1));
  return [...chosen];
}

async function readNvdPages(dir: string, rng: Rng, records: number): Promise<Json[]> {
  const pages = (await readdir(dir)).filter((f) => /^page-\d+\.json$/.test(f)).sort();
  if (pages.length === 0) throw new CliError(`${dir}: no NVD pages (page-*.json) to evolve from`);
  const out: Json[] = [];
  for (const index of pick(rng, pages.length, pages.length)) {
    const page = JSON.parse(await readFile(join(dir, pages[index]!), 'utf8')) as Json;
    for (const v of page.vulnerabilities as Json[]) out.push(v.cve as Json);
    if (out.length >= records) break;
  }
  return out;
}

/** The first `count` CSAF documents of a vendor folder's archives or files (the templates). */
async function csafTemplates(dir: string, count: number): Promise<Json[]> {
  const docs: Json[] = [];
  for (const name of (await readdir(dir)).sort()) {
    const path = join(dir, name);
    if (name.endsWith('.zip')) {
      const src = await fileSource(path);
      try {
        for await (const { data } of readZipMembers(src, (n) => n.endsWith('.json'))) {
          docs.push(JSON.parse(data.toString('utf8')) as Json);
          if (docs.length >= count) break;
        }
      } finally {
        await src.close();
      }
    } else if (name.endsWith('.json')) {
      docs.push(JSON.parse(await readFile(path, 'utf8')) as Json);
    }
    if (docs.length >= count) break;
  }
  return docs;
}

function csafFileName(id: string): string {
  return `${id.toLowerCase().replace(/[^+\-a-z0-9]+/g, '_')}.json`;
}

/**
 * A file every synthetic corpus holds: missing (a --evolve-from naming another folder), the
 * error names the option, where it was a bare ENOENT of a path the user never typed.
 */
async function readCorpusFile(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
    throw new CliError(`--evolve-from: not a corpus written by \`vulnintel synth\` (no ${path})`);
  }
}

export async function evolveCorpus(opts: EvolveOptions): Promise<EvolveReport> {
  const from = resolve(opts.from);
  const out = resolve(opts.raw);
  if (from === out) throw new CliError('--raw must differ from --evolve-from: the source corpus is never written');
  if (!Number.isInteger(opts.days) || opts.days < 1) throw new CliError('--days must be a whole number of at least 1');
  if (await stat(out).then((s) => s.isDirectory() && true, () => false)) {
    if ((await readdir(out)).length > 0) throw new CliError(`${out} is not empty: evolve writes a new raw folder`);
  }
  const root = seedHash(`${opts.seed}:evolve:${opts.days}`);
  const dir = (source: keyof typeof RAW_SOURCES) => join(from, RAW_SOURCES[source]);
  const outDir = (source: keyof typeof RAW_SOURCES) => join(out, RAW_SOURCES[source]);

  // The corpus's "now": when synth wrote it (CORPUS_NOW, after every date it holds), or its KEV
  // catalog's release when that is later (an evolved corpus evolved again); the evolved state is
  // `days` later. The KEV release alone is the newest addition's day, weeks before CORPUS_NOW in
  // a small corpus: the EPSS scores written `days` after it were older than the corpus's own
  // (2026-09-30), the build kept those (newest score date wins), and nothing moved.
  const kev = JSON.parse(await readCorpusFile(join(dir('kev'), KEV_FILE))) as Json;
  const then = Math.max(CORPUS_NOW, Date.parse(kev.dateReleased ?? '') || 0);
  const now = then + opts.days * 86_400_000;
  const firstPage = JSON.parse(await readCorpusFile(join(dir('nvd'), 'page-000000.json'))) as Json;
  const scale = Math.max(1e-3, Number(firstPage.totalResults ?? FULL_SCALE) / FULL_SCALE);
  const count = (perDay: number) => Math.max(1, Math.round(perDay * opts.days * scale));
  const plan = {
    newCves: count(EVOLVE_PER_DAY.newCves),
    rescored: count(EVOLVE_PER_DAY.rescored),
    rejected: count(EVOLVE_PER_DAY.rejected),
    kevAdded: count(EVOLVE_PER_DAY.kevAdded),
    epssMoved: count(EVOLVE_PER_DAY.epssMoved),
    newAdvisories: count(EVOLVE_PER_DAY.newAdvisories),
    withoutCve: count(EVOLVE_PER_DAY.newAdvisoriesWithoutCve),
    advisoriesLinked: count(EVOLVE_PER_DAY.advisoriesLinked),
  };

  const linked = await mirror(from, out, (rel) => rel === join(RAW_SOURCES.kev, KEV_FILE));
  info(`evolve: ${formatCount(linked)} files of ${from} linked into ${out}; ${opts.days} day(s) later: ${isoDay(now)}`);

  // NVD: rescorings, rejections and the records new CVEs are cloned from, in one later page.
  const inKev = new Set((kev.vulnerabilities as Json[]).map((v) => v.cveID as string));
  const pool = (await readNvdPages(dir('nvd'), rngFor(root, 'pages'), (plan.rescored + plan.rejected + plan.kevAdded + plan.newCves) * 2))
    .filter((r) => r.vulnStatus !== 'Rejected' && !inKev.has(r.id));
  const rng = rngFor(root, 'records');
  const order = pick(rng, pool.length, pool.length).map((i) => pool[i]!);
  let cursor = 0;
  const take = (n: number) => order.slice(cursor, (cursor += n));
  const rescored = take(plan.rescored).map((r) => {
    const [vector, score, severity] = RESCORE_VECTORS[rng.int(0, RESCORE_VECTORS.length - 1)]!;
    const others = ((r.metrics?.cvssMetricV31 ?? []) as Json[]).filter((m) => m.source !== 'nvd@nist.gov');
    return {
      ...r,
      lastModified: nvdTime(now - rng.int(0, opts.days * 86_400_000 - 1)),
      vulnStatus: 'Analyzed',
      metrics: { ...r.metrics, cvssMetricV31: [...others, { source: 'nvd@nist.gov', type: 'Primary', cvssData: { version: '3.1', vectorString: vector, baseScore: score, baseSeverity: severity }, exploitabilityScore: 3.9, impactScore: 5.9 }] },
    };
  });
  const rejected = take(plan.rejected).map((r) => ({
    ...r,
    lastModified: nvdTime(now - rng.int(0, opts.days * 86_400_000 - 1)),
    vulnStatus: 'Rejected',
    metrics: {},
    descriptions: [{ lang: 'en', value: `** REJECT ** DO NOT USE THIS CANDIDATE NUMBER. Reason: this candidate was withdrawn by its CNA. Notes: ${r.id} is a duplicate.` }],
  }));
  const kevAdded = take(plan.kevAdded);
  const year = new Date(now).getUTCFullYear();
  const fresh = take(plan.newCves).map((r, i) => {
    const published = now - rng.int(0, opts.days * 86_400_000 - 1);
    return { ...r, id: `CVE-${year}-${9_000_000 + i}`, published: nvdTime(published), lastModified: nvdTime(published), vulnStatus: 'Received' };
  });
  const delta = [...rescored, ...rejected, ...fresh];
  await writeFile(
    join(outDir('nvd'), `evolve-${isoDay(now)}-page-000000.json`),
    JSON.stringify({ resultsPerPage: delta.length, startIndex: 0, totalResults: delta.length, format: 'NVD_CVE', version: '2.0', timestamp: nvdTime(now), vulnerabilities: delta.map((cve) => ({ cve })) }),
  );

  // KEV: the whole catalog again, with the additions first (as CISA lists the newest first).
  const additions = kevAdded.map((r) => ({
    cveID: r.id, vendorProject: 'Example', product: 'Product', vulnerabilityName: `${r.id} vulnerability`,
    dateAdded: isoDay(now - rng.int(0, opts.days - 1) * 86_400_000), shortDescription: (r.descriptions?.[0]?.value ?? '').slice(0, 200),
    requiredAction: 'Apply mitigations per vendor instructions or discontinue use of the product if mitigations are unavailable.',
    dueDate: isoDay(now + 21 * 86_400_000), knownRansomwareCampaignUse: 'Unknown', notes: '', cwes: [],
  }));
  const catalog = { ...kev, catalogVersion: isoDay(now).replaceAll('-', '.'), dateReleased: new Date(now).toISOString(), count: kev.vulnerabilities.length + additions.length, vulnerabilities: [...additions, ...kev.vulnerabilities] };
  await writeFile(join(outDir('kev'), KEV_FILE), JSON.stringify(catalog, null, 2));

  // EPSS: a later file with the moved scores only (per CVE the newest score date wins).
  const epssFile = (await readdir(dir('epss'))).filter((f) => /\.csv(\.gz)?$/.test(f)).sort()[0];
  let epssMoved = 0;
  if (epssFile) {
    const raw = await readFile(join(dir('epss'), epssFile));
    const lines = (epssFile.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8').split('\n');
    const header = lines.findIndex((l) => l.startsWith('cve,'));
    const rows = lines.slice(header + 1).filter((l) => l.startsWith('CVE-'));
    const erng = rngFor(root, 'epss');
    const moved = pick(erng, rows.length, plan.epssMoved).map((i) => {
      const [id, , percentile] = rows[i]!.split(',');
      // One in ten moves lands across a threshold; the rest drift.
      const value = erng.float() < 0.1 ? [0.05, 0.2, 0.6, 0.9][erng.int(0, 3)]! : Math.min(0.99, Number(rows[i]!.split(',')[1]) * (0.5 + erng.float()));
      return `${id},${value.toFixed(5)},${percentile}`;
    });
    epssMoved = moved.length;
    const body = [`#model_version:v2025.03.14,score_date:${new Date(now).toISOString().slice(0, 19)}Z`, 'cve,epss,percentile', ...moved].join('\n') + '\n';
    await writeFile(join(outDir('epss'), `epss_scores-${isoDay(now)}.csv.gz`), gzipSync(body));
  }

  // CSAF: new advisories (some with no CVE yet) and revisions naming a new CVE.
  const vendors = (await readdir(dir('csaf'), { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name).sort();
  const crng = rngFor(root, 'csaf');
  let newAdvisories = 0;
  let advisoriesLinked = 0;
  for (const [v, vendor] of vendors.entries()) {
    const share = (n: number) => Math.floor(n / vendors.length) + (v < n % vendors.length ? 1 : 0);
    const nNew = share(plan.newAdvisories);
    const nLinked = share(plan.advisoriesLinked);
    const nWithout = share(plan.withoutCve);
    if (nNew + nLinked === 0) continue;
    const templates = await csafTemplates(join(dir('csaf'), vendor), nLinked + 1);
    if (templates.length === 0) continue;
    const target = join(outDir('csaf'), vendor, `evolve-${isoDay(now)}`);
    await mkdir(target, { recursive: true });
    const release = new Date(now - crng.int(0, opts.days * 86_400_000 - 1)).toISOString().replace(/\.\d+Z$/, 'Z');
    for (let i = 0; i < nNew; i++) {
      const doc = structuredClone(templates[0]!);
      const id = `${doc.document.tracking.id}-evolve-${isoDay(now)}-${i}`;
      doc.document.tracking = { ...doc.document.tracking, id, initial_release_date: release, current_release_date: release, version: '1', revision_history: [{ date: release, number: '1', summary: 'Initial public release.' }] };
      const cve = i < nWithout ? undefined : fresh[crng.int(0, fresh.length - 1)]?.id;
      doc.vulnerabilities = ((doc.vulnerabilities ?? [{}]) as Json[]).slice(0, 1).map((vuln) => {
        const { cve: _old, ...rest } = vuln;
        return cve ? { ...rest, cve } : rest;
      });
      await writeFile(join(target, csafFileName(id)), JSON.stringify(doc));
      newAdvisories++;
    }
    for (const doc of templates.slice(1, 1 + nLinked)) {
      const cve = fresh[crng.int(0, fresh.length - 1)]?.id;
      if (!cve) break;
      const revised = structuredClone(doc);
      const tracking = revised.document.tracking;
      tracking.current_release_date = release;
      tracking.version = `${tracking.version ?? '1'}.1`;
      tracking.revision_history = [...(tracking.revision_history ?? []), { date: release, number: tracking.version, summary: `${cve} assigned.` }];
      const first = ((revised.vulnerabilities ?? []) as Json[])[0] ?? {};
      const { cve: _old, ids: _ids, ...rest } = first;
      revised.vulnerabilities = [...((revised.vulnerabilities ?? []) as Json[]), { ...rest, cve }];
      await writeFile(join(target, csafFileName(`${tracking.id}-rev`)), JSON.stringify(revised));
      advisoriesLinked++;
    }
  }

  const report: EvolveReport = {
    newCves: fresh.length, rescored: rescored.length, rejected: rejected.length, kevAdded: additions.length, epssMoved, newAdvisories, advisoriesLinked,
  };
  info(`evolve: ${Object.entries(report).map(([k, n]) => `${k} ${formatCount(n)}`).join(', ')} → ${out}`);
  return report;
}
