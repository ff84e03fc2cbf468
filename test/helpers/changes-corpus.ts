/**
 * Two consecutive builds of the bundled sample corpus for the change step and the change feed:
 * the first raw state is a copy of `data/sample/`, the second differs in known ways (PULSE §8),
 * written the way upstream publishes them (a later NVD page, a new KEV catalog, a later EPSS
 * file, new and revised CSAF documents):
 *
 *   CVE-2025-90308  added to KEV (dateAdded 2026-11-23)
 *   CVE-2026-90114  EPSS 0.49999 → 0.61 (crosses 0.50)
 *   CVE-2026-90401  a new CVE (NVD, CVSS 9.8)
 *   CVE-2026-90116  rejected by NVD
 *   CVE-2026-90141  NVD rescored its CVSS v3 from 7.8 (local) to 9.8 (network)
 *   cisco/cisco-sa-ios-cdp-dos-Pq3v9Ks  a new Cisco advisory with no CVE yet
 *   cisco/cisco-sa-asaftd-ssl-dos-Xq7bRt2  an advisory published without a CVE now names CVE-2026-90401
 */
import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSnapshot } from '../../cli/build/build.ts';
import type { BuildResult } from '../../cli/build/options.ts';
import { resolveBuildOptions } from '../../cli/commands/build.ts';
import { nvdPage, nvdRecord } from './raw-corpus.ts';
import { SAMPLE_RAW } from './sample-snapshot.ts';

export interface ChangesCorpus {
  rawDir: string;
  dataDir: string;
  first: BuildResult;
  second: BuildResult;
}

type Json = Record<string, any>;

async function readJson(path: string): Promise<Json> {
  return JSON.parse(await readFile(path, 'utf8')) as Json;
}

async function nvdRecordOf(rawDir: string, id: string): Promise<Json> {
  for (const page of ['handmade-2026-11-20-page-0000.json', 'handmade-2026-11-20-page-0001.json']) {
    const found = (await readJson(join(rawDir, 'nvd', page))).vulnerabilities.find((v: Json) => v.cve.id === id);
    if (found) return structuredClone(found.cve);
  }
  throw new Error(`${id} is not in the sample's hand-made NVD pages`);
}

