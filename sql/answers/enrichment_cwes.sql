-- Answers — enrichment: the CWEs of each CVE with their catalogue name, by CWE number.
CREATE TEMP TABLE answer_enrichment_cwes AS
SELECT doc, answer_array(place, item) AS items
FROM (
  SELECT
    c.doc,
    row_number() OVER (PARTITION BY c.doc ORDER BY TRY_CAST(regexp_extract(cc.cwe_id, '(\d+)$', 1) AS INTEGER) NULLS LAST, cc.cwe_id) AS place,
    to_json({
      'cwe_id': cc.cwe_id,
      'name': w.name,
      'abstraction': w.abstraction
    })::VARCHAR AS item
  FROM cve_cwes cc
  LEFT JOIN cwes w USING (cwe_id)
  JOIN cves c ON c.cve_id = cc.cve_id
)
GROUP BY doc;
