/**
 * One line per source on what it fetches, for `vulnintel fetch --help` (and `update --help`).
 * Kept apart from the fetchers so that printing help loads no fetcher; typed by SourceName so a
 * new source does not compile without its line.
 */
import type { SourceName } from './config.ts';

export const SOURCE_SUMMARIES: Record<SourceName, string> = {
  nvd: 'NVD CVE API 2.0: every CVE with CVSS metrics, CWEs and CPE configurations (full pull, then lastModified windows)',
  cvelist: 'CVE List V5 (CVEProject/cvelistV5 releases): the CNA records, a baseline zip then daily delta zips',
  kev: "CISA's Known Exploited Vulnerabilities catalog (JSON)",
  epss: "FIRST's EPSS exploitation probability and percentile of every CVE (daily gzipped CSV)",
  ghsa: 'GitHub Security Advisories from the OSV export, per ecosystem: all.zip, then the records modified since',
  csaf: "vendors' CSAF 2.0 advisories listed by each provider's provider-metadata.json (Red Hat, Cisco, Siemens, SUSE, Microsoft, CISA by default)",
  msrc: "Microsoft's monthly CVRF security update documents (MSRC API)",
  exploitdb: 'the Exploit-DB index of public exploits (files_exploits.csv)',
  metasploit: "the Metasploit Framework's module metadata (modules naming a CVE)",
  nuclei: "ProjectDiscovery's nuclei-templates index of CVE detection templates (cves.json)",
  'poc-in-github': 'PoC-in-GitHub: proof-of-concept repositories on GitHub, per CVE (repository archive)',
  cwe: "MITRE's CWE catalog of weakness names and descriptions (XML)",
};

/** The `Sources:` block of a command's help: every name, padded, with its line. */
export function sourcesHelp(): string {
  const names = Object.keys(SOURCE_SUMMARIES) as SourceName[];
  const width = Math.max(...names.map((n) => n.length));
  return ['', 'Sources (--sources, comma-separated; default: all, in this order):', ...names.map((n) => `  ${n.padEnd(width)}  ${SOURCE_SUMMARIES[n]}`)].join('\n');
}
