-- Answers — the body of GET /cves/{id}/enrichment for every CVE of the snapshot.
-- {{failed_sections}} is the JSON array of the sections whose tables could not be read.
CREATE TABLE answer_enrichment AS
SELECT
  c.doc,
  -- One concat, not a chain of ||: each || would copy the whole text so far.
  concat(
    '{"cve_id":', to_json(c.cve_id),
    ',"vendor_advisories":', coalesce(va.items, '[]'),
    ',"patches":', coalesce(pa.items, '[]'),
    ',"fixed_versions":', coalesce(fv.items, '[]'),
    ',"affected_packages":', coalesce(ap.items, '[]'),
    ',"cwes":', coalesce(cw.items, '[]'),
    ',"exploits":', coalesce(ex.items, '[]'),
    ',"timeline":', coalesce(tl.items, '[]'),
    ',"failed_sections":{{failed_sections}}}'
  ) AS body
FROM cves c
LEFT JOIN answer_enrichment_vendor_advisories va USING (cve_id)
LEFT JOIN answer_enrichment_patches pa USING (cve_id)
LEFT JOIN answer_enrichment_fixed_versions fv USING (cve_id)
LEFT JOIN answer_enrichment_affected_packages ap USING (cve_id)
LEFT JOIN answer_enrichment_cwes cw USING (cve_id)
LEFT JOIN answer_enrichment_exploits ex USING (cve_id)
LEFT JOIN answer_enrichment_timeline tl USING (cve_id);
