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
 * (`related_keys` holds active CVEs only; the join re-checks).
 *
 * The lists are always computed in full. Why a list is empty is a second, best-effort query run
 * under an execution budget; past it the basis is `unknown` and the lists are unchanged.
 */
import { cveBriefColumns, type CveBrief } from './cve-summary.ts';
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
  const { connection } = reader;
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
  const same_product = await sameProduct(reader, cveId, keysOf('product'));
  const same_vendor = await sameVendor(reader, cveId, keysOf('advisory'));
  const same_cwe = await sameCwe(reader, cveId, cve.published_day, keysOf('cwe'));

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
    // Every key a too-common package is shared (it has thousands of CVEs), so with no usable
    // sibling, a too-common key means: shared, but only through packages that are no evidence.
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

/** SQL of the sibling rows sharing one of `count` keys of `kind`, keys bound from $2 on. */
function sharedKeysSql(kind: KeyKind, count: number): string {
  return `SELECT cve_id, key, key_cve_count FROM related_keys
          WHERE kind = '${kind}' AND key IN (${placeholders(2, count)}) AND cve_id <> $1`;
}

async function sameProduct(reader: SnapshotReader, cveId: string, keys: EvidenceKey[]): Promise<SameProductEntry[]> {
  if (keys.length === 0) return [];
  return selectRows<SameProductEntry>(
    reader,
    `WITH shared AS (${sharedKeysSql('product', keys.length)}),
     per_sibling AS (
       SELECT cve_id, min(key_cve_count)::INTEGER AS key_cve_count, count(*)::INTEGER AS shared_count,
              list(key ORDER BY key_cve_count, key) AS shared_keys
       FROM shared GROUP BY cve_id
     )
     SELECT ${cveBriefColumns('c')}, p.key_cve_count, p.shared_count, p.shared_keys[1:${SHARED_KEYS_SHOWN}] AS shared_keys
     FROM per_sibling p JOIN cves c USING (cve_id)
     WHERE c.status = 'active'
     ORDER BY p.key_cve_count, c.service_score DESC, c.cve_id DESC
     LIMIT ${RELATED_LIST_MAX}`,
    [cveId, ...keys.map((k) => k.key)],
  );
}

async function sameVendor(reader: SnapshotReader, cveId: string, keys: EvidenceKey[]): Promise<RelatedEntry[]> {
  if (keys.length === 0) return [];
  return selectRows<RelatedEntry>(
    reader,
    `WITH shared AS (${sharedKeysSql('advisory', keys.length)}),
     per_sibling AS (
       SELECT cve_id, count(*)::INTEGER AS shared_count, list(key ORDER BY key) AS shared_keys
       FROM shared GROUP BY cve_id
     )
     SELECT ${cveBriefColumns('c')}, p.shared_count, p.shared_keys[1:${SHARED_KEYS_SHOWN}] AS shared_keys
     FROM per_sibling p JOIN cves c USING (cve_id)
     WHERE c.status = 'active'
     ORDER BY p.shared_count DESC, c.service_score DESC, c.cve_id DESC
     LIMIT ${RELATED_LIST_MAX}`,
    [cveId, ...keys.map((k) => k.key)],
  );
}

/**
 * Publication windows (± days) tried in turn for same_cwe before reading every sibling. A CWE
 * like CWE-79 has tens of thousands of CVEs: rather than rank them all, read the CVEs published
 * near this one (the table is stored in publication order, so a date range skips most of it)
 * and widen only while fewer than 10 siblings fall inside.
 */
const CWE_WINDOWS_DAYS = [30, 365, 3650];
/** Below this many possible siblings, reading them all is cheaper than trying windows. */
const CWE_WINDOWING_FROM = 500;

async function sameCwe(reader: SnapshotReader, cveId: string, publishedDay: string | null, keys: EvidenceKey[]): Promise<SameCweEntry[]> {
  if (keys.length === 0) return [];
  const possibleSiblings = keys.reduce((sum, k) => sum + k.key_cve_count - 1, 0);
  const windows = publishedDay !== null && possibleSiblings >= CWE_WINDOWING_FROM ? CWE_WINDOWS_DAYS : [];
  for (const days of windows) {
    const rows = await sameCweWithin(reader, cveId, publishedDay, keys, days);
    // Every sibling outside ±days is farther than every one inside, so a full page is exact.
    if (rows.length >= RELATED_LIST_MAX) return rows;
  }
  return sameCweWithin(reader, cveId, publishedDay, keys, null);
}

async function sameCweWithin(
  reader: SnapshotReader,
  cveId: string,
  publishedDay: string | null,
  keys: EvidenceKey[],
  windowDays: number | null,
): Promise<SameCweEntry[]> {
  const n = keys.length;
  const dayParam = `$${n + 2}`;
  const params: (string | null)[] = [cveId, ...keys.map((k) => k.key), publishedDay];
  let window = '';
  if (windowDays !== null && publishedDay !== null) {
    params.push(shiftDay(publishedDay, -windowDays), shiftDay(publishedDay, windowDays + 1));
    window = `AND c.published >= CAST($${n + 3} AS TIMESTAMP) AND c.published < CAST($${n + 4} AS TIMESTAMP)`;
  }
  return selectRows<SameCweEntry>(
    reader,
    `WITH shared AS (${sharedKeysSql('cwe', n)}),
     per_sibling AS (
       SELECT cve_id, count(*)::INTEGER AS shared_count,
              list(key ORDER BY TRY_CAST(regexp_extract(key, '(\\d+)$', 1) AS INTEGER), key) AS shared_keys
       FROM shared GROUP BY cve_id
     )
     SELECT ${cveBriefColumns('c')},
            abs(date_diff('day', CAST(c.published AS DATE), CAST(${dayParam} AS DATE)))::INTEGER AS days_apart,
            p.shared_count, p.shared_keys[1:${SHARED_KEYS_SHOWN}] AS shared_keys
     FROM per_sibling p JOIN cves c USING (cve_id)
     WHERE c.status = 'active' ${window}
     ORDER BY days_apart NULLS LAST, c.service_score DESC, c.cve_id DESC
     LIMIT ${RELATED_LIST_MAX}`,
    params,
  );
}
