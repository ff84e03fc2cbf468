/**
 * `npm run bench:compare -- URL_A URL_B [N]`: asks two servers serving the same snapshot the
 * same few thousand requests and reports every answer whose status, body bytes or headers (but
 * those of the connection) differ; each record is asked again with its ETag (the 304). Used
 * once per change of how answers are served (issue 11: the serving files against the in-memory
 * loading they replaced): start the old version on one port and the new one on another, over
 * the same data folder, then run this.
 *
 * The requests: N CVE ids (record, related, enrichment, references, history), list pages with
 * each filter and sort and a keyset cursor, one-word and phrase searches, vendor advisories
 * (list and detail), KEV, catalogs, trends, packages, the change feed and a small export. Ids and
 * words are read from the snapshot's Parquet (BENCH_CVES/BENCH_SEED corpus by default).
 */
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { readCurrentBuildId, snapshotsDir, tableReader } from '../lib/snapshot-layout.ts';
import { data } from './full-scale.ts';

const [urlA, urlB, count] = process.argv.slice(2);
if (!urlA || !urlB) {
  console.error('usage: npm run bench:compare -- URL_A URL_B [N ids, default 400]');
  process.exit(2);
}
const n = Number(count ?? 400);

async function samplePaths(): Promise<string[]> {
  const dataDir = process.env.BENCH_DATA ?? data;
  const buildId = await readCurrentBuildId(dataDir);
  if (!buildId) throw new Error(`no snapshot in ${dataDir}`);
  const dir = join(snapshotsDir(dataDir), buildId);
  const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  const c = await instance.connect();
  const col = async (sql: string) => (await c.runAndReadAll(sql)).getRows().map((r) => String(r[0]));
  try {
    const ids = await col(`SELECT cve_id FROM ${tableReader(dir, 'cves')} ORDER BY hash(cve_id) LIMIT ${n}`);
    const words = await col(`SELECT term FROM ${tableReader(dir, 'search_term_stats')} WHERE length(term) >= 4 AND NOT regexp_matches(term, '^[0-9]+$') ORDER BY hash(term) LIMIT 40`);
    const advisories = (await c.runAndReadAll(`SELECT vendor, advisory_id FROM ${tableReader(dir, 'advisories')} ORDER BY hash(advisory_id) LIMIT ${Math.ceil(n / 2)}`)).getRows();
    const vendors = await col(`SELECT DISTINCT vendor FROM ${tableReader(dir, 'advisories')} ORDER BY vendor`);
    const products = (await c.runAndReadAll(`SELECT vendor_key, product_key FROM ${tableReader(dir, 'products')} ORDER BY hash(product_key) LIMIT 30`)).getRows();
    const packages = (await c.runAndReadAll(`SELECT DISTINCT ecosystem, package_name FROM ${tableReader(dir, 'affected_packages')} WHERE ecosystem IS NOT NULL ORDER BY hash(package_name) LIMIT 60`)).getRows();
    const base = '/api/v1/public';
    const paths: string[] = [];
    for (const id of ids) for (const tail of ['', '/related', '/enrichment', '/references', '/history']) paths.push(`${base}/cves/${id}${tail}`);
    const filters = [
      '', 'severity=CRITICAL', 'severity=HIGH,CRITICAL&min_cvss=8', 'kev_only=true', 'year=2021', 'year=2024&severity=LOW', 'status=rejected',
      'status=all', 'severity_basis=svc&severity=MEDIUM', 'since=2025-01-01', 'until=2020-01-01', 'min_cvss=9.5',
    ];
    const sorts = ['', 'sort=epss', 'sort=severity', 'sort=cvss_v3_score', 'sort=last_modified', 'order=asc'];
    for (const f of filters) for (const s of sorts) for (const page of ['limit=5', 'limit=50&offset=100']) paths.push(`${base}/cves?${[f, s, page].filter(Boolean).join('&')}`);
    for (const w of words) {
      paths.push(`${base}/cves?search=${encodeURIComponent(w)}`, `${base}/cves?search=${encodeURIComponent(w)}&severity=HIGH&limit=10`);
    }
    for (let i = 0; i + 1 < words.length; i += 2) paths.push(`${base}/cves?search=${encodeURIComponent(`"${words[i]} ${words[i + 1]}"`)}`);
    for (const [vendor, product] of products) paths.push(`${base}/cves?vendor=${encodeURIComponent(String(vendor))}&product=${encodeURIComponent(String(product))}`);
    for (const [vendor, id] of advisories) paths.push(`${base}/vendor-advisories/${encodeURIComponent(String(vendor))}/${encodeURIComponent(String(id))}`);
    for (const vendor of vendors) paths.push(`${base}/vendor-advisories?vendor=${encodeURIComponent(vendor)}`, `${base}/vendor-advisories?vendor=${encodeURIComponent(vendor)}&has_cve=false`);
    for (const [eco, name] of packages) {
      paths.push(`${base}/packages/${encodeURIComponent(String(eco))}/${encodeURIComponent(String(name))}`);
      paths.push(`${base}/packages/${encodeURIComponent(String(eco))}/${encodeURIComponent(String(name))}?version=1.0.0`);
    }
    paths.push(
      `${base}/cves/summary`, `${base}/cves/trends`, `${base}/kev/recent`, `${base}/kev/recent?days=365`, `${base}/cwes`, `${base}/ecosystems`,
      `${base}/vendors`, `${base}/vendors?limit=100&offset=50`, `${base}/shadow-ai-radar`, `${base}/changes`, `${base}/vendor-advisories`,
      `${base}/cves/batch?ids=${ids.slice(0, 50).join(',')}`, `${base}/cves/export.ndjson?year=2003`,
    );
    return paths;
  } finally {
    c.closeSync();
    instance.closeSync();
  }
}

