-- Answers — the body of GET /vendor-advisories/{vendor}/{advisory_id} (api/queries/advisories.ts)
-- for every advisory, under its vendor and id exactly as stored: the advisory in full, then its
-- API path and its CVEs (each with the vendor's band, CVSS and exploitation evidence for that
-- CVE, and the CVE's API path when the snapshot holds the CVE), by CVE id.
CREATE TEMP TABLE answer_advisory_cve_links AS
SELECT
  ac.vendor,
  ac.advisory_id,
  answer_array(ac.cve_id, to_json({
    'cve_id': ac.cve_id,
    'vendor_severity': ac.vendor_severity,
    'vendor_severity_source': ac.vendor_severity_source,
    'vendor_severity_evidence': ac.vendor_severity_evidence,
    'cvss_score': answer_number(ac.cvss_score),
    'cvss_vector': ac.cvss_vector,
    'cvss_version': ac.cvss_version,
    'exploited': coalesce(ac.exploited, false),
    'exploited_evidence': ac.exploited_evidence,
    'cwe_id': ac.cwe_id,
    'api_path': CASE WHEN c.cve_id IS NOT NULL THEN '/api/v1/public/cves/' || ac.cve_id END
  })::VARCHAR) AS items
FROM advisory_cves ac
LEFT JOIN (SELECT DISTINCT cve_id FROM cves) c ON c.cve_id = ac.cve_id
GROUP BY ac.vendor, ac.advisory_id;

CREATE TABLE answer_vendor_advisory AS
SELECT
  a.vendor,
  a.advisory_id,
  -- The advisory's fields as one object, its closing brace cut so `cves` follows (the last
  -- field, api_path, is a string: the cut takes exactly that brace).
  concat(rtrim(to_json({
    'vendor': a.vendor,
    'advisory_id': a.advisory_id,
    'title': a.title,
    'published': answer_time(a.published),
    'modified': answer_time(a.modified),
    'aggregate_severity': a.aggregate_severity,
    'vendor_severity': a.vendor_severity,
    'vendor_severity_source': a.vendor_severity_source,
    'vendor_severity_evidence': a.vendor_severity_evidence,
    'cvss_score': answer_number(a.cvss_score),
    'has_cve': a.has_cve,
    'cve_ids': coalesce(a.cve_ids, []),
    'exploited': coalesce(a.exploited, false),
    'url': a.url,
    'description': a.description,
    'publisher': a.publisher,
    'category': a.category,
    'tlp': a.tlp,
    'status': a.status,
    'version': a.version,
    'aggregate_severity_namespace': a.aggregate_severity_namespace,
    'cvss_vector': a.cvss_vector,
    'products': coalesce(a.products, []),
    'remediations': coalesce(a.remediations, []),
    'references': coalesce(a."references", []),
    'api_path': answer_advisory_path(a.vendor, a.advisory_id)
  })::VARCHAR, '}'), ',"cves":', coalesce(l.items, '[]'), '}') AS body
FROM advisories a
LEFT JOIN answer_advisory_cve_links l USING (vendor, advisory_id);
