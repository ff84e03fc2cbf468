-- Answers — references (GET /cves/{id}/references, api/queries/references.ts): every
-- reference of each CVE as the endpoint lists it, vendor advisories and patches first, then
-- exploits, then by URL. One JSON array per CVE; CVEs without a reference have no row.
CREATE TEMP TABLE answer_reference_items AS
SELECT
  r.cve_id,
  answer_array(
    -- ORDER BY is_vendor_advisory DESC, is_patch DESC, is_exploit DESC, url
    {'flags': answer_desc_flag(r.is_vendor_advisory) * 9 + answer_desc_flag(r.is_patch) * 3 + answer_desc_flag(r.is_exploit), 'url': r.url},
    to_json({
      'url': r.url,
      'name': r.name,
      'tags': coalesce(r.tags, []),
      'sources': coalesce(r.sources, []),
      'is_patch': coalesce(r.is_patch, false),
      'is_exploit': coalesce(r.is_exploit, false),
      'is_vendor_advisory': coalesce(r.is_vendor_advisory, false),
      'ghsa_id': nullif(r.ghsa_id, ''),
      'exploit_source': r.exploit_source,
      -- Last, as references.ts adds it to the row.
      'vendor_advisory': CASE WHEN r.advisory.vendor IS NOT NULL AND r.advisory.advisory_id IS NOT NULL THEN {
        'vendor': r.advisory.vendor,
        'advisory_id': r.advisory.advisory_id,
        'api_path': answer_advisory_path(r.advisory.vendor, r.advisory.advisory_id)
      } END
    })::VARCHAR
  ) AS items
FROM "references" r
GROUP BY r.cve_id;
