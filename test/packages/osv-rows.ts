/**
 * Package-index rows made from OSV records by the build's own parser (cli/parse/osv.ts), shaped
 * as sql/05_side_tables.sql shapes `affected_packages` — so range tests read real-format
 * records without building a snapshot.
 */
import { parseOsvRecord } from '../../cli/parse/osv.ts';
import { PackageIndex } from '../../lib/packages/index.ts';

export interface Risk {
  service_risk?: number;
  kev?: boolean;
  epss_score?: number | null;
}

export async function indexOf(records: { record: unknown; cve: string; risk?: Risk }[]): Promise<PackageIndex> {
  const rows: Record<string, unknown>[] = [];
  for (const { record, cve, risk } of records) {
    const parsed = parseOsvRecord(record, 'test.json');
    const byPackage = new Map<string, Record<string, unknown>>();
    for (const p of parsed.packages) {
      const key = `${p.ecosystem}\u0000${p.package_name}`;
      let row = byPackage.get(key);
      if (!row) {
        row = {
          cve_id: cve, ecosystem: p.ecosystem, package_name: p.package_name, purl: p.purl, source: 'osv',
          advisory_ids: [parsed.advisory.advisory_id], fixed_branches: [], versions: [],
          service_risk: risk?.service_risk ?? 5, service_score: 5, service_severity: 'MEDIUM', score_assessed: true,
          kev: risk?.kev ?? false, epss_score: risk?.epss_score ?? null,
        };
        byPackage.set(key, row);
        rows.push(row);
      }
      (row.versions as string[]).push(...p.versions);
      for (const r of parsed.ranges.filter((x) => x.affected_index === p.affected_index)) {
        (row.fixed_branches as unknown[]).push({
          introduced: r.introduced, fixed: r.fixed, last_affected: r.last_affected, limit: r.limit,
          range_type: r.range_type, advisory_id: r.advisory_id, source: parsed.advisory.database,
        });
      }
    }
  }
  return PackageIndex.fromRows(rows);
}

export function osv(id: string, affected: unknown[]): Record<string, unknown> {
  return { schema_version: '1.6.0', id, modified: '2026-01-01T00:00:00Z', published: '2026-01-01T00:00:00Z', summary: id, affected };
}

export function range(type: string, ...events: [string, string][]): Record<string, unknown> {
  return { type, events: events.map(([k, v]) => ({ [k]: v })) };
}
