/**
 * Reads the changes a subscription can match: `changes.parquet` of the published snapshot
 * (`<data>/CURRENT`), which carries the last 90 days (PULSE §2). The notifier and the preview
 * read it through here, as ChangeRow (lib/changes/model.ts), timestamps as ISO strings.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { ChangeRow } from '../changes/model.ts';
import { readCurrentBuildId, snapshotsDir } from '../snapshot-layout.ts';

export const CHANGES_FILE = 'changes.parquet';

export interface CurrentChanges {
  /** The published build, or null when nothing is published. */
  buildId: string | null;
  /** Oldest first (detected_at, then change_id). */
  changes: ChangeRow[];
}

const ISO = `strftime(detected_at, '%Y-%m-%dT%H:%M:%S.%gZ')`;

/** Changes of one snapshot folder detected after `since` (all when null); none without the file. */
export async function readChanges(snapshotDir: string, since: string | null): Promise<ChangeRow[]> {
  const file = join(snapshotDir, CHANGES_FILE);
  if (!existsSync(file)) return [];
  const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
  try {
    const connection = await instance.connect();
    try {
      // Compared as the ISO text the rows carry (millisecond precision, like every cursor).
      const where = since === null ? '' : `WHERE ${ISO} > $1`;
      const reader = await connection.runAndReadAll(
        `SELECT change_id, build_id, ${ISO} AS detected_at, subject_type, cve_id, vendor, advisory_id, kind, "before", "after", why,
                title, service_severity, service_score, service_risk, in_kev, epss_score, vendor_severity,
                COALESCE(vendors, []) AS vendors, COALESCE(products, []) AS products, COALESCE(ecosystems, []) AS ecosystems,
                COALESCE(packages, []) AS packages, COALESCE(cwe_ids, []) AS cwe_ids
         FROM read_parquet('${file.replaceAll("'", "''")}') ${where}
         ORDER BY detected_at, change_id`,
        since === null ? [] : [since],
      );
      return reader.getRowObjectsJson() as unknown as ChangeRow[];
    } finally {
      connection.closeSync();
    }
  } finally {
    instance.closeSync();
  }
}

export async function readCurrentChanges(dataDir: string, since: string | null): Promise<CurrentChanges> {
  const buildId = await readCurrentBuildId(dataDir);
  if (buildId === null) return { buildId, changes: [] };
  return { buildId, changes: await readChanges(join(snapshotsDir(dataDir), buildId), since) };
}

/**
 * For `serve` (subscription previews): the changes of the snapshot being served, read once per
 * build and kept until the next one is served.
 */
export function servedChanges(dataDir: string, currentBuildId: () => string | null): () => Promise<readonly ChangeRow[]> {
  let cached: { buildId: string; changes: Promise<ChangeRow[]> } | null = null;
  return async () => {
    const buildId = currentBuildId();
    if (buildId === null) return [];
    if (cached?.buildId !== buildId) cached = { buildId, changes: readChanges(join(snapshotsDir(dataDir), buildId), null) };
    return cached.changes;
  };
}
