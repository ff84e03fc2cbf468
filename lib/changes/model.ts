/**
 * The change model shared by the build step that writes `changes.parquet` (sql/), the change
 * feed of the API (`/changes`, `/cves/{id}/history`, Atom, SSE), the notifier (`vulnintel
 * notify`) and the /pulse pages. PULSE.md §2–§4 define it; this file is the one place that
 * names the columns, the kinds and the filter, so every consumer matches a change the same way.
 *
 * `changes.parquet` columns (one row per subject and kind; newest build first, then change_id):
 *   change_id        VARCHAR    stable: hex of sha256(build_id|subject_type|subject|kind), 24 chars
 *   build_id         VARCHAR    the build that detected it
 *   detected_at      TIMESTAMP  the build's time (UTC)
 *   subject_type     VARCHAR    'cve' | 'advisory'
 *   cve_id           VARCHAR    the CVE (NULL for an advisory that names none)
 *   vendor           VARCHAR    advisory subjects: the advisory's vendor (its source); NULL for CVEs
 *   advisory_id      VARCHAR    advisory subjects: the advisory id; NULL for CVEs
 *   kind             VARCHAR    one of CHANGE_KINDS
 *   before, after    VARCHAR    JSON objects of the fields that changed (NULL when not applicable)
 *   why              VARCHAR    one plain-English sentence
 *   -- the subject's brief as of this build, for matching without joins:
 *   title            VARCHAR
 *   service_severity VARCHAR    CRITICAL | HIGH | MEDIUM | LOW | NONE (CVE subjects)
 *   service_score    DOUBLE
 *   service_risk     DOUBLE
 *   in_kev           BOOLEAN
 *   epss_score       DOUBLE
 *   vendor_severity  VARCHAR    the advisory's own band mapped to CRITICAL/HIGH/MEDIUM/LOW, else NULL
 *   vendors          VARCHAR[]  vendor keys (lower case, spaces as '_', as products.parquet)
 *   products         VARCHAR[]  'vendor_key:product_key'
 *   ecosystems       VARCHAR[]  OSV ecosystem names as published (e.g. 'npm', 'PyPI')
 *   packages         VARCHAR[]  'ecosystem:package_name' as published
 *   cwe_ids          VARCHAR[]  'CWE-79', …
 */
import { codePointsExceed } from '../code-points.ts';
import { pep503Name } from '../packages/names.ts';
import { sqlLowerCase } from '../sql-lower.ts';

/** The columns of changes.parquet with their DuckDB types, in file order (see above). */
export const CHANGE_COLUMNS: ReadonlyArray<readonly [name: keyof ChangeRow, duckdbType: string]> = [
  ['change_id', 'VARCHAR'],
  ['build_id', 'VARCHAR'],
  ['detected_at', 'TIMESTAMP'],
  ['subject_type', 'VARCHAR'],
  ['cve_id', 'VARCHAR'],
  ['vendor', 'VARCHAR'],
  ['advisory_id', 'VARCHAR'],
  ['kind', 'VARCHAR'],
  ['before', 'VARCHAR'],
  ['after', 'VARCHAR'],
  ['why', 'VARCHAR'],
  ['title', 'VARCHAR'],
  ['service_severity', 'VARCHAR'],
  ['service_score', 'DOUBLE'],
  ['service_risk', 'DOUBLE'],
  ['in_kev', 'BOOLEAN'],
  ['epss_score', 'DOUBLE'],
  ['vendor_severity', 'VARCHAR'],
  ['vendors', 'VARCHAR[]'],
  ['products', 'VARCHAR[]'],
  ['ecosystems', 'VARCHAR[]'],
  ['packages', 'VARCHAR[]'],
  ['cwe_ids', 'VARCHAR[]'],
];

