-- Answers — the related answer when the snapshot's related_keys could not be read: no list can
-- be built and no reason established, so every list is empty with basis `unknown`. The
-- templates are then the whole bodies (no sibling to splice in) and no CVE has a brief.
CREATE TABLE answer_related_templates AS
SELECT
  doc,
  concat('{"cve_id":', to_json(cve_id),
         ',"same_product":[],"same_vendor":[],"same_cwe":[],"basis":{"same_product":"unknown","same_vendor":"unknown","same_cwe":"unknown"}}') AS template
FROM cves;

CREATE TABLE answer_related_briefs AS
SELECT doc, '' AS brief FROM cves;
