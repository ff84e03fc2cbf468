/**
 * Related CVEs (contract 2.5): three lists of at most 10 siblings read through the snapshot's
 * `related_keys` (sql/06_related_keys.sql), and a `basis` per list saying why it holds what it
 * holds.
 *
 *   same_product  siblings sharing a product key (affected package or CPE vendor:product) that
 *                 is evidence (not `too_common`); most specific shared key first, i.e. the
 *                 shared key carried by the fewest CVEs.
 *   same_vendor   siblings sharing a vendor advisory among this CVE's first 50 advisory keys;
 *                 most shared advisories first.
 *   same_cwe      siblings sharing a CWE among this CVE's first 50 CWE keys; nearest
 *                 publication day first.
 * Ties: higher service_score first, then cve_id descending. Siblings are active CVEs only
 * (`related_keys` holds active CVEs only; the join re-checks). For a CWE with many CVEs,
 * same_cwe reads `cves` around the publication date instead (see CWE_WINDOWS_DAYS).
 *
 * The lists are always computed in full. Why a list is empty is a second, best-effort query run
 * under an execution budget; past it the basis is `unknown` and the lists are unchanged.
 */
import { readBriefs, type CveBrief } from './cve-summary.ts';
import { OUT_OF_BUDGET, placeholders, selectRows, selectRowsWithin, shiftDay, type SnapshotReader } from './support.ts';

export const RELATED_LIST_MAX = 10;
/** Keys read per lookup for same_vendor / same_cwe (contract 8.5). */
export const RELATED_KEY_CAP = 50;
/** Shared keys listed per entry; `shared_count` always gives the full number. */
export const SHARED_KEYS_SHOWN = 10;
/** Same default as the API core's per-query execution budget (DESIGN §6). */
export const DEFAULT_REASON_BUDGET_MS = 250;

export type RelatedListName = 'same_product' | 'same_vendor' | 'same_cwe';
export type RelatedBasis = 'ok' | 'no_data' | 'no_siblings' | 'no_specific_key' | 'capped' | 'unknown';
type KeyKind = 'product' | 'advisory' | 'cwe';

const KIND_OF_LIST: Record<RelatedListName, KeyKind> = {
  same_product: 'product',
  same_vendor: 'advisory',
  same_cwe: 'cwe',
};

export interface RelatedEntry extends CveBrief {
  /** The keys this sibling shares with the CVE, most telling first (at most SHARED_KEYS_SHOWN). */
  shared_keys: string[];
  shared_count: number;
}

export interface SameProductEntry extends RelatedEntry {
  /** CVEs carrying the most specific shared key: the list's order. */
  key_cve_count: number;
}

export interface SameCweEntry extends RelatedEntry {
  /** Whole UTC calendar days between the two publication dates; null when either is unknown. */
  days_apart: number | null;
}

export interface RelatedCves {
  cve_id: string;
  same_product: SameProductEntry[];
  same_vendor: RelatedEntry[];
  same_cwe: SameCweEntry[];
  basis: Record<RelatedListName, RelatedBasis>;
}

export interface RelatedOptions {
  /**
   * Budget for establishing why a list is empty (default: the API core's query budget); 0 or
   * less skips it, so every empty list says `unknown`.
   */
  reasonBudgetMs?: number;
}

interface EvidenceKey {
  kind: KeyKind;
  key: string;
  key_cve_count: number;
}

/** What the CVE's own keys of one kind say about an empty list. */
export interface KindFacts {
  keys: number;
  too_common_keys: number;
  /** Keys ranked past RELATED_KEY_CAP that another CVE carries. */
  shared_beyond_cap: number;
}

