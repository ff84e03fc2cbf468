/**
 * Writes `changes.parquet` into a snapshot folder in exactly the column layout of
 * lib/changes/model.ts (what the build's change step writes), and points `data/CURRENT` at it.
 * For the notifier's tests and benchmark; the lead's end-to-end test uses the real build.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { ChangeRow } from '../../lib/changes/model.ts';
import { currentPointer, snapshotsDir } from '../../lib/snapshot-layout.ts';

const COLUMNS: Record<keyof ChangeRow, string> = {
  change_id: 'VARCHAR',
  build_id: 'VARCHAR',
  detected_at: 'TIMESTAMP',
  subject_type: 'VARCHAR',
  cve_id: 'VARCHAR',
  vendor: 'VARCHAR',
  advisory_id: 'VARCHAR',
  kind: 'VARCHAR',
  before: 'VARCHAR',
  after: 'VARCHAR',
  why: 'VARCHAR',
  title: 'VARCHAR',
  service_severity: 'VARCHAR',
  service_score: 'DOUBLE',
  service_risk: 'DOUBLE',
  in_kev: 'BOOLEAN',
  epss_score: 'DOUBLE',
  vendor_severity: 'VARCHAR',
  vendors: 'VARCHAR[]',
  products: 'VARCHAR[]',
  ecosystems: 'VARCHAR[]',
  packages: 'VARCHAR[]',
  cwe_ids: 'VARCHAR[]',
};

/** Writes the rows (newest build first, then change_id, as the build does) and publishes the folder. */
export async function publishChanges(dataDir: string, buildId: string, rows: readonly ChangeRow[]): Promise<string> {
  const dir = join(snapshotsDir(dataDir), buildId);
  await mkdir(dir, { recursive: true });
  const scratch = await mkdtemp(join(tmpdir(), 'vulnintel-changes-'));
  try {
    const ndjson = join(scratch, 'rows.ndjson');
    await writeFile(ndjson, rows.map((r) => JSON.stringify({ ...r, detected_at: r.detected_at.replace('T', ' ').replace('Z', '') })).join('\n') + '\n');
    const columns = Object.entries(COLUMNS)
      .map(([name, type]) => `"${name}": '${type}'`)
      .join(', ');
    const select = Object.keys(COLUMNS)
      .map((name) => `"${name}"`)
      .join(', ');
    const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
    try {
      const connection = await instance.connect();
      await connection.run(
        `COPY (SELECT ${select} FROM read_json('${ndjson}', format = 'newline_delimited', columns = {${columns}}) ORDER BY detected_at DESC, change_id)
         TO '${join(dir, 'changes.parquet')}' (FORMAT parquet)`,
      );
      connection.closeSync();
    } finally {
      instance.closeSync();
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  await writeFile(currentPointer(dataDir), `${buildId}\n`);
  return dir;
}

let sequence = 0;

/** A change row with sensible defaults (a CVE subject). */
export function change(over: Partial<ChangeRow> & Pick<ChangeRow, 'build_id' | 'detected_at' | 'kind'>): ChangeRow {
  sequence++;
  return {
    change_id: `c${String(sequence).padStart(6, '0')}`,
    subject_type: 'cve',
    cve_id: `CVE-2026-${String(10000 + sequence)}`,
    vendor: null,
    advisory_id: null,
    before: null,
    after: null,
    why: 'Something changed.',
    title: null,
    service_severity: 'MEDIUM',
    service_score: 5.5,
    service_risk: 30,
    in_kev: false,
    epss_score: 0.01,
    vendor_severity: null,
    vendors: [],
    products: [],
    ecosystems: [],
    packages: [],
    cwe_ids: [],
    ...over,
  };
}
