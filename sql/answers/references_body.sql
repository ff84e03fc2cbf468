-- Answers — the body of GET /cves/{id}/references for every CVE of the snapshot.
-- {{failed_sections}} is the JSON array of the parts whose table could not be read.
CREATE TABLE answer_references AS
SELECT
  c.doc,
  -- One concat, not a chain of ||: each || would copy the whole text so far.
  concat(
    '{"cve_id":', to_json(c.cve_id),
    ',"references":', coalesce(r.items, '[]'),
    ',"exploits":', coalesce(x.items, '[]'),
    ',"failed_sections":{{failed_sections}}}'
  ) AS body
FROM cves c
LEFT JOIN answer_reference_items r USING (cve_id)
LEFT JOIN answer_unreferenced_exploits x USING (cve_id);
