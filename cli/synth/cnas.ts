/**
 * CVE Numbering Authorities of the synthetic corpus: how NVD names them (`sourceIdentifier`,
 * an email or a UUID), their CVE 5 org id and short name. The well-known ids (CISA-ADP, the
 * CVE Program container, Linux, Citrix, Google) are the real ones, as in the samples.
 */
import { rngFor } from './random.ts';

export const NVD_SOURCE = 'nvd@nist.gov';
export const CISA_ADP = { orgId: '134c704f-9b21-4f2e-91b3-4a467353bcc0', shortName: 'CISA-ADP' } as const;
export const CVE_PROGRAM = { orgId: 'af854a3a-2127-422b-91ae-364da2661108', shortName: 'CVE' } as const;

export interface Cna {
  key: string;
  /** What NVD puts in `sourceIdentifier` and in the `source` of the CNA's metrics. */
  sourceIdentifier: string;
  orgId: string;
  shortName: string;
  /** Description style of the CNA's records. */
  style: 'plain' | 'vuldb' | 'kernel' | 'wordfence' | 'github' | 'microsoft' | 'legacy';
}

/** [key, sourceIdentifier or '' for "the org id", shortName, style, fixed org id?] */
const KNOWN: Array<[string, string, string, Cna['style'], string?]> = [
  ['mitre', 'cve@mitre.org', 'mitre', 'plain', '8254265b-2729-46b6-b9e3-3dfca2d5bfca'],
  ['microsoft', 'secure@microsoft.com', 'microsoft', 'microsoft'],
  ['android', 'security@android.com', 'google_android', 'plain'],
  ['chrome', 'chrome-cve-admin@google.com', 'Chrome', 'plain'],
  ['google', 'cve-coordination@google.com', 'Google', 'plain', '14ed7db2-1595-443d-9d34-6215bf890778'],
  ['apple', 'product-security@apple.com', 'apple', 'plain'],
  ['linux', '', 'Linux', 'kernel', '416baaa9-dc9f-4396-8d5f-8c081fb06d67'],
  ['redhat', 'secalert@redhat.com', 'redhat', 'plain'],
  ['suse', 'meissner@suse.de', 'suse', 'plain'],
  ['oracle', 'secalert_us@oracle.com', 'oracle', 'plain'],
  ['adobe', 'psirt@adobe.com', 'adobe', 'plain'],
  ['cisco', 'psirt@cisco.com', 'cisco', 'plain'],
  ['siemens', 'productcert@siemens.com', 'siemens', 'plain'],
  ['github', 'security-advisories@github.com', 'GitHub_M', 'github'],
  ['vuldb', 'cna@vuldb.com', 'VulDB', 'vuldb'],
  ['wordfence', 'security@wordfence.com', 'Wordfence', 'wordfence'],
  ['patchstack', 'audit@patchstack.com', 'Patchstack', 'wordfence'],
  ['huntr', 'security@huntr.dev', '@huntr_ai', 'github'],
  ['hackerone', 'support@hackerone.com', 'hackerone', 'plain'],
  ['apache', 'security@apache.org', 'apache', 'plain'],
  ['ibm', 'psirt@us.ibm.com', 'ibm', 'plain'],
  ['fortinet', 'psirt@fortinet.com', 'fortinet', 'plain'],
  ['paloalto', 'psirt@paloaltonetworks.com', 'palo_alto', 'plain'],
  ['vmware', 'security@vmware.com', 'vmware', 'plain'],
  ['f5', 'f5sirt@f5.com', 'f5', 'plain'],
  ['juniper', 'sirt@juniper.net', 'juniper', 'plain'],
  ['icscert', 'ics-cert@hq.dhs.gov', 'icscert', 'plain'],
  ['schneider', 'cybersecurity@se.com', 'schneider', 'plain'],
  ['rockwell', 'PSIRT@rockwellautomation.com', 'Rockwell', 'plain'],
  ['mitsubishi', 'Mitsubishi.Electric.Cyber.Security@mb.MitsubishiElectric.co.jp', 'Mitsubishi', 'plain'],
  ['qualcomm', 'product-security@qualcomm.com', 'qualcomm', 'plain'],
  ['mozilla', 'security@mozilla.org', 'mozilla', 'plain'],
  ['debian', 'security@debian.org', 'debian', 'plain'],
  ['canonical', 'security@ubuntu.com', 'canonical', 'plain'],
  ['jenkins', 'jenkinsci-cert@googlegroups.com', 'jenkins', 'plain'],
  ['gitlab', 'cve@gitlab.com', 'GitLab', 'plain'],
  ['openssl', 'openssl-security@openssl.org', 'openssl', 'plain'],
  ['python', 'cna@python.org', 'PSF', 'plain'],
  ['sap', 'cna@sap.com', 'sap', 'plain'],
  ['atlassian', 'security@atlassian.com', 'atlassian', 'plain'],
  ['zyxel', 'security@zyxel.com.tw', 'Zyxel', 'plain'],
  ['ivanti', 'support@hackerone.com', 'ivanti', 'plain'],
  ['citrix', 'secure@citrix.com', 'Citrix', 'plain', 'e437aed5-38e0-4fa3-a98b-cb73e7acaec6'],
  ['golang', 'security@golang.org', 'Go', 'plain'],
  ['kubernetes', 'security@kubernetes.io', 'kubernetes', 'plain'],
  ['grafana', 'security@grafana.com', 'GRAFANA', 'plain'],
  ['nvidia', 'psirt@nvidia.com', 'nvidia', 'plain'],
  ['mattermost', 'responsibledisclosure@mattermost.com', 'Mattermost', 'plain'],
  ['jpcert', 'vultures@jpcert.or.jp', 'jpcert', 'plain'],
  ['snyk', 'report@snyk.io', 'snyk', 'plain'],
  ['vulncheck', 'disclosure@vulncheck.com', 'VulnCheck', 'plain'],
];

function orgIdFor(key: string): string {
  // CNA org ids do not depend on the corpus seed: a CNA keeps its id across corpora.
  return rngFor(0xc4a, 'cna-org', key).uuid();
}

const TABLE = new Map<string, Cna>();
for (const [key, email, shortName, style, fixed] of KNOWN) {
  const orgId = fixed ?? orgIdFor(key);
  TABLE.set(key, { key, sourceIdentifier: email || orgId, orgId, shortName, style });
}

/** A known CNA, or a vendor that is its own CNA (`vendor:<slug>` → `psirt@<slug>.com`). */
export function cnaByKey(key: string): Cna {
  const known = TABLE.get(key);
  if (known) return known;
  if (key.startsWith('vendor:')) {
    const slug = key.slice('vendor:'.length);
    const cna: Cna = { key, sourceIdentifier: `psirt@${slug.replace(/_/g, '')}.com`, orgId: orgIdFor(key), shortName: slug, style: 'plain' };
    TABLE.set(key, cna);
    return cna;
  }
  throw new Error(`unknown CNA ${key}`);
}
