-- Answers — related, same_vendor: per CVE, the {{list_max}} siblings (active CVEs) sharing
-- the most vendor advisories among the CVE's first {{key_cap}} advisory keys, then higher
-- service_score, then cve_id descending. Shared keys by name.
CREATE TEMP TABLE answer_related_vendor AS
WITH per_sibling AS (
  SELECT e.doc AS target, s.doc AS sibling, count(*) AS shared_count, list_sort(list(s.key)) AS shared_keys
  FROM answer_related_evidence e
  JOIN answer_related_keys s ON s.kind = 'advisory' AND s.key = e.key AND s.doc <> e.doc
  WHERE e.kind = 'advisory'
  GROUP BY e.doc, s.doc
)
SELECT
  p.target, p.sibling, p.shared_count, p.shared_keys[1:{{keys_shown}}] AS shared_keys,
  row_number() OVER (PARTITION BY p.target ORDER BY p.shared_count DESC, c.service_score DESC, c.id_rank) AS place
FROM per_sibling p
JOIN cves c ON c.doc = p.sibling
WHERE c.status = 'active'
QUALIFY place <= {{list_max}};
