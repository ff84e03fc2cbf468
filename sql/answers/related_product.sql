-- Answers — related, same_product: per CVE, the {{list_max}} siblings (active CVEs) sharing
-- an evidence product key, the most specific shared key first (fewest CVEs: key_cve_count),
-- then higher service_score, then cve_id descending (id_rank ascending).
--
-- Candidates, not every pair: a sibling ranks by the most specific key it shares, and among
-- that key's members by score and id, so a sibling of the list is among the first
-- {{list_max}} + 1 members of that key in score/id order (+1: the CVE itself). And once the
-- CVE has a key carried by more than {{list_max}} CVEs, its keys carried by still more CVEs
-- can add no sibling: that key alone gives {{list_max}} siblings ranked before theirs.
-- What each candidate shares is then read in full from the two CVEs' key lists.
CREATE TEMP TABLE answer_related_product AS
WITH evidence AS (
  SELECT doc, key, key_cve_count FROM answer_related_evidence WHERE kind = 'product'
),
bound AS (
  SELECT doc, min(key_cve_count) FILTER (WHERE key_cve_count > {{list_max}}) AS widest
  FROM evidence
  GROUP BY doc
),
key_heads AS (
  SELECT doc, key
  FROM answer_related_keys
  WHERE kind = 'product' AND active AND key_cve_count > 1 AND NOT too_common
  QUALIFY row_number() OVER (PARTITION BY key ORDER BY service_score DESC, id_rank) <= {{list_max}} + 1
),
candidates AS (
  SELECT DISTINCT e.doc AS target, h.doc AS sibling
  FROM evidence e
  JOIN bound b USING (doc)
  JOIN key_heads h USING (key)
  WHERE h.doc <> e.doc AND (b.widest IS NULL OR e.key_cve_count <= b.widest)
),
shared AS (
  SELECT cand.target, cand.sibling, list_filter(t.product_keys, k -> list_contains(s.product_keys, k)) AS keys
  FROM candidates cand
  JOIN answer_related_key_lists t ON t.doc = cand.target
  JOIN answer_related_key_lists s ON s.doc = cand.sibling
)
SELECT
  sh.target, sh.sibling,
  sh.keys[1].key_cve_count AS key_cve_count,
  len(sh.keys) AS shared_count,
  list_transform(sh.keys[1:{{keys_shown}}], k -> k.key) AS shared_keys,
  row_number() OVER (PARTITION BY sh.target ORDER BY sh.keys[1].key_cve_count, c.service_score DESC, c.id_rank) AS place
FROM shared sh
JOIN cves c ON c.doc = sh.sibling
WHERE c.status = 'active'
QUALIFY place <= {{list_max}};
