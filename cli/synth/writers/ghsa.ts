/**
 * GitHub Security Advisories as OSV JSON, exactly as github/advisory-database writes them
 * (2-space indent, empty arrays printed `[\n\n  ]`, `database_specific` with severity,
 * cwe_ids, github_reviewed), one per GHSA-flagged CVE plus ~10 % that name no CVE yet, into
 * one OSV-style `all.zip` (entries `<ID>.json`). Ranges follow GitHub's conventions: type
 * ECOSYSTEM everywhere, one range per `affected[]` entry (several branches of a package are
 * repeated entries), `last_affected` for unfixed lines, and sometimes only
 * `database_specific.last_known_affected_version_range`.
 */
import { join } from 'node:path';
import { cnaByKey } from '../cnas.ts';
import { type VectorInfo, pickVector } from '../cvss.ts';
import type { Progress } from '../../../lib/log.ts';
import type { DeflatePool } from '../deflate-pool.ts';
import { type CveDetail, cveDetail } from '../detail.ts';
import { githubEmptyArrays, isoSeconds } from '../format.ts';
import { type OutputStats, ZipStreamWriter } from '../output.ts';
import { type CorpusPlan, DAY, FLAG, KIND } from '../plan.ts';
import type { Product } from '../products.ts';
import { type Rng, rngFor } from '../random.ts';
import { CORPUS_NOW } from '../scale.ts';
import { description } from '../text.ts';
import { type Branch, lastAffectedOf, makeBranches } from '../versions.ts';
import { VULN_CLASSES, type VulnClass } from '../vocab.ts';

const GHSA_START = Date.UTC(2018, 0, 1);
const GHSA_ALPHABET = '23456789cfghjmpqrvwx';

function ghsaId(rng: Rng, used: Set<string>): string {
  for (;;) {
    const id = `GHSA-${rng.chars(GHSA_ALPHABET, 4)}-${rng.chars(GHSA_ALPHABET, 4)}-${rng.chars(GHSA_ALPHABET, 4)}`;
    if (!used.has(id)) {
      used.add(id);
      return id;
    }
  }
}

interface AdvisoryFacts {
  id: string;
  cveId: string | null;
  published: number;
  cvePublished: number | null;
  products: Product[];
  branches: Branch[];
  cls: VulnClass;
  vectors: VectorInfo[];
  band: string;
  details: string;
  summary: string;
  reviewed: boolean;
  references: string[];
}

function affectedEntries(f: AdvisoryFacts, rng: Rng): unknown[] {
  const out: unknown[] = [];
  for (const p of f.products) {
    if (!p.ecosystem || !p.packageName) continue;
    for (const b of f.branches) {
      const entry: Record<string, unknown> = { package: { ecosystem: p.ecosystem, name: p.packageName } };
      if (b.fixed) entry.ranges = [{ type: 'ECOSYSTEM', events: [{ introduced: b.introduced }, { fixed: b.fixed }] }];
      else if (rng.chance(0.6)) entry.ranges = [{ type: 'ECOSYSTEM', events: [{ introduced: b.introduced }, { last_affected: b.lastAffected }] }];
      else {
        // GitHub's `< X` bound with no patched version: only in database_specific.
        entry.ranges = [{ type: 'ECOSYSTEM', events: [{ introduced: b.introduced }] }];
        entry.database_specific = { last_known_affected_version_range: `<= ${b.lastAffected}` };
      }
      out.push(entry);
    }
  }
  return out;
}

function record(f: AdvisoryFacts, rng: Rng): Record<string, unknown> {
  const modified = Math.min(CORPUS_NOW - 3_600_000, f.published + rng.int(0, 400) * DAY);
  const schema = f.published < Date.UTC(2022, 5, 1) ? rng.pick(['1.2.0', '1.3.0', '1.4.0']) : '1.4.0';
  const rec: Record<string, unknown> = {
    schema_version: schema,
    id: f.id,
    modified: isoSeconds(modified),
    published: isoSeconds(f.published),
    aliases: f.cveId ? [f.cveId] : [],
  };
  if (f.reviewed) rec.summary = f.summary;
  rec.details = f.details;
  rec.severity = f.vectors.map((v) => ({ type: v.version === '4.0' ? 'CVSS_V4' : 'CVSS_V3', score: v.vector }));
  rec.affected = f.reviewed ? affectedEntries(f, rng) : [];
  const refs: Array<{ type: string; url: string }> = [];
  if (f.cveId) refs.push({ type: 'ADVISORY', url: `https://nvd.nist.gov/vuln/detail/${f.cveId}` });
  for (const url of f.references) refs.push({ type: 'WEB', url });
  const repoOwner = f.products[0]!.vendor.replace(/_/g, '-');
  refs.push({ type: 'PACKAGE', url: `https://github.com/${repoOwner}/${f.products[0]!.product.replace(/_/g, '-')}` });
  rec.references = refs;
  const cwes = [`CWE-${f.cls.cwe}`];
  if (rng.chance(0.01)) cwes.push('CWE-1035');
  const db: Record<string, unknown> = { cwe_ids: rng.chance(0.05) ? [] : cwes, severity: f.band, github_reviewed: f.reviewed };
  if (schema === '1.4.0') {
    db.github_reviewed_at = f.reviewed ? isoSeconds(Math.min(modified, f.published + rng.int(0, 72) * 3_600_000)) : null;
    db.nvd_published_at = f.cvePublished ? isoSeconds(f.cvePublished) : null;
  }
  rec.database_specific = db;
  return rec;
}

