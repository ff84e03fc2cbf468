/**
 * Per-reference enrichment of one CVE (contract 2.7, 4.5): every reference URL the feeds list,
 * with its tags folded to one spelling, the feeds that listed it, what it is (patch, exploit,
 * vendor advisory), and where it leads inside the service (the vendor advisory's API path, the
 * GHSA id). Exploit records (Exploit-DB, Metasploit, nuclei, PoC-in-GitHub) that no reference
 * already points at follow, so a caller sees every public exploit in one answer.
 */
import { isoTimestampSql, selectRows, vendorAdvisoryApiPath, type SnapshotReader } from './support.ts';

export interface VendorAdvisoryLink {
  vendor: string;
  advisory_id: string;
  /** Path of the advisory in this API. */
  api_path: string;
}

export interface CveReference {
  url: string;
  name: string | null;
  tags: string[];
  /** Feeds (or CNA / NVD source identifiers) that listed the URL. */
  sources: string[];
  is_patch: boolean;
  is_exploit: boolean;
  is_vendor_advisory: boolean;
  /** The vendor advisory this URL is, when the service holds it. */
  vendor_advisory: VendorAdvisoryLink | null;
  ghsa_id: string | null;
  /** The exploit database that lists this URL (exploitdb, metasploit, nuclei, poc_in_github…). */
  exploit_source: string | null;
}

export interface ExploitRecord {
  source: string;
  exploit_id: string | null;
  url: string | null;
  title: string | null;
  published: string | null;
  verified: boolean | null;
}

export interface CveReferences {
  cve_id: string;
  references: CveReference[];
  /** Exploit records whose URL is not among `references` (or that have no URL). */
  exploits: ExploitRecord[];
  /** `references` / `exploits` when the snapshot's table for it could not be read (served empty). */
  failed_sections: string[];
}

interface ReferenceRow extends Omit<CveReference, 'vendor_advisory'> {
  advisory_vendor: string | null;
  advisory_id: string | null;
}

/** Null when the CVE is not in the snapshot. */
export async function findCveReferences(reader: SnapshotReader, cveId: string): Promise<CveReferences | null> {
  const exists = await selectRows<{ cve_id: string }>(reader, `SELECT cve_id FROM cves WHERE cve_id = $1`, [cveId]);
  if (exists.length === 0) return null;
  // A table that could not be loaded exists with no columns of its own: never query it.
  const failed_sections = failedReferenceSections(reader.unreadableTables);
  const referencesReadable = !failed_sections.includes('references');
  const exploitsReadable = !failed_sections.includes('exploits');
  return {
    cve_id: cveId,
    references: referencesReadable ? await readReferences(reader, cveId) : [],
    exploits: exploitsReadable ? await readUnreferencedExploits(reader, cveId, referencesReadable) : [],
    failed_sections,
  };
}

/**
 * The parts of the answer whose snapshot table could not be loaded (each part reads the table
 * of its name); they are served empty. Shared with the build's precomputed answers.
 */
export function failedReferenceSections(unreadableTables: ReadonlySet<string>): string[] {
  return ['references', 'exploits'].filter((table) => unreadableTables.has(table));
}

async function readReferences(reader: SnapshotReader, cveId: string): Promise<CveReference[]> {
  // Advisories and patches first: they are what a reader acts on; then by URL for a stable order.
  const rows = await selectRows<ReferenceRow>(
    reader,
    `SELECT url, name, coalesce(tags, []) AS tags, coalesce(sources, []) AS sources,
            coalesce(is_patch, false) AS is_patch, coalesce(is_exploit, false) AS is_exploit,
            coalesce(is_vendor_advisory, false) AS is_vendor_advisory,
            advisory.vendor AS advisory_vendor, advisory.advisory_id AS advisory_id,
            nullif(ghsa_id, '') AS ghsa_id, exploit_source
     FROM "references" WHERE cve_id = $1
     ORDER BY is_vendor_advisory DESC, is_patch DESC, is_exploit DESC, url`,
    [cveId],
  );
  return rows.map(({ advisory_vendor, advisory_id, ...rest }) => ({
    ...rest,
    vendor_advisory:
      advisory_vendor !== null && advisory_id !== null
        ? { vendor: advisory_vendor, advisory_id, api_path: vendorAdvisoryApiPath(advisory_vendor, advisory_id) }
        : null,
  }));
}

/** Exploit records of the CVE, less those a reference already shows (same URL). */
export async function readUnreferencedExploits(reader: SnapshotReader, cveId: string, excludeReferenced: boolean): Promise<ExploitRecord[]> {
  const notReferenced = excludeReferenced
    ? `AND (e.url IS NULL OR NOT EXISTS (SELECT 1 FROM "references" r WHERE r.cve_id = e.cve_id AND r.url = e.url))`
    : '';
  return selectRows<ExploitRecord>(
    reader,
    `SELECT e.source, e.exploit_id, e.url, e.title, ${isoTimestampSql('e.published')} AS published, e.verified
     FROM exploits e
     WHERE e.cve_id = $1 ${notReferenced}
     ORDER BY e.published DESC NULLS LAST, e.source, e.exploit_id`,
    [cveId],
  );
}
