-- Answers — enrichment: the references of each CVE that are patches, by URL.
CREATE TEMP TABLE answer_enrichment_patches AS
SELECT doc, answer_array(place, item) AS items
FROM (
  SELECT
    c.doc,
    row_number() OVER (PARTITION BY c.doc ORDER BY r.url) AS place,
    to_json({
      'url': r.url,
      'name': r.name,
      'tags': coalesce(r.tags, []),
      'sources': coalesce(r.sources, [])
    })::VARCHAR AS item
  FROM "references" r
  JOIN cves c USING (cve_id)
  WHERE r.is_patch
)
GROUP BY doc;
