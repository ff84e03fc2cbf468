-- Answers — enrichment: the dated timeline of each CVE: its own dates (published, KEV, EPSS,
-- last modified), its vendor advisories, the live OSV/GHSA records naming it (as a CVE id or
-- an alias) and its exploit records; undated events are left out. By time, then by kind of
-- event, source and record.
CREATE TEMP TABLE answer_enrichment_timeline AS
WITH osv_links AS (
  SELECT rowid AS osv_row, unnest(cve_ids) AS cve_id FROM osv_advisories WHERE withdrawn IS NULL
  UNION
  SELECT rowid, unnest(aliases) FROM osv_advisories WHERE withdrawn IS NULL
),
events AS (
  SELECT doc, published AS event_at, 'published' AS event, 'cve' AS source, NULL::VARCHAR AS ref, 1 AS ord FROM cves
  UNION ALL SELECT doc, last_modified, 'last_modified', 'cve', NULL, 8 FROM cves
  UNION ALL SELECT doc, CAST(kev_added_date AS TIMESTAMP), 'kev_added', 'kev', NULL, 5 FROM cves
  UNION ALL SELECT doc, CAST(epss_date AS TIMESTAMP), 'epss_scored', 'epss', NULL, 7 FROM cves
  UNION ALL
  SELECT c.doc, a.published, 'vendor_advisory_published', a.vendor, a.advisory_id, 2
  FROM (SELECT DISTINCT cve_id, vendor, advisory_id FROM advisory_cves) ac
  JOIN advisories a USING (vendor, advisory_id)
  JOIN cves c ON c.cve_id = ac.cve_id
  UNION ALL
  SELECT c.doc, o.published, CASE WHEN lower(o.database) = 'ghsa' THEN 'ghsa_published' ELSE 'osv_published' END, o.database, o.advisory_id, 3
  FROM osv_links l
  JOIN osv_advisories o ON o.rowid = l.osv_row
  JOIN cves c ON c.cve_id = l.cve_id
  UNION ALL
  SELECT c.doc, e.published, 'exploit_published', e.source, coalesce(e.exploit_id, e.url), 6
  FROM exploits e
  JOIN cves c USING (cve_id)
)
SELECT doc, answer_array(place, item) AS items
FROM (
  SELECT
    doc,
    row_number() OVER (PARTITION BY doc ORDER BY event_at, ord, source, ref) AS place,
    to_json({
      'date': answer_time(CAST(event_at AS TIMESTAMP)),
      'event': event,
      'source': source,
      'ref': ref
    })::VARCHAR AS item
  FROM events
  WHERE event_at IS NOT NULL
)
GROUP BY doc;
