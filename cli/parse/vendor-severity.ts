/**
 * Vendor severity (contract §2.2): the band a vendor states in its own taxonomy, mapped to
 * CRITICAL/HIGH/MEDIUM/LOW, with the taxonomy's name and the exact advisory text it was read
 * from. Every taxonomy lives here, so CSAF, MSRC and any later feed map words the same way.
 *
 * Bands are comparable only within one taxonomy: Red Hat "Important" and Cisco "High" both
 * become HIGH, but `vendor_severity_source` keeps them apart.
 */

export type SeverityBand = 'CRITICAL' | 'HIGH' | 'MEDIUM' | 'LOW';

export interface VendorSeverity {
  band: SeverityBand;
  /** Taxonomy slug: `redhat`, `suse`, `microsoft`, `cisco`, `bsi`, or the vendor slug. */
  source: string;
  /** The exact substring of the advisory the band was parsed from. */
  evidence: string;
}

type Vocabulary = Readonly<Record<string, SeverityBand | null>>;

/** Red Hat, SUSE and Microsoft share the four-step Critical/Important/Moderate/Low scale. */
const IMPACT_SCALE: Vocabulary = { critical: 'CRITICAL', important: 'HIGH', moderate: 'MEDIUM', low: 'LOW' };

/** Cisco Security Impact Rating; `Informational` is a rating but not a severity. */
const CISCO_SIR: Vocabulary = { critical: 'CRITICAL', high: 'HIGH', medium: 'MEDIUM', low: 'LOW', informational: null };

/** BSI publishes English words in its CSAF examples and German ones in CERT-Bund advisories. */
const BSI_SCALE: Vocabulary = {
  critical: 'CRITICAL', high: 'HIGH', important: 'HIGH', moderate: 'MEDIUM', medium: 'MEDIUM', low: 'LOW',
  kritisch: 'CRITICAL', hoch: 'HIGH', mittel: 'MEDIUM', niedrig: 'LOW',
};

/** Any other vendor: the usual English words of both scales, nothing looser. */
const GENERIC_SCALE: Vocabulary = {
  critical: 'CRITICAL', important: 'HIGH', high: 'HIGH', moderate: 'MEDIUM', medium: 'MEDIUM', low: 'LOW', informational: null,
};

const VOCABULARIES: Readonly<Record<string, Vocabulary>> = {
  redhat: IMPACT_SCALE,
  suse: IMPACT_SCALE,
  microsoft: IMPACT_SCALE,
  cisco: CISCO_SIR,
  bsi: BSI_SCALE,
};

/** Known taxonomy owners by web domain (CSAF `aggregate_severity.namespace`, publisher namespace). */
const DOMAIN_TAXONOMIES: ReadonlyArray<[domain: string, taxonomy: string]> = [
  ['redhat.com', 'redhat'],
  ['suse.com', 'suse'],
  ['suse.de', 'suse'],
  ['microsoft.com', 'microsoft'],
  ['cisco.com', 'cisco'],
  ['bsi.bund.de', 'bsi'],
];

function taxonomyOfUrl(url: string | null | undefined): string | null {
  if (!url) return null;
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return null;
  }
  for (const [domain, taxonomy] of DOMAIN_TAXONOMIES) {
    if (host === domain || host.endsWith(`.${domain}`)) return taxonomy;
  }
  return null;
}

/**
 * Which taxonomy a document's severity words belong to: the severity namespace decides when it
 * names a known owner (it is the scale's definition), then a known vendor slug, then the
 * publisher's namespace, else the vendor slug itself.
 */
export function severityTaxonomy(opts: {
  vendor: string;
  severityNamespace?: string | null;
  publisherNamespace?: string | null;
}): string {
  return (
    taxonomyOfUrl(opts.severityNamespace) ??
    (opts.vendor in VOCABULARIES ? opts.vendor : null) ??
    taxonomyOfUrl(opts.publisherNamespace) ??
    opts.vendor
  );
}

/** The band of one severity word in a taxonomy (case-insensitive); null for unknown words. */
export function bandOf(taxonomy: string, word: string): SeverityBand | null {
  const vocabulary = VOCABULARIES[taxonomy] ?? GENERIC_SCALE;
  return vocabulary[word.trim().toLowerCase()] ?? null;
}

/** A value that is only a severity word (`aggregate_severity.text`, a threat's details). */
export function severityFromWord(taxonomy: string, text: unknown): VendorSeverity | null {
  if (typeof text !== 'string') return null;
  const band = bandOf(taxonomy, text);
  return band ? { band, source: taxonomy, evidence: text } : null;
}

/** Sentences in advisory prose that state the vendor's rating; group 1 is the word. */
const PROSE_PATTERNS: ReadonlyArray<{ taxonomy: string; pattern: RegExp }> = [
  // Every RHSA "Topic" note: "Red Hat Product Security has rated this update as having a
  // security impact of Important." (the period is not part of the evidence).
  { taxonomy: 'redhat', pattern: /Red Hat Product Security has rated this \w+ as having a security impact of ([A-Za-z]+)/ },
];

/** A rating sentence inside free text; the evidence is the sentence up to the rating word. */
export function severityFromProse(text: unknown): VendorSeverity | null {
  if (typeof text !== 'string') return null;
  for (const { taxonomy, pattern } of PROSE_PATTERNS) {
    const m = pattern.exec(text);
    const band = m?.[1] ? bandOf(taxonomy, m[1]) : null;
    if (m && band) return { band, source: taxonomy, evidence: m[0] };
  }
  return null;
}

const RANK: Readonly<Record<SeverityBand, number>> = { LOW: 1, MEDIUM: 2, HIGH: 3, CRITICAL: 4 };

/** The higher of two ratings; the first wins a tie (keeps the record's order stable). */
export function higherSeverity(a: VendorSeverity | null, b: VendorSeverity | null): VendorSeverity | null {
  if (!a) return b;
  if (!b) return a;
  return RANK[b.band] > RANK[a.band] ? b : a;
}
