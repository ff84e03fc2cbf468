-- Answers — enrichment: the CWEs of each CVE with their catalogue name, by CWE number.
CREATE TEMP TABLE answer_enrichment_cwes AS
SELECT
  cc.cve_id,
  answer_array(
    {'number': TRY_CAST(regexp_extract(cc.cwe_id, '(\d+)$', 1) AS INTEGER), 'cwe_id': cc.cwe_id},
    to_json({'cwe_id': cc.cwe_id, 'name': w.name, 'abstraction': w.abstraction})::VARCHAR
  ) AS items
FROM cve_cwes cc
LEFT JOIN cwes w USING (cwe_id)
GROUP BY cc.cve_id;
