-- Answers — related (GET /cves/{id}/related, api/queries/related.ts), step 1: the snapshot's
-- related_keys with each CVE's doc and what the lists rank by (score, id rank, publication
-- day); the evidence keys of each CVE: keys another CVE shares (key_cve_count counts the CVE
-- itself), product keys that are evidence (not too common), advisory and CWE keys among the
-- CVE's first {{key_cap}}; and why a list may be empty. related_keys holds active CVEs only
-- (sql/06_related_keys.sql); `active` re-checks for siblings, as related.ts does.
CREATE TEMP TABLE answer_related_keys AS
SELECT
  c.doc, k.kind, k.key, k.key_cve_count, k.too_common, k.key_rank,
  c.status = 'active' AS active, c.service_score, c.id_rank, CAST(c.published AS DATE) AS day
FROM related_keys k
JOIN cves c USING (cve_id);

CREATE TEMP TABLE answer_related_evidence AS
SELECT doc, kind, key, key_cve_count, day
FROM answer_related_keys
WHERE key_cve_count > 1
  AND ((kind = 'product' AND NOT too_common) OR (kind IN ('advisory', 'cwe') AND key_rank <= {{key_cap}}));

-- Per CVE, the keys a sibling's shared keys are read from, each list in the order related.ts
-- shows shared keys: product evidence keys (a key's evidence does not depend on the CVE, so
-- this is also what a sibling carries of them) most specific first; CWE evidence keys by CWE
-- number (a key without one last, as cweNumber gives it), then name; and every CWE key.
CREATE TEMP TABLE answer_related_key_lists AS
SELECT
  doc,
  list_sort(list({'key_cve_count': key_cve_count, 'key': key})
    FILTER (WHERE kind = 'product' AND key_cve_count > 1 AND NOT too_common)) AS product_keys,
  list_sort(list({'number': coalesce(TRY_CAST(regexp_extract(key, '(\d+)$', 1) AS DOUBLE), 9007199254740991), 'key': key})
    FILTER (WHERE kind = 'cwe' AND key_cve_count > 1 AND key_rank <= {{key_cap}})) AS cwe_evidence,
  list(key) FILTER (WHERE kind = 'cwe') AS cwe_keys
FROM answer_related_keys
GROUP BY doc;

-- Why a list may be empty (basisOf): per CVE and kind of key, how many keys it has, how many
-- are too common to be evidence, how many ranked past the cap are shared.
CREATE TEMP TABLE answer_related_facts AS
SELECT
  doc,
  kind,
  count(*) AS keys,
  count(*) FILTER (WHERE too_common) AS too_common_keys,
  count(*) FILTER (WHERE key_rank > {{key_cap}} AND key_cve_count > 1) AS shared_beyond_cap
FROM answer_related_keys
GROUP BY doc, kind;
