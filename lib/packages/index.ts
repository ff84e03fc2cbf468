/**
 * The package index: every affected-package row of a snapshot whose ecosystem has a version
 * order, grouped by package, with the risk figures of its CVE beside it, and the rows of the
 * advisories that name no CVE of the snapshot with their own figures (`advisory_packages`, see
 * sql/05_side_tables.sql). Built once per snapshot from those tables by one query, so the API (through the
 * snapshot's connection pool) and `vulnintel scan` (straight from the Parquet files) answer
 * from the same rows with the same code.
 *
 * Memory: one small object per row (strings shared with DuckDB's output), no copy of any
 * other table; at 340,000 CVEs it is the GHSA/OSV rows only (see docs and the bench figures).
 */
import { baseEcosystem } from '../versions/ecosystems.ts';
import { nameKey, packageKey, pep503Name } from './names.ts';
import type { RangeBranch } from './ranges.ts';

export interface CveRisk {
  /**
   * null for an OSV/GHSA advisory that names no CVE of the snapshot: the row's `advisory_ids`
   * (it and the records aliased with it) name it, and the figures are theirs (advisory_packages).
   */
  cve_id: string | null;
  service_risk: number;
  service_score: number;
  service_severity: string;
  score_assessed: boolean;
  kev: boolean;
  epss_score: number | null;
}

export interface PackageRow {
  cve: CveRisk;
  ecosystem: string;
  package_name: string;
  purl: string | null;
  source: string;
  advisory_ids: string[];
  /** null: ranges never loaded (a package named by the CVE record only); []: none on record. */
  fixed_branches: RangeBranch[] | null;
  versions: string[];
}

/**
 * The index query: one column `row_json`, each index row as JSON text, in a fixed order (the
 * rows of a package are judged, listed and broken ties in this order, so every replica and
 * every run of the scan gives the same bytes for the same snapshot). `filter`, when given, is
 * an SQL condition on `ap` (the scan narrows to its packages); `schema`, the tables' schema.
 * The serving step stores its rows as `packages.ndjson` (cli/build/serving.ts): a replica and
 * the scan read that file instead of running the query (see fromLines).
 * JSON text because converting DuckDB's values to JS objects value by value took longer than
 * the query itself (0.9 s for 41,000 rows with their nested range lists); one JSON.parse of
 * all the rows takes a fifth of that.
 */
export function packageIndexSql(opts: { filter?: string; schema?: string; advisories?: boolean } = {}): string {
  const { filter, schema } = opts;
  const table = (name: string) => (schema ? `${schema}.${name}` : name);
  const where = `ap.ecosystem IS NOT NULL ${filter ? `AND (${filter})` : ''}`;
  // A snapshot written before advisory_packages existed (or whose file cannot be read) has none.
  const advisories =
    opts.advisories === false
      ? ''
      : `UNION ALL
         SELECT NULL AS cve_id, ap.ecosystem, ap.package_name, ap.purl, 'osv' AS source,
                ap.advisory_ids, ap.fixed_branches, coalesce(ap.versions, []) AS versions,
                ap.service_risk, ap.service_score, ap.service_severity, ap.score_assessed, false AS kev, NULL AS epss_score
         FROM ${table('advisory_packages')} ap
         WHERE ${where}`;
  return `SELECT CAST(to_json(r) AS VARCHAR) AS row_json
          FROM (SELECT ap.cve_id, ap.ecosystem, ap.package_name, ap.purl, ap.source,
                       coalesce(ap.advisory_ids, []) AS advisory_ids, ap.fixed_branches, coalesce(ap.versions, []) AS versions,
                       c.service_risk, c.service_score, c.service_severity, c.score_assessed, c.in_kev AS kev, c.epss_score
                FROM ${table('affected_packages')} ap JOIN ${table('cves')} c ON c.cve_id = ap.cve_id AND c.status = 'active'
                WHERE ${where}
                ${advisories}) r
          ORDER BY r.cve_id NULLS LAST, r.ecosystem, r.package_name, r.source, r.purl NULLS FIRST, r.advisory_ids, r.fixed_branches NULLS FIRST, r.versions`;
}

/** Reads the index query's `row_json` column (see packageIndexSql). */
export type JsonRowsSource = (sql: string) => Promise<readonly string[]>;

/**
 * SQL literal of a string. A NUL is written `chr(0)`: DuckDB reads the query text as a C string,
 * so an SBOM's `pkg:npm/a%00b` cut the scan's query there (a parser error and its stack).
 */
function literal(s: string): string {
  return s
    .split('\u0000')
    .map((part) => `'${part.replaceAll("'", "''")}'`)
    .join(' || chr(0) || ');
}

/** The name key of the filter: lower case, runs of `-`, `_`, `.` as one `-` (PEP 503; a superset for the others). */
function filterKey(name: string): string {
  return pep503Name(name.trim());
}

/**
 * A filter keeping rows whose name could match one of `names` (a superset; the index checks
 * exactly). The SQL side computes filterKey without a regular expression for the names that
 * need none (no doubled separator): a regex per row was half the scan's query time.
 */