/** Null when the CVE is not in the snapshot. */
export async function findRelatedCves(reader: SnapshotReader, cveId: string, options: RelatedOptions = {}): Promise<RelatedCves | null> {
  const target = await selectRows<{ cve_id: string; published_day: string | null }>(
    reader,
    `SELECT cve_id, strftime(published, '%Y-%m-%d') AS published_day FROM cves WHERE cve_id = $1`,
    [cveId],
  );
  const cve = target[0];
  if (!cve) return null;
  // Without the key table no list can be built and no reason established: say so, do not fail.
  if (reader.unreadableTables.has('related_keys')) {
    return { cve_id: cve.cve_id, same_product: [], same_vendor: [], same_cwe: [], basis: allBasis('unknown') };
  }

  const evidence = await readEvidenceKeys(reader, cveId);
  const keysOf = (kind: KeyKind) => evidence.filter((k) => k.kind === kind);
  // Rank with light columns, then fetch the brief of the (at most 30) winners at once.
  const keyed = await rankKeyedSiblings(reader, cveId, keysOf('product'), keysOf('advisory'));
  const cwe = await rankCweSiblings(reader, cveId, cve.published_day, keysOf('cwe'));
  const briefs = await readBriefs(reader, [...keyed.same_product, ...keyed.same_vendor, ...cwe].map((r) => r.doc));
  const withBrief = <T extends RankedSibling>({ doc, service_score: _score, ...evidenceOf }: T) => ({ ...briefs.get(doc)!, ...evidenceOf });
  const same_product = keyed.same_product.map(withBrief) as SameProductEntry[];
  const same_vendor = keyed.same_vendor.map(withBrief) as RelatedEntry[];
  const same_cwe = cwe.map(withBrief) as SameCweEntry[];

  const lists = { same_product, same_vendor, same_cwe };
  const needReason = Object.values(lists).some((l) => l.length === 0);
  const facts = needReason ? await readKindFacts(reader, cveId, options.reasonBudgetMs ?? DEFAULT_REASON_BUDGET_MS) : undefined;
  const basis = {} as Record<RelatedListName, RelatedBasis>;
  for (const name of Object.keys(lists) as RelatedListName[]) {
    const kindFacts = facts === OUT_OF_BUDGET ? OUT_OF_BUDGET : facts?.get(KIND_OF_LIST[name]);
    basis[name] = basisOf(name, lists[name].length, kindFacts);
  }
  return { cve_id: cve.cve_id, same_product, same_vendor, same_cwe, basis };
}

function allBasis(basis: RelatedBasis): Record<RelatedListName, RelatedBasis> {
  return { same_product: basis, same_vendor: basis, same_cwe: basis };
}

/**
 * The basis of one list. `facts` is what the CVE's keys of the list's kind say (undefined: no key
 * of that kind), or OUT_OF_BUDGET when that could not be read in time.
 */
export function basisOf(list: RelatedListName, entries: number, facts: KindFacts | undefined | typeof OUT_OF_BUDGET): RelatedBasis {
  if (entries > 0) return 'ok';
  if (facts === OUT_OF_BUDGET) return 'unknown';
  if (!facts || facts.keys === 0) return 'no_data';
  if (list === 'same_product') {
    // A too-common key is always shared (more CVEs carry it than the threshold), so with no
    // usable sibling it means: shared, but only through packages that are no evidence.
    return facts.too_common_keys > 0 ? 'no_specific_key' : 'no_siblings';
  }
  return facts.shared_beyond_cap > 0 ? 'capped' : 'no_siblings';
}

/**
 * The CVE's keys that can lead to a sibling: shared with another CVE (key_cve_count counts the
 * CVE itself), product keys that are evidence, advisory and CWE keys within the first 50.
 */
async function readEvidenceKeys(reader: SnapshotReader, cveId: string): Promise<EvidenceKey[]> {
  return selectRows<EvidenceKey>(
    reader,
    `SELECT kind, key, key_cve_count FROM related_keys
     WHERE cve_id = $1 AND key_cve_count > 1
       AND ((kind = 'product' AND NOT too_common) OR (kind IN ('advisory', 'cwe') AND key_rank <= ${RELATED_KEY_CAP}))`,
    [cveId],
  );
}

async function readKindFacts(reader: SnapshotReader, cveId: string, budgetMs: number): Promise<Map<KeyKind, KindFacts> | typeof OUT_OF_BUDGET> {
  const rows = await selectRowsWithin<KindFacts & { kind: KeyKind }>(
    reader,
    budgetMs,
    `SELECT kind,
            count(*)::INTEGER AS keys,
            count(*) FILTER (WHERE too_common)::INTEGER AS too_common_keys,
            count(*) FILTER (WHERE key_rank > ${RELATED_KEY_CAP} AND key_cve_count > 1)::INTEGER AS shared_beyond_cap
     FROM related_keys WHERE cve_id = $1 GROUP BY kind`,
    [cveId],
  );
  if (rows === OUT_OF_BUDGET) return OUT_OF_BUDGET;
  return new Map(rows.map((r) => [r.kind, { keys: r.keys, too_common_keys: r.too_common_keys, shared_beyond_cap: r.shared_beyond_cap }]));
}