function factsForCve(d: CveDetail, id: string, rng: Rng): AdvisoryFacts {
  // Published around the CVE (GitHub as CNA publishes both together); CVEs older than the
  // advisory database were imported in its first years.
  const published = d.published < GHSA_START
    ? GHSA_START + rng.int(0, 1500) * DAY + rng.int(0, 86_399) * 1000
    : Math.min(CORPUS_NOW - DAY, d.published + (d.cna.key === 'github' ? 0 : rng.int(0, 20) * DAY) + rng.int(0, 3600) * 1000);
  const reviewed = d.kind === KIND.GHSA_BAND_ONLY || rng.chance(0.9);
  return {
    id,
    cveId: d.id,
    published,
    cvePublished: d.published,
    products: d.products,
    branches: d.branches,
    cls: d.cls,
    vectors: d.ghsaVectors,
    band: d.ghsaBand,
    details: d.description,
    summary: `${d.product.productName} vulnerable to ${d.cls.phrase}`,
    reviewed,
    references: d.references.slice(0, 2).map((r) => r.url),
  };
}

/** An advisory GitHub published before any CVE was assigned. */
function factsWithoutCve(plan: CorpusPlan, k: number, id: string): AdvisoryFacts {
  const rng = rngFor(plan.root, 'ghsa-no-cve', k);
  let product = plan.catalog.get(plan.catalog.sampleRank(rng));
  for (let tries = 0; tries < 50 && !product.ecosystem; tries++) product = plan.catalog.get(plan.catalog.sampleRank(rng));
  if (!product.ecosystem) product = plan.catalog.products.find((p) => p.ecosystem)!;
  const cls = rng.weighted(VULN_CLASSES.map((c) => [c, c.weight] as const));
  const published = Date.UTC(2019, 0, 1) + Math.floor(rng.float() * (CORPUS_NOW - 2 * DAY - Date.UTC(2019, 0, 1)));
  const branches = makeBranches(rng, product, new Date(published).getUTCFullYear());
  const vector = pickVector('3.1', rng.weighted<0 | 1 | 2 | 3>([[0, 6], [1, 45], [2, 37], [3, 12]]), rng);
  const ctx = { cls, product, cna: cnaByKey('github'), year: 2026, affectedUpTo: lastAffectedOf(branches), fixedIn: branches[branches.length - 1]!.fixed, local: false };
  return {
    id,
    cveId: null,
    published,
    cvePublished: null,
    products: [product],
    branches,
    cls,
    vectors: [vector],
    band: ({ LOW: 'LOW', MEDIUM: 'MODERATE', HIGH: 'HIGH', CRITICAL: 'CRITICAL' } as Record<string, string>)[vector.severity] ?? 'MODERATE',
    details: description(ctx, rng),
    summary: `${product.productName} vulnerable to ${cls.phrase}`,
    reviewed: true,
    references: [],
  };
}

function serialise(rec: Record<string, unknown>): string {
  return githubEmptyArrays(JSON.stringify(rec, null, 2));
}

export async function writeGhsa(plan: CorpusPlan, dir: string, pool: DeflatePool, progress: Progress): Promise<OutputStats> {
  const zip = await ZipStreamWriter.open(join(dir, 'all.zip'), pool);
  const rng = rngFor(plan.root, 'ghsa');
  const used = new Set<string>();
  const withoutCve = plan.counts.ghsaWithoutCve;
  // The CVE-less advisories are spread evenly between the CVE-linked ones.
  const linked: number[] = [];
  for (let i = 0; i < plan.n; i++) if (plan.has(i, FLAG.GHSA)) linked.push(i);
  const every = Math.max(1, Math.floor(linked.length / Math.max(1, withoutCve)));
  progress.setTotal(linked.length + withoutCve);
  let k = 0;
  for (let pos = 0; pos < linked.length || k < withoutCve; pos++) {
    if (k < withoutCve && (pos % every === 0 || pos >= linked.length)) {
      const f = factsWithoutCve(plan, k++, ghsaId(rng, used));
      await zip.add(`${f.id}.json`, serialise(record(f, rngFor(plan.root, 'ghsa-record', f.id))));
      progress.tick();
    }
    const i = linked[pos];
    if (i === undefined) continue;
    const f = factsForCve(cveDetail(plan, i), ghsaId(rng, used), rngFor(plan.root, 'ghsa-facts', i));
    await zip.add(`${f.id}.json`, serialise(record(f, rngFor(plan.root, 'ghsa-record', f.id))));
    progress.tick();
  }
  return zip.close();
}