/** Turns the copy of the sample at `rawDir` into the second raw state described above. */
export async function evolveSampleRaw(rawDir: string): Promise<void> {
  const rejected = await nvdRecordOf(rawDir, 'CVE-2026-90116');
  rejected.vulnStatus = 'Rejected';
  rejected.lastModified = '2026-11-23T09:00:00.000';
  rejected.metrics = {};
  rejected.descriptions = [{ lang: 'en', value: '** REJECT ** This candidate is a duplicate of CVE-2026-90115.' }];
  const rescored = await nvdRecordOf(rawDir, 'CVE-2026-90141');
  rescored.lastModified = '2026-11-23T09:00:00.000';
  rescored.metrics.cvssMetricV31[0].cvssData = {
    ...rescored.metrics.cvssMetricV31[0].cvssData,
    vectorString: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', baseScore: 9.8, baseSeverity: 'CRITICAL', attackVector: 'NETWORK', privilegesRequired: 'NONE',
  };
  const added = nvdRecord({
    id: 'CVE-2026-90401',
    published: '2026-11-22T15:00:00.000',
    lastModified: '2026-11-23T09:00:00.000',
    sourceIdentifier: 'psirt@cisco.com',
    description: 'A vulnerability in the SSL VPN server of Cisco ASA Software allows an unauthenticated, remote attacker to cause a reload.',
    metrics: [{ version: '3.1', source: 'nvd@nist.gov', vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', score: 9.8 }],
    cwes: ['CWE-787'],
    cpes: ['cpe:2.3:a:cisco:adaptive_security_appliance_software:9.22.1:*:*:*:*:*:*:*'],
  });
  await writeFile(join(rawDir, 'nvd', 'delta-2026-11-23-page-0000.json'), JSON.stringify(nvdPage([rejected, rescored, added])));

  const kevPath = join(rawDir, 'kev', 'known_exploited_vulnerabilities.json');
  const kev = await readJson(kevPath);
  kev.catalogVersion = '2026.11.23';
  kev.dateReleased = '2026-11-23T16:00:00.0000Z';
  kev.vulnerabilities.unshift({
    cveID: 'CVE-2025-90308', vendorProject: 'Example', product: 'Widget Server', vulnerabilityName: 'Example Widget Server Path Traversal Vulnerability',
    dateAdded: '2026-11-23', shortDescription: 'A path traversal in Widget Server.', requiredAction: 'Apply updates per vendor instructions.',
    dueDate: '2026-12-14', knownRansomwareCampaignUse: 'Unknown', notes: '', cwes: [],
  });
  kev.count = kev.vulnerabilities.length;
  await writeFile(kevPath, JSON.stringify(kev, null, 4));

  await writeFile(join(rawDir, 'epss', 'epss_scores-2026-11-23.csv'), '#model_version:v2026.06.15,score_date:2026-11-23T12:00:00Z\ncve,epss,percentile\nCVE-2026-90114,0.61,0.98\n');

  const ciscoDir = join(rawDir, 'csaf', 'cisco', '2026');
  const linkedPath = join(ciscoDir, 'cisco-sa-asaftd-ssl-dos-xq7brt2.json');
  const original = await readJson(linkedPath);
  const linked = structuredClone(original);
  linked.document.tracking.current_release_date = '2026-11-23T16:00:00Z';
  linked.document.tracking.version = '1.1';
  linked.document.tracking.revision_history.push({ date: '2026-11-23T16:00:00Z', number: '1.1', summary: 'CVE ID assigned.' });
  linked.vulnerabilities = (linked.vulnerabilities ?? [{}]).map((v: Json) => ({ ...v, cve: 'CVE-2026-90401' }));
  if (linked.vulnerabilities.length === 0) linked.vulnerabilities = [{ cve: 'CVE-2026-90401' }];
  await writeFile(linkedPath, JSON.stringify(linked, null, 2));

  const fresh = structuredClone(original);
  fresh.document.title = 'Cisco IOS XE Software CDP Denial of Service Vulnerability';
  fresh.document.tracking = {
    ...fresh.document.tracking,
    id: 'cisco-sa-ios-cdp-dos-Pq3v9Ks', current_release_date: '2026-11-23T16:00:00Z', initial_release_date: '2026-11-23T16:00:00Z',
    revision_history: [{ date: '2026-11-23T16:00:00Z', number: '1.0', summary: 'Initial public release.' }],
  };
  fresh.document.aggregate_severity = { ...fresh.document.aggregate_severity, text: 'Medium' };
  fresh.document.notes = fresh.document.notes.map((n: Json) =>
    n.category === 'summary' ? { ...n, text: 'A vulnerability in CDP of Cisco IOS XE Software could allow an adjacent attacker to cause a reload. A CVE ID has been requested.\n\nSecurity Impact Rating: Medium' } : n,
  );
  fresh.document.references = [{ category: 'self', summary: fresh.document.title, url: 'https://sec.cloudapps.cisco.com/security/center/content/CiscoSecurityAdvisory/cisco-sa-ios-cdp-dos-Pq3v9Ks' }];
  await writeFile(join(ciscoDir, 'cisco-sa-ios-cdp-dos-pq3v9ks.json'), JSON.stringify(fresh, null, 2));
}

async function build(rawDir: string, dataDir: string): Promise<BuildResult> {
  process.env.VULNINTEL_QUIET = '1';
  return buildSnapshot(await resolveBuildOptions({ raw: rawDir, data: dataDir, keep: 5 }));
}

let pending: Promise<ChangesCorpus> | undefined;

/** Builds the first and the second state into one data folder, once per test process. */
export function buildChangesCorpus(): Promise<ChangesCorpus> {
  pending ??= (async () => {
    const rawDir = await mkdtemp(join(tmpdir(), 'vulnintel-changes-raw-'));
    const dataDir = await mkdtemp(join(tmpdir(), 'vulnintel-changes-data-'));
    await cp(SAMPLE_RAW, rawDir, { recursive: true });
    const first = await build(rawDir, dataDir);
    await evolveSampleRaw(rawDir);
    const second = await build(rawDir, dataDir);
    return { rawDir, dataDir, first, second };
  })();
  return pending;
}

/** Builds again from the same raw folder (a rebuild with no upstream difference). */
export function rebuild(corpus: ChangesCorpus): Promise<BuildResult> {
  return build(corpus.rawDir, corpus.dataDir);
}
