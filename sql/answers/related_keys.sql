-- Answers — related (GET /cves/{id}/related, api/queries/related.ts), step 1: the snapshot's
-- related_keys with each CVE's doc and what the lists rank by (score, id rank, publication
-- day), keys numbered for cheap joins; the evidence keys of each CVE: keys another CVE shares
-- (key_cve_count counts the CVE itself), product keys that are evidence (not too common),
-- advisory and CWE keys among the CVE's first {{key_cap}}; and why a list may be empty.
-- related_keys holds active CVEs only (sql/06_related_keys.sql); `active` re-checks siblings,
-- as related.ts does.
CREATE TEMP TABLE answer_related_key_ids AS
SELECT kind, key, CAST(row_number() OVER () AS INTEGER) AS key_id
FROM (SELECT DISTINCT kind, key FROM related_keys);

CREATE TEMP TABLE answer_related_keys AS
SELECT
  c.doc, k.kind, i.key_id, k.key, k.key_cve_count, k.too_common, k.key_rank,
  c.status = 'active' AS active, c.service_score, c.id_rank, CAST(c.published AS DATE) AS day
FROM related_keys k
JOIN cves c USING (cve_id)
JOIN answer_related_key_ids i USING (kind, key);

CREATE TEMP TABLE answer_related_evidence AS
SELECT doc, kind, key_id, key, key_cve_count, day
FROM answer_related_keys
WHERE key_cve_count > 1
  AND ((kind = 'product' AND NOT too_common) OR (kind IN ('advisory', 'cwe') AND key_rank <= {{key_cap}}));

-- Per CVE, what a sibling's shared keys are read from, each list in the order related.ts
-- shows shared keys: its product evidence keys (a key's evidence does not depend on the CVE,
-- so these are also what a sibling carries of them), most specific first; its CWE evidence
-- keys by CWE number (a key without one last, as cweNumber has it), then name; and the ids of
-- its keys of each kind, to test membership.
CREATE TEMP TABLE answer_related_key_lists AS
SELECT
  doc,
  list_sort(list({'key_cve_count': key_cve_count, 'key': key, 'key_id': key_id})
    FILTER (WHERE kind = 'product' AND key_cve_count > 1 AND NOT too_common)) AS product_keys,
  list(key_id) FILTER (WHERE kind = 'product') AS product_ids,
  list_sort(list({'number': coalesce(TRY_CAST(regexp_extract(key, '(\d+)$', 1) AS DOUBLE), 9007199254740991), 'key': key, 'key_id': key_id})
    FILTER (WHERE kind = 'cwe' AND key_cve_count > 1 AND key_rank <= {{key_cap}})) AS cwe_evidence,
  list(key_id) FILTER (WHERE kind = 'cwe') AS cwe_ids
FROM answer_related_keys
GROUP BY doc;

-- Why a list may be empty (basisOf of related.ts), per CVE and list, for when it is: no key of
-- the kind (no_data); for same_product, keys too common to be evidence (no_specific_key); for
-- the others, shared keys ranked past the cap (capped); else no_siblings. A CVE without keys
-- has no row here: no_data for all three.
CREATE TEMP TABLE answer_related_basis AS
SELECT
  doc,
  CASE WHEN count(*) FILTER (WHERE kind = 'product') = 0 THEN 'no_data'
       WHEN count(*) FILTER (WHERE kind = 'product' AND too_common) > 0 THEN 'no_specific_key'
       ELSE 'no_siblings' END AS same_product,
  CASE WHEN count(*) FILTER (WHERE kind = 'advisory') = 0 THEN 'no_data'
       WHEN count(*) FILTER (WHERE kind = 'advisory' AND key_rank > {{key_cap}} AND key_cve_count > 1) > 0 THEN 'capped'
       ELSE 'no_siblings' END AS same_vendor,
  CASE WHEN count(*) FILTER (WHERE kind = 'cwe') = 0 THEN 'no_data'
       WHEN count(*) FILTER (WHERE kind = 'cwe' AND key_rank > {{key_cap}} AND key_cve_count > 1) > 0 THEN 'capped'
       ELSE 'no_siblings' END AS same_cwe
