-- Answers — enrichment: the affected packages of each CVE (fix ranges exactly as stored: null
-- = never loaded, [] = none on record), by ecosystem (unknown last) then name; and from the
-- same rows the fixed versions: each package with at least one fix, every distinct fix in
-- branch order (fixedVersionsOf).
CREATE TEMP TABLE answer_package_rows AS
SELECT
  p.cve_id,
  {'ecosystem': p.ecosystem, 'package_name': p.package_name} AS sort_key,
  p.ecosystem,
  p.package_name,
  p.purl,
  p.source,
  coalesce(p.advisory_ids, []) AS advisory_ids,
  p.fixed_branches,
  p.fixed_version,
  coalesce(p.versions, []) AS versions,
  p.last_known_affected_version_range,
  list_filter(list_transform(coalesce(p.fixed_branches, []), b -> b.fixed), f -> f IS NOT NULL) AS fixes
FROM affected_packages p;

CREATE TEMP TABLE answer_enrichment_affected_packages AS
SELECT
  cve_id,
  answer_array(sort_key, to_json({
    'ecosystem': ecosystem,
    'package_name': package_name,
    'purl': purl,
    'source': source,
    'advisory_ids': advisory_ids,
    'fixed_branches': fixed_branches,
    'fixed_version': fixed_version,
    'versions': versions,
    'last_known_affected_version_range': last_known_affected_version_range
  })::VARCHAR) AS items
FROM answer_package_rows
GROUP BY cve_id;

CREATE TEMP TABLE answer_enrichment_fixed_versions AS
SELECT
  cve_id,
  answer_array(sort_key, to_json({
    'ecosystem': ecosystem,
    'package_name': package_name,
    'purl': purl,
    -- First occurrence of each fix, in branch order (list_distinct keeps no order).
    'fixed': list_filter(fixes, (f, i) -> list_position(fixes, f) = i),
    'advisory_ids': advisory_ids
  })::VARCHAR) AS items
FROM answer_package_rows
WHERE len(fixes) > 0
GROUP BY cve_id;

DROP TABLE answer_package_rows;