/** A sibling as ranked, before its brief is fetched. */
interface RankedSibling {
  doc: number;
  cve_id: string;
  service_score: number;
  shared_keys: string[];
  shared_count: number;
  key_cve_count?: number;
  days_apart?: number | null;
}

/** Higher service score first, then cve_id descending: the tie-break of every list. */
function byScoreThenId(a: RankedSibling, b: RankedSibling): number {
  return b.service_score - a.service_score || (a.cve_id < b.cve_id ? 1 : a.cve_id > b.cve_id ? -1 : 0);
}

/**
 * same_product and same_vendor in one read: each kind's siblings come from its own key range of
 * related_keys (an IN list on the sorted `key` column skips the rest of the table), and both
 * are joined to `cves` once for status and score.
 */
async function rankKeyedSiblings(
  reader: SnapshotReader,
  cveId: string,
  productKeys: EvidenceKey[],
  advisoryKeys: EvidenceKey[],
): Promise<{ same_product: RankedSibling[]; same_vendor: RankedSibling[] }> {
  const params: string[] = [cveId];
  const branches: string[] = [];
  for (const [list, kind, keys] of [
    ['same_product', 'product', productKeys],
    ['same_vendor', 'advisory', advisoryKeys],
  ] as const) {
    if (keys.length === 0) continue;
    const first = params.length + 1;
    params.push(...keys.map((k) => k.key));
    branches.push(
      `SELECT '${list}' AS list, cve_id, key, key_cve_count FROM related_keys
       WHERE kind = '${kind}' AND key IN (${placeholders(first, keys.length)}) AND cve_id <> $1`,
    );
  }
  if (branches.length === 0) return { same_product: [], same_vendor: [] };
  const rows = await selectRows<RankedSibling & { list: 'same_product' | 'same_vendor' }>(
    reader,
    `WITH shared AS (${branches.join(' UNION ALL ')}),
     per_sibling AS (
       SELECT list, cve_id, min(key_cve_count)::INTEGER AS key_cve_count, count(*)::INTEGER AS shared_count,
              -- product keys most specific first; advisory keys by name (list is constant per group)
              list(key ORDER BY CASE WHEN list = 'same_product' THEN key_cve_count END, key) AS shared_keys
       FROM shared GROUP BY list, cve_id
     ),
     ranked AS MATERIALIZED (
       SELECT p.*, c.doc, c.service_score FROM per_sibling p JOIN cves c USING (cve_id) WHERE c.status = 'active'
     )
     (SELECT * FROM ranked WHERE list = 'same_product' ORDER BY key_cve_count, service_score DESC, cve_id DESC LIMIT ${RELATED_LIST_MAX})
     UNION ALL
     (SELECT * FROM ranked WHERE list = 'same_vendor' ORDER BY shared_count DESC, service_score DESC, cve_id DESC LIMIT ${RELATED_LIST_MAX})`,
    params,
  );
  const pick = (list: string) => rows.filter((r) => r.list === list).map(({ list: _list, ...r }) => ({ ...r, shared_keys: r.shared_keys.slice(0, SHARED_KEYS_SHOWN) }));
  const same_product = pick('same_product').sort((a, b) => a.key_cve_count! - b.key_cve_count! || byScoreThenId(a, b));
  const same_vendor = pick('same_vendor')
    .map(({ key_cve_count: _k, ...r }) => r)
    .sort((a, b) => b.shared_count - a.shared_count || byScoreThenId(a, b));
  return { same_product, same_vendor };
}

/**
 * Publication windows (± days) tried in turn for same_cwe before reading every sibling. A CWE
 * like CWE-79 has tens of thousands of CVEs: rather than rank them all, read the CVEs published
 * near this one (`cves` is kept in publication order, so a date range skips most of it), keep
 * those carrying one of the CWEs (`cwe_ids`, the same CWE rows related_keys is built from), and
 * widen only while fewer than 10 fall inside.
 */
