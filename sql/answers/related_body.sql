-- Answers — the body of GET /cves/{id}/related for every CVE of the snapshot: the three lists
-- (each entry the sibling's brief, then its evidence) and the basis of each list.

-- The brief of every CVE some list names (CveBrief of api/queries/cve-summary.ts), as a JSON
-- object left open (its closing brace cut) so the entry's evidence follows in the same object.
CREATE TEMP TABLE answer_related_briefs AS
SELECT
  c.doc,
  rtrim(to_json({
    'cve_id': c.cve_id,
    'published': answer_time(c.published),
    'service_score': answer_number(c.service_score),
    'service_severity': c.service_severity,
    'score_assessed': c.score_assessed,
    'severity': c.severity,
    'description': CASE WHEN length(c.description) > {{short_text_max}}
                        THEN rtrim(left(c.description, {{short_text_max}} - 1)) || '…'
                        ELSE c.description END
  })::VARCHAR, '}') AS brief
FROM cves c
SEMI JOIN (
  SELECT sibling FROM answer_related_product
  UNION SELECT sibling FROM answer_related_vendor
  UNION SELECT sibling FROM answer_related_cwe
) s ON s.sibling = c.doc;

-- Each entry of each list: the sibling's brief, then its evidence as related.ts adds it.
CREATE TEMP TABLE answer_related_entries AS
WITH cwe_possible AS (
  SELECT doc AS target, sum(key_cve_count - 1) AS possible
  FROM answer_related_evidence WHERE kind = 'cwe' GROUP BY doc
),
-- related.ts reads a CVE whose CWEs have {{cwe_windowing_from}} or more possible siblings by
-- publication windows (up to ± {{cwe_window_max_days}} days) when the list fills within one:
-- its entries then carry shared_keys before shared_count. The list is the same either way.
cwe_windowed AS (
  SELECT w.target
  FROM answer_related_cwe w
  JOIN cwe_possible p USING (target)
  JOIN cves t ON t.doc = w.target
  WHERE w.place = {{list_max}} AND w.days_apart <= {{cwe_window_max_days}}
    AND t.published IS NOT NULL AND p.possible >= {{cwe_windowing_from}}
)
SELECT p.target, 1 AS list, p.place,
       concat(b.brief, ',"key_cve_count":', p.key_cve_count, ',"shared_count":', p.shared_count,
              ',"shared_keys":', to_json(p.shared_keys), '}') AS entry
FROM answer_related_product p JOIN answer_related_briefs b ON b.doc = p.sibling
UNION ALL
SELECT v.target, 2, v.place,
       concat(b.brief, ',"shared_count":', v.shared_count, ',"shared_keys":', to_json(v.shared_keys), '}')
FROM answer_related_vendor v JOIN answer_related_briefs b ON b.doc = v.sibling
UNION ALL
SELECT w.target, 3, w.place,
       concat(b.brief, ',"days_apart":', coalesce(CAST(w.days_apart AS VARCHAR), 'null'),
              CASE WHEN x.target IS NOT NULL
                   THEN concat(',"shared_keys":', to_json(w.shared_keys), ',"shared_count":', w.shared_count)
                   ELSE concat(',"shared_count":', w.shared_count, ',"shared_keys":', to_json(w.shared_keys)) END,
              '}')
FROM answer_related_cwe w
JOIN answer_related_briefs b ON b.doc = w.sibling
LEFT JOIN cwe_windowed x USING (target);

CREATE TABLE answer_related AS
WITH lists AS (
  SELECT
    target,
    list({'k': place, 'v': entry}) FILTER (WHERE list = 1) AS same_product,
    list({'k': place, 'v': entry}) FILTER (WHERE list = 2) AS same_vendor,
    list({'k': place, 'v': entry}) FILTER (WHERE list = 3) AS same_cwe
  FROM answer_related_entries
  GROUP BY target
)
SELECT
  c.doc,
  -- One concat, not a chain of ||: each || would copy the whole text so far.
  concat(
    '{"cve_id":', to_json(c.cve_id),
    ',"same_product":', coalesce(answer_join(l.same_product), '[]'),
    ',"same_vendor":', coalesce(answer_join(l.same_vendor), '[]'),
    ',"same_cwe":', coalesce(answer_join(l.same_cwe), '[]'),
    -- basisOf of related.ts: ok; no_data (no key of the kind); for same_product
    -- no_specific_key (shared only through too-common keys) else no_siblings; for the others
    -- capped (shared only past the first keys) else no_siblings.
    ',"basis":{"same_product":"', CASE WHEN l.same_product IS NOT NULL THEN 'ok'
                                       WHEN coalesce(fp.keys, 0) = 0 THEN 'no_data'
                                       WHEN fp.too_common_keys > 0 THEN 'no_specific_key'
                                       ELSE 'no_siblings' END,
    '","same_vendor":"', CASE WHEN l.same_vendor IS NOT NULL THEN 'ok'
                              WHEN coalesce(fv.keys, 0) = 0 THEN 'no_data'
                              WHEN fv.shared_beyond_cap > 0 THEN 'capped'
                              ELSE 'no_siblings' END,
    '","same_cwe":"', CASE WHEN l.same_cwe IS NOT NULL THEN 'ok'
                           WHEN coalesce(fw.keys, 0) = 0 THEN 'no_data'
                           WHEN fw.shared_beyond_cap > 0 THEN 'capped'
                           ELSE 'no_siblings' END,
    '"}}'
  ) AS body
FROM cves c
LEFT JOIN lists l ON l.target = c.doc
LEFT JOIN answer_related_facts fp ON fp.doc = c.doc AND fp.kind = 'product'
LEFT JOIN answer_related_facts fv ON fv.doc = c.doc AND fv.kind = 'advisory'
LEFT JOIN answer_related_facts fw ON fw.doc = c.doc AND fw.kind = 'cwe';