export function nameFilterSql(names: Iterable<string>): string {
  const keys = [...new Set([...names].map(filterKey))];
  if (keys.length === 0) return 'false';
  const dashed = `translate(lower(trim(ap.package_name)), '_.', '--')`;
  // IN over a subquery is a hash join; IN over a list of literals is an OR per key, per row.
  return `(CASE WHEN contains(${dashed}, '--') THEN regexp_replace(${dashed}, '-+', '-', 'g') ELSE ${dashed} END) IN (SELECT unnest([${keys.map(literal).join(', ')}]))`;
}

const NAME_MEMBER = '"package_name":"';

/** The package_name of an index row's JSON line, read without parsing the row. */
function packageNameOf(line: string): string {
  const start = line.indexOf(NAME_MEMBER);
  if (start < 0) throw new Error(`packages.ndjson: a row without package_name: ${line.slice(0, 120)}`);
  const from = start + NAME_MEMBER.length;
  const end = line.indexOf('"', from);
  const raw = line.slice(from, end);
  // An escape (a quote or backslash in the name, \u…) is rare: then the literal is parsed.
  if (!raw.includes('\\')) return raw;
  const literal = /^"(?:[^"\\]|\\.)*"/.exec(line.slice(from - 1));
  if (!literal) throw new Error(`packages.ndjson: unreadable package_name: ${line.slice(0, 120)}`);
  return JSON.parse(literal[0]) as string;
}

export class PackageIndex {
  private constructor(
    private readonly byKey: Map<string, PackageRow[]>,
    readonly rowCount: number,
    readonly buildMs: number,
  ) {}

  /**
   * The index of a snapshot, through `read` (a connection to its tables); `opts` as
   * packageIndexSql's (`advisories` false for a snapshot without a readable advisory_packages).
   */
  static async load(read: JsonRowsSource, opts: { filter?: string; advisories?: boolean } = {}): Promise<PackageIndex> {
    const started = performance.now();
    const rows = JSON.parse(`[${(await read(packageIndexSql(opts))).join(',')}]`) as Record<string, unknown>[];
    return PackageIndex.fromRows(rows, started);
  }

  /**
   * The index from the serving step's `packages.ndjson` (the query's rows, one per line, in its
   * order); `names`, when given, keeps only the rows that could be theirs (as nameFilterSql).
   */
  static fromLines(text: string, names?: Iterable<string>): PackageIndex {
    const started = performance.now();
    const body = text.endsWith('\n') ? text.slice(0, -1) : text;
    if (body === '') return PackageIndex.fromRows([], started);
    if (!names) return PackageIndex.fromRows(JSON.parse(`[${body.replaceAll('\n', ',')}]`) as Record<string, unknown>[], started);
    // Narrowed before parsing: only the lines whose package_name could be asked are parsed.
    const keys = new Set([...names].map(filterKey));
    const kept: string[] = [];
    for (const line of body.split('\n')) {
      if (keys.has(filterKey(packageNameOf(line)))) kept.push(line);
    }
    return PackageIndex.fromRows(JSON.parse(`[${kept.join(',')}]`) as Record<string, unknown>[], started);
  }

  /** The index of rows shaped as the index query's (tests hand rows over directly). */
  static fromRows(rows: readonly Record<string, unknown>[], started = performance.now()): PackageIndex {
    const byKey = new Map<string, PackageRow[]>();
    const cves = new Map<string, CveRisk>();
    let count = 0;
    for (const r of rows) {
      const ecosystem = r.ecosystem as string;
      if (baseEcosystem(ecosystem) === null) continue;
      const cveId = (r.cve_id as string | null) ?? null;
      // An advisory no CVE names carries its own figures, shared by its rows under its id.
      const riskKey = cveId ?? `advisory\u0000${(r.advisory_ids as string[]).join(',')}`;
      let cve = cves.get(riskKey);
      if (!cve) {
        cve = {
          cve_id: cveId,
          service_risk: Number(r.service_risk ?? 0),
          service_score: Number(r.service_score ?? 0),
          service_severity: String(r.service_severity ?? 'NONE'),
          score_assessed: r.score_assessed === true,
          kev: r.kev === true,
          epss_score: r.epss_score === null || r.epss_score === undefined ? null : Number(r.epss_score),
        };
        cves.set(riskKey, cve);
      }
      const row: PackageRow = {
        cve,
        ecosystem,
        package_name: r.package_name as string,
        purl: (r.purl as string | null) ?? null,
        source: r.source as string,
        advisory_ids: r.advisory_ids as string[],
        fixed_branches: (r.fixed_branches as RangeBranch[] | null) ?? null,
        versions: r.versions as string[],
      };
      const key = packageKey(ecosystem, row.package_name);
      const list = byKey.get(key);
      if (list) list.push(row);
      else byKey.set(key, [row]);
      count++;
    }
    return new PackageIndex(byKey, count, performance.now() - started);
  }

  /** Rows of a package in any release of its base ecosystem. */
  rowsOf(ecosystem: string, name: string): readonly PackageRow[] {
    return this.byKey.get(packageKey(ecosystem, name)) ?? [];
  }

  get packageCount(): number {
    return this.byKey.size;
  }
}

export { nameKey };