export const CWE_WINDOWS_DAYS = [30, 365, 3650];
/** Below this many possible siblings, reading them through related_keys is cheaper than windows. */
export const CWE_WINDOWING_FROM = 500;

async function rankCweSiblings(reader: SnapshotReader, cveId: string, publishedDay: string | null, keys: EvidenceKey[]): Promise<RankedSibling[]> {
  if (keys.length === 0) return [];
  const possibleSiblings = keys.reduce((sum, k) => sum + k.key_cve_count - 1, 0);
  if (publishedDay !== null && possibleSiblings >= CWE_WINDOWING_FROM) {
    for (const days of CWE_WINDOWS_DAYS) {
      const rows = await cweSiblingsWithin(reader, cveId, publishedDay, keys, days);
      // Every sibling outside ±days is farther than every one inside, so a full list is exact.
      if (rows.length >= RELATED_LIST_MAX) return rows;
    }
  }
  return cweSiblingsByKey(reader, cveId, publishedDay, keys);
}

const cweNumber = (key: string) => Number(/(\d+)$/.exec(key)?.[1] ?? Number.MAX_SAFE_INTEGER);
const byCweNumber = (a: string, b: string) => cweNumber(a) - cweNumber(b) || (a < b ? -1 : a > b ? 1 : 0);

function sortCweRows(rows: RankedSibling[]): RankedSibling[] {
  for (const r of rows) r.shared_keys = r.shared_keys.sort(byCweNumber).slice(0, SHARED_KEYS_SHOWN);
  return rows.sort((a, b) => (a.days_apart ?? Infinity) - (b.days_apart ?? Infinity) || byScoreThenId(a, b));
}

function daysApartSql(dayParam: string): string {
  return `abs(date_diff('day', CAST(c.published AS DATE), CAST(${dayParam} AS DATE)))::INTEGER`;
}

async function cweSiblingsWithin(reader: SnapshotReader, cveId: string, publishedDay: string, keys: EvidenceKey[], windowDays: number): Promise<RankedSibling[]> {
  const n = keys.length;
  const cwes = `[${placeholders(5, n)}]`;
  const rows = await selectRows<RankedSibling>(
    reader,
    `SELECT c.doc, c.cve_id, c.service_score, ${daysApartSql('$2')} AS days_apart,
            list_intersect(c.cwe_ids, ${cwes}) AS shared_keys, len(list_intersect(c.cwe_ids, ${cwes}))::INTEGER AS shared_count
     FROM cves c
     WHERE c.published >= CAST($3 AS TIMESTAMP) AND c.published < CAST($4 AS TIMESTAMP)
       AND c.status = 'active' AND c.cve_id <> $1 AND list_has_any(c.cwe_ids, ${cwes})
     ORDER BY days_apart, c.service_score DESC, c.cve_id DESC
     LIMIT ${RELATED_LIST_MAX}`,
    [cveId, publishedDay, shiftDay(publishedDay, -windowDays), shiftDay(publishedDay, windowDays + 1), ...keys.map((k) => k.key)],
  );
  return sortCweRows(rows);
}

async function cweSiblingsByKey(reader: SnapshotReader, cveId: string, publishedDay: string | null, keys: EvidenceKey[]): Promise<RankedSibling[]> {
  const rows = await selectRows<RankedSibling>(
    reader,
    `WITH shared AS (
       SELECT cve_id, key FROM related_keys WHERE kind = 'cwe' AND key IN (${placeholders(3, keys.length)}) AND cve_id <> $1
     ),
     per_sibling AS (SELECT cve_id, count(*)::INTEGER AS shared_count, list(key) AS shared_keys FROM shared GROUP BY cve_id)
     SELECT c.doc, c.cve_id, c.service_score, ${daysApartSql('$2')} AS days_apart, p.shared_count, p.shared_keys
     FROM per_sibling p JOIN cves c USING (cve_id)
     WHERE c.status = 'active'
     ORDER BY days_apart NULLS LAST, c.service_score DESC, c.cve_id DESC
     LIMIT ${RELATED_LIST_MAX}`,
    [cveId, publishedDay, ...keys.map((k) => k.key)],
  );
  return sortCweRows(rows);
}