export const CHANGE_KINDS = [
  'new_cve',
  'new_advisory',
  'advisory_linked',
  'kev_added',
  'kev_removed',
  'severity_changed',
  'score_changed',
  'risk_changed',
  'epss_crossed',
  'exploit_published',
  'assessed',
  'rejected',
  'cvss_changed',
  'ssvc_changed',
] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

export const SEVERITY_ORDER = ['NONE', 'LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const;
export type ServiceSeverity = (typeof SEVERITY_ORDER)[number];

/** One row of changes.parquet as JS reads it (timestamps as ISO strings, JSON left as text). */
export interface ChangeRow {
  change_id: string;
  build_id: string;
  detected_at: string;
  subject_type: 'cve' | 'advisory';
  cve_id: string | null;
  vendor: string | null;
  advisory_id: string | null;
  kind: ChangeKind;
  before: string | null;
  after: string | null;
  why: string;
  title: string | null;
  service_severity: string | null;
  service_score: number | null;
  service_risk: number | null;
  in_kev: boolean | null;
  epss_score: number | null;
  vendor_severity: string | null;
  vendors: string[];
  products: string[];
  ecosystems: string[];
  packages: string[];
  cwe_ids: string[];
}

/**
 * A filter over changes: the query parameters of `/changes`, the Atom feed and the stream,
 * and the filter of a subscription. Every member is optional; an empty filter matches all.
 * Text members are compared case-insensitively.
 */
export interface ChangeFilter {
  kinds?: ChangeKind[];
  /** A whole vendor (vendor key). */
  vendor?: string;
  /** With vendor: one product of it (product key). */
  product?: string;
  ecosystem?: string;
  /** With ecosystem (or alone: any ecosystem): the package name. */
  package?: string;
  cwe?: string;
  /** Words that must all occur in the subject's id, title, why, vendors or products. */
  search?: string;
  min_severity?: Exclude<ServiceSeverity, 'NONE'>;
  min_risk?: number;
  kev_only?: boolean;
}

/**
 * The text members of a ChangeFilter (vendor, product, ecosystem, package, search), as every
 * reader takes them (the query parameters of /changes, the feed and the stream; a
 * subscription's filter): at most FILTER_TEXT_MAX characters as sent (code points, as JSON
 * Schema's maxLength counts), no control character, no lone surrogate, not blank; used trimmed.
 * FILTER_TEXT_PATTERN says the same to the OpenAPI document (all but the surrogates, which a
 * JSON Schema pattern cannot name portably).
 */
export const FILTER_TEXT_MAX = 200;
export const FILTER_TEXT_PATTERN = '^[^\\u0000-\\u001f\\u007f]*[^\\s\\u0000-\\u001f\\u007f][^\\u0000-\\u001f\\u007f]*$';

/** What is wrong with a filter text as sent (in words), or null when it is one. */
export function filterTextProblem(raw: string): string | null {
  if (codePointsExceed(raw, FILTER_TEXT_MAX)) return `longer than ${FILTER_TEXT_MAX} characters`;
  if (/[\u0000-\u001f\u007f]/.test(raw)) return 'holds a control character';
  // Half of a surrogate pair (JSON's "\ud800" alone) is no Unicode text: PostgreSQL's JSONB
  // refuses it (the store failed with a 500 after the webhook's ping went out), SQLite kept it,
  // and UTF-8 cannot carry it (a reader would get U+FFFD, not what was typed). `\p{Cs}` with
  // the u flag matches only unpaired halves: a pair is one code point (an emoji) and passes.
  if (/\p{Cs}/u.test(raw)) return 'holds a lone surrogate (half of a UTF-16 pair), which is not text';
  if (raw.trim() === '') return 'empty';
  return null;
}

/**
 * The search member: a filter text (above) holding at least one letter or digit. One with none
 * (`***`, `!!!`) looks for nothing: searchWords finds no word in it, and it matched every change
 * (a subscription "alerting on everything"); /api/v1/public/cves refuses it in the same words
 * (api/routes/cves-params.ts). SEARCH_TEXT_PATTERN says it to the OpenAPI document (a JSON
 * Schema pattern is read with the u flag, so `\p{L}` is a letter).
 */
export const SEARCH_TEXT_PATTERN = '^[^\\u0000-\\u001f\\u007f]*[\\p{L}\\p{N}][^\\u0000-\\u001f\\u007f]*$';

/** What is wrong with a search filter as sent (in words), or null when it is one. */
export function searchTextProblem(raw: string): string | null {
  return filterTextProblem(raw) ?? (/[\p{L}\p{N}]/u.test(raw) ? null : 'holds no letter or digit to look for');
}

/**
 * A product is matched within its vendor (PULSE §4 lists vendor + product; product keys repeat
 * across vendors): a product without a vendor is refused, naming product, by every reader, in
 * the words /pulse/cves uses.
 */
export const PRODUCT_NEEDS_VENDOR = 'name a vendor too (a product is matched within its vendor)';

/**
 * Whether a change's `why` already quotes its subject's `title` (a new advisory's does): the
 * readers that show both (the Atom feed, the alert e-mails) then say the title once.
 */
export function whyQuotesTitle(why: string, title: string | null): boolean {
  return title !== null && title !== '' && why.includes(title);
}

/** A CWE id as a filter takes it: any case, white space around it (JSON Schema pattern and RegExp). */
export const FILTER_CWE_PATTERN = '^\\s*[Cc][Ww][Ee]-\\d{1,6}\\s*$';

/**
 * A CWE filter as stored and compared: upper case, no white space, the number without leading
 * zeros (`cwe-0917` is CWE-917, the id MITRE and every feed write: a filter of `CWE-0917`
 * matched nothing). Takes a value FILTER_CWE_PATTERN accepts.
 */
export function canonicalCwe(raw: string): string {
  return `CWE-${Number.parseInt(raw.trim().slice(4), 10)}`;
}

/** The key form products.parquet uses: lower case, spaces as '_'. */
export function vendorKey(text: string): string {
  return text.trim().toLowerCase().replace(/\s+/g, '_');
}

function severityRank(value: string | null | undefined): number {
  return value ? SEVERITY_ORDER.indexOf(value.toUpperCase() as ServiceSeverity) : -1;
}

/** The words of a search filter, as changeMatches looks for them (exported for SQL mirrors). */
export function searchWords(search: string): string[] {
  // Lower-cased as the SQL mirror's lower() does (lib/sql-lower.ts): both must keep the same changes.
  return sqlLowerCase(search)
    .split(/[^\p{L}\p{N}_.-]+/u)
    .filter((w) => w.length > 0);
}

/**
 * A `packages` entry (`<ecosystem>:<name>`) as entries are compared: lower case, and a PyPI
 * name normalised as PEP 503 says (runs of `-`, `_`, `.` are one `-`), the rule every reader of
 * package names follows (lib/packages/names.ts): `PyPI:Zope.Interface` is `pypi:zope-interface`.
 * PyPI's ecosystem holds no release, so its entries are the ones starting `pypi:`.
 */
export function packageEntryKey(entry: string): string {
  const lower = entry.toLowerCase();
  return lower.startsWith('pypi:') ? `pypi:${pep503Name(lower.slice(5))}` : lower;
}

/**
 * The names of a change's `packages` as the candidate index keys them (see packageIndexKey). An
 * entry is `<ecosystem>:<name>` with the ecosystem as its `ecosystems` list spells it, and
 * either part may hold colons (OSV's releases: `Ubuntu:22.04:LTS`; Maven's `group:artifact`):
 * the name is what follows one of the change's own ecosystems, not what follows the first colon
 * (a package filter alone missed every `Ubuntu:22.04:LTS:openssl`). Every prefix that fits is
 * cut, so a name is never missed.
 */
export function packageNames(change: Pick<ChangeRow, 'ecosystems' | 'packages'>): string[] {
  const names: string[] = [];
  for (const entry of change.packages) {
    const lower = entry.toLowerCase();
    for (const ecosystem of change.ecosystems) {
      const prefix = `${ecosystem.toLowerCase()}:`;
      if (lower.startsWith(prefix)) names.push(packageIndexKey(lower.slice(prefix.length)));
    }
  }
  return names;
}

/**
 * A package name as the candidate index keys it: lower case, runs of `-`, `_`, `.` as one `-`
 * in every ecosystem (PyPI's rule, applied to all: names that differ only there share a list,
 * a superset changeMatches then decides).
 */
export function packageIndexKey(name: string): string {
  return pep503Name(name);
}

/** Whether a change lists the package `name` in any of its ecosystems (packageEntryKey's rules). */
function listsPackageAnywhere(change: ChangeRow, name: string): boolean {
  const entries = change.packages.map(packageEntryKey);
  return change.ecosystems.some((ecosystem) => entries.includes(packageEntryKey(`${ecosystem}:${name}`)));
}

/**
 * Whether one change matches a filter (PULSE §3): filters match the subject's brief as
 * recorded with the change. An advisory change is kept by min_severity when its vendor
 * severity meets it, and left out by min_risk and kev_only.
 */
export function changeMatches(filter: ChangeFilter, change: ChangeRow): boolean {
  if (filter.kinds && filter.kinds.length > 0 && !filter.kinds.includes(change.kind)) return false;
  const isAdvisory = change.subject_type === 'advisory';
  if (filter.vendor !== undefined) {
    const vendor = vendorKey(filter.vendor);
    const vendors = isAdvisory && change.vendor ? [vendorKey(change.vendor), ...change.vendors] : change.vendors;
    if (!vendors.includes(vendor)) return false;
    if (filter.product !== undefined && !change.products.includes(`${vendor}:${vendorKey(filter.product)}`)) return false;
  } else if (filter.product !== undefined) {
    const product = vendorKey(filter.product);
    if (!change.products.some((p) => p.slice(p.indexOf(':') + 1) === product)) return false;
  }
  if (filter.ecosystem !== undefined) {
    const ecosystem = filter.ecosystem.toLowerCase();
    if (!change.ecosystems.some((e) => e.toLowerCase() === ecosystem)) return false;
    if (filter.package !== undefined) {
      const wanted = packageEntryKey(`${ecosystem}:${filter.package}`);
      if (!change.packages.some((p) => packageEntryKey(p) === wanted)) return false;
    }
  } else if (filter.package !== undefined) {
    if (!listsPackageAnywhere(change, filter.package)) return false;
  }
  if (filter.cwe !== undefined) {
    const cwe = filter.cwe.toUpperCase();
    if (!change.cwe_ids.some((c) => c.toUpperCase() === cwe)) return false;
  }
  if (filter.min_severity !== undefined) {
    const basis = isAdvisory ? change.vendor_severity : change.service_severity;
    if (severityRank(basis) < severityRank(filter.min_severity)) return false;
  }
  if (filter.min_risk !== undefined) {
    if (isAdvisory || change.service_risk === null || change.service_risk < filter.min_risk) return false;
  }
  if (filter.kev_only === true && (isAdvisory || change.in_kev !== true)) return false;
  if (filter.search !== undefined) {
    const words = searchWords(filter.search);
    // A search with no word looks for nothing, so it finds nothing. Every reader refuses one now
    // (searchTextProblem); a subscription stored before that must not alert on every change.
    if (words.length === 0) return false;
    const haystack = sqlLowerCase(
      [change.cve_id, change.advisory_id, change.vendor, change.title, change.why, ...change.vendors, ...change.products]
        .filter((s): s is string => typeof s === 'string')
        .join(' '),
    );
    for (const word of words) if (!haystack.includes(word)) return false;
  }
  return true;
}
