-- Step 6 — related keys: for each active CVE, the keys it shares with siblings (contract 2.5),
-- each with how many CVEs carry it and its rank among the CVE's keys. The API reads siblings
-- through these keys; nothing here depends on the request.
--   product:  affected packages (`pkg:<ecosystem>/<name>`) and CPE/CNA pairs (`cpe:<vendor>:<product>`),
--             ranked most specific (fewest CVEs) first; keys carried by more than
--             {{related_product_threshold}} CVEs are kept but flagged as no evidence.
--   advisory: vendor advisories (`<vendor>/<advisory_id>`), ranked by vendor then advisory id.
--   cwe:      CWE ids (NVD-CWE-noinfo/Other are not keys), ranked by CWE number.

CREATE TABLE related_keys AS
WITH active AS (SELECT cve_id FROM cves WHERE status = 'active'),
raw_keys AS (
  SELECT DISTINCT ap.cve_id, 'product' AS kind,
         'pkg:' || lower(coalesce(ap.ecosystem, 'unknown')) || '/' || lower(ap.package_name) AS key
  FROM affected_packages ap
  UNION
  SELECT DISTINCT p.cve_id, 'product', 'cpe:' || p.vendor_key || ':' || p.product_key FROM products p
  UNION
  SELECT DISTINCT ac.cve_id, 'advisory', ac.vendor || '/' || ac.advisory_id FROM advisory_cves ac
  UNION
  SELECT DISTINCT c.cve_id, 'cwe', c.cwe_id FROM cve_cwes c WHERE c.cwe_id LIKE 'CWE-%'
),
keyed AS (
  SELECT k.* FROM raw_keys k SEMI JOIN active a ON a.cve_id = k.cve_id
),
counted AS (
  SELECT *, count(*) OVER (PARTITION BY kind, key) AS key_cve_count FROM keyed
)
SELECT
  cve_id, kind, key, CAST(key_cve_count AS INTEGER) AS key_cve_count,
  kind = 'product' AND key_cve_count > {{related_product_threshold}} AS too_common,
  CAST(row_number() OVER (
    PARTITION BY cve_id, kind
    ORDER BY
      CASE WHEN kind = 'product' THEN key_cve_count END,
      CASE WHEN kind = 'cwe' THEN TRY_CAST(regexp_extract(key, '(\d+)$', 1) AS INTEGER) END,
      key
  ) AS INTEGER) AS key_rank
FROM counted
ORDER BY kind, key, cve_id;
