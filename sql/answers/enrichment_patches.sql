-- Answers — enrichment: the references of each CVE that are patches, by URL.
CREATE TEMP TABLE answer_enrichment_patches AS
SELECT
  r.cve_id,
  answer_array(r.url, to_json({
    'url': r.url,
    'name': r.name,
    'tags': coalesce(r.tags, []),
    'sources': coalesce(r.sources, [])
  })::VARCHAR) AS items
FROM "references" r
WHERE r.is_patch
GROUP BY r.cve_id;
