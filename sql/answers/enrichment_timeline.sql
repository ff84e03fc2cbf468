-- Answers — enrichment: the dated timeline of each CVE: its own dates (published, KEV, EPSS,
-- last modified), its vendor advisories, the live OSV/GHSA records naming it (as a CVE id or
-- an alias) and its exploit records; undated events are left out. By time, then by kind of
-- event (`ord`), source and record. Events are structs whose fields are in that order, so
-- sorting the structs sorts the events.
--
-- The events other than the CVE's own dates, per CVE (most CVEs have none).
CREATE TEMP TABLE answer_timeline_events AS
WITH osv_links AS (
  SELECT rowid AS osv_row, unnest(cve_ids) AS cve_id FROM osv_advisories WHERE withdrawn IS NULL
  UNION
  SELECT rowid, unnest(aliases) FROM osv_advisories WHERE withdrawn IS NULL
),
events AS (
  SELECT ac.cve_id, a.published AS event_at, 2 AS ord, a.vendor AS source, a.advisory_id AS ref, 'vendor_advisory_published' AS event
  FROM (SELECT DISTINCT cve_id, vendor, advisory_id FROM advisory_cves) ac
  JOIN advisories a USING (vendor, advisory_id)
  UNION ALL
  SELECT l.cve_id, o.published, 3, o.database, o.advisory_id, CASE WHEN lower(o.database) = 'ghsa' THEN 'ghsa_published' ELSE 'osv_published' END
  FROM osv_links l
  JOIN osv_advisories o ON o.rowid = l.osv_row
  UNION ALL
  SELECT e.cve_id, e.published, 6, e.source, coalesce(e.exploit_id, e.url), 'exploit_published'
  FROM exploits e
)
SELECT cve_id, list({'at': CAST(event_at AS TIMESTAMP), 'ord': ord, 'source': source, 'ref': ref, 'event': event}) AS events
FROM events
WHERE event_at IS NOT NULL
GROUP BY cve_id;

CREATE TEMP TABLE answer_enrichment_timeline AS
SELECT
  c.cve_id,
  '[' || array_to_string(list_transform(
    list_sort(list_concat(
      list_filter([
        {'at': c.published, 'ord': 1, 'source': 'cve', 'ref': NULL::VARCHAR, 'event': 'published'},
        {'at': c.last_modified, 'ord': 8, 'source': 'cve', 'ref': NULL::VARCHAR, 'event': 'last_modified'},
        {'at': CAST(c.kev_added_date AS TIMESTAMP), 'ord': 5, 'source': 'kev', 'ref': NULL::VARCHAR, 'event': 'kev_added'},
        {'at': CAST(c.epss_date AS TIMESTAMP), 'ord': 7, 'source': 'epss', 'ref': NULL::VARCHAR, 'event': 'epss_scored'}
      ], x -> x.at IS NOT NULL),
      coalesce(t.events, [])
    )),
    x -> to_json({'date': answer_time(x.at), 'event': x.event, 'source': x.source, 'ref': x.ref})::VARCHAR
  ), ',') || ']' AS items
FROM cves c
LEFT JOIN answer_timeline_events t USING (cve_id);

DROP TABLE answer_timeline_events;