/** Headers of the connection, not of the answer. */
const CONNECTION_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);
const answerHeaders = (res: Response) =>
  [...res.headers]
    .filter(([name]) => !CONNECTION_HEADERS.has(name))
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n');

const paths = await samplePaths();
let same = 0;
let asked = 0;
const differ: string[] = [];
const byStatus = new Map<number, number>();
/** Asks both servers; an answer differs by status, body bytes or any header of the answer. */
async function compare(path: string, headers: Record<string, string> = {}): Promise<Response> {
  const [a, b] = await Promise.all([fetch(`${urlA}${path}`, { headers }), fetch(`${urlB}${path}`, { headers })]);
  const [ba, bb] = await Promise.all([a.arrayBuffer(), b.arrayBuffer()]);
  asked++;
  byStatus.set(a.status, (byStatus.get(a.status) ?? 0) + 1);
  const label = `${path}${headers['if-none-match'] ? ' (If-None-Match)' : ''}`;
  if (a.status !== b.status || !Buffer.from(ba).equals(Buffer.from(bb))) differ.push(`${label}: ${a.status} ${ba.byteLength} B vs ${b.status} ${bb.byteLength} B`);
  else if (answerHeaders(a) !== answerHeaders(b)) differ.push(`${label}: headers\n    ${answerHeaders(a).replaceAll('\n', '\n    ')}\n  vs\n    ${answerHeaders(b).replaceAll('\n', '\n    ')}`);
  else same++;
  return a;
}
for (const path of paths) {
  const answer = await compare(path);
  // Conditional asks of the records: the 304 and its headers too.
  const etag = answer.headers.get('etag');
  if (etag && /\/cves\/CVE-[^/]+$/.test(path)) await compare(path, { 'if-none-match': etag });
}
console.log(`${asked} requests: ${same} identical, ${differ.length} different (statuses of A: ${[...byStatus].map(([s, k]) => `${s}×${k}`).join(', ')})`);
for (const line of differ.slice(0, 50)) console.log(`  ${line}`);
if (differ.length > 50) console.log(`  … and ${differ.length - 50} more`);
process.exitCode = differ.length === 0 ? 0 : 1;
