-- Answers — enrichment (GET /cves/{id}/enrichment, api/queries/enrichment.ts): the vendor
-- advisories of each CVE, newest first. The per-CVE band, source and evidence travel together;
-- the advisory's own apply only where the CVE has no band of its own. One JSON array per CVE.
CREATE TEMP TABLE answer_enrichment_vendor_advisories AS
SELECT
  ac.cve_id,
  answer_array(
    -- ORDER BY a.published DESC NULLS LAST, ac.vendor, ac.advisory_id
    {'undated': a.published IS NULL, 'published': -epoch_us(a.published), 'vendor': ac.vendor, 'advisory_id': ac.advisory_id},
    to_json({
      'vendor': ac.vendor,
      'advisory_id': ac.advisory_id,
      'title': a.title,
      'published': answer_time(a.published),
      'modified': answer_time(a.modified),
      'vendor_severity': CASE WHEN ac.vendor_severity IS NOT NULL THEN ac.vendor_severity ELSE a.vendor_severity END,
      'vendor_severity_source': CASE WHEN ac.vendor_severity IS NOT NULL THEN ac.vendor_severity_source ELSE a.vendor_severity_source END,
      'vendor_severity_evidence': CASE WHEN ac.vendor_severity IS NOT NULL THEN ac.vendor_severity_evidence ELSE a.vendor_severity_evidence END,
      'cvss_score': answer_number(CASE WHEN ac.cvss_score IS NOT NULL THEN ac.cvss_score ELSE a.cvss_score END),
      'cvss_vector': CASE WHEN ac.cvss_score IS NOT NULL THEN ac.cvss_vector ELSE a.cvss_vector END,
      'exploited': coalesce(ac.exploited, false),
      'exploited_evidence': ac.exploited_evidence,
      'cwe_id': ac.cwe_id,
      'remediations': coalesce(a.remediations, []),
      'url': a.url,
      -- Last, as enrichment.ts adds it to the row.
      'api_path': answer_advisory_path(ac.vendor, ac.advisory_id)
    })::VARCHAR
  ) AS items
FROM advisory_cves ac
LEFT JOIN advisories a USING (vendor, advisory_id)
GROUP BY ac.cve_id;
