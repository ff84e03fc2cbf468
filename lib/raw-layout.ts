/**
 * Where each upstream source lives under the raw directory (`--raw`, default `data/raw`).
 * Fetchers write these paths; the build reads them; `synth` and `data/sample/` use the same
 * layout. Files are kept exactly as the source publishes them.
 *
 * Inside a source folder, names starting with `_` or `.` are not data (fetch state, temporary
 * downloads) and every reader skips them.
 */
export const RAW_SOURCES = {
  /** NVD CVE API 2.0 response pages (`*.json`, `*.json.gz`), any names. A CVE may appear in
   *  several pages; the version with the latest `lastModified` wins. */
  nvd: 'nvd',
  /** CVE JSON 5.x records: `*.json` files in any tree, or `*.zip` archives of them (the
   *  cvelistV5 baseline/delta zips, outer `.zip.zip` wrapper already removed). Per CVE the
   *  record with the latest `cveMetadata.dateUpdated` wins. */
  cvelist: 'cvelist',
  /** CISA KEV catalog: `known_exploited_vulnerabilities.json`. */
  kev: 'kev',
  /** EPSS daily CSV: `epss_scores-*.csv.gz` or `.csv`. The newest score date wins per CVE. */
  epss: 'epss',
  /** OSV records (GHSA and other OSV databases): `*.json` in any tree, or `*.zip` (OSV
   *  `all.zip`). Per id the latest `modified` wins. */
  ghsa: 'ghsa',
  /** CSAF 2.0 documents, one folder per provider: `csaf/<vendor>/**.json` (or `*.zip`). The
   *  folder name is the vendor slug used by the API (`redhat`, `cisco`, `siemens`, …). */
  csaf: 'csaf',
  /** Microsoft MSRC CVRF v3 JSON documents (one per month): severity and the Exploited flag. */
  msrc: 'msrc',
  /** Exploit-DB `files_exploits.csv`. */
  exploitdb: 'exploitdb',
  /** Metasploit `modules_metadata_base.json`. */
  metasploit: 'metasploit',
  /** nuclei-templates `cves.json` (JSON Lines). */
  nuclei: 'nuclei',
  /** PoC-in-GitHub per-CVE arrays: `<year>/CVE-*.json` in any tree, or a `*.zip`. */
  pocInGithub: 'poc-in-github',
  /** MITRE CWE list: `cwec_v*.xml` (or `.xml.zip`), or CWE REST API JSON records. */
  cwe: 'cwe',
} as const;

export type RawSourceKey = keyof typeof RAW_SOURCES;

/** Per-source fetch status records live beside the data, never inside a source folder. */
export const RAW_STATUS_DIR = '_status';

export function isDataName(name: string): boolean {
  return !name.startsWith('_') && !name.startsWith('.');
}