FROM answer_related_keys
GROUP BY doc;

-- same_product reads, per product key, its first {{list_max}} + 1 members by score and id
-- (see related_batch.sql).
CREATE TEMP TABLE answer_related_product_heads AS
SELECT key_id, min_by(doc, {'unscored': service_score IS NULL, 'score': -service_score, 'id_rank': id_rank}, {{list_max}} + 1) AS docs
FROM answer_related_keys
WHERE kind = 'product' AND active AND key_cve_count > 1 AND NOT too_common
GROUP BY key_id;

-- same_cwe reads, per CWE key, its members in two orders: (day, score desc, id) and (day desc,
-- score desc, id), with where each member's day begins in them; and its members best by score
-- and id, all of them and the undated ones (see related_batch.sql).
CREATE TEMP TABLE answer_related_cwe_members AS
SELECT
  doc, key_id, day, service_score, id_rank,
  row_number() OVER (PARTITION BY key_id ORDER BY day ASC NULLS LAST, service_score DESC, id_rank) AS pos_up,
  row_number() OVER (PARTITION BY key_id ORDER BY day DESC NULLS LAST, service_score DESC, id_rank) AS pos_down,
  -- Members dated before this one's day, and dated at all.
  rank() OVER (PARTITION BY key_id ORDER BY day ASC NULLS LAST) - 1 AS dated_before,
  count(day) OVER (PARTITION BY key_id) AS dated
FROM answer_related_keys
WHERE kind = 'cwe' AND active AND key_cve_count > 1;

CREATE TEMP TABLE answer_related_cwe_heads AS
SELECT
  key_id,
  min_by(doc, {'unscored': service_score IS NULL, 'score': -service_score, 'id_rank': id_rank}, {{list_max}} + 1) AS best,
  min_by(doc, {'unscored': service_score IS NULL, 'score': -service_score, 'id_rank': id_rank}, {{list_max}}) FILTER (WHERE day IS NULL) AS best_undated
FROM answer_related_cwe_members
GROUP BY key_id;

-- How many siblings a CVE's CWE evidence keys could give (related.ts reads the CVEs with
-- {{cwe_windowing_from}} or more by publication windows).
CREATE TEMP TABLE answer_related_cwe_possible AS
SELECT doc, sum(key_cve_count - 1) AS possible
FROM answer_related_evidence
WHERE kind = 'cwe'
GROUP BY doc;

-- The brief of every CVE (by doc) a list can name (CveBrief of api/queries/cve-summary.ts),
-- as a JSON object left open, its closing brace cut (the last field, a string or null, ends
-- in `"` or `l`), so an entry's evidence follows in the same object; '' for a CVE no list can
-- name (not active, or without keys). A CVE is the sibling of many: this one copy is stored
-- (related-briefs.ndjson) and the replica splices it into each of its entries
-- (api/snapshot/related-splice.ts).
CREATE TABLE answer_related_briefs AS
SELECT
  c.doc,
  CASE WHEN k.doc IS NULL THEN '' ELSE rtrim(to_json({
    'cve_id': c.cve_id,
    'published': answer_time(c.published),
    'service_score': answer_number(c.service_score),
    'service_severity': c.service_severity,
    'score_assessed': c.score_assessed,
    'severity': c.severity,
    'description': CASE WHEN length(c.description) > {{short_text_max}}
                        THEN rtrim(left(c.description, {{short_text_max}} - 1)) || '…'
                        ELSE c.description END
  })::VARCHAR, '}') END AS brief
FROM cves c
-- (answer_related_keys.active is the CVE's status: only an equality in the join condition, which
-- DuckDB hashes; a condition on `c` alone there makes it a nested loop, minutes at full scale.)
LEFT JOIN (SELECT DISTINCT doc FROM answer_related_keys WHERE active) k ON k.doc = c.doc;

-- The related template of every CVE, filled batch by batch (related_batch.sql).
CREATE TABLE answer_related_templates (doc INTEGER, template VARCHAR);
