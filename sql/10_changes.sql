-- Step 10 — changes (PULSE §2): what this build changed compared with the previously published
-- snapshot, one row per subject and kind, written to {{out}}/changes.parquet with the 90-day
-- history carried from the predecessor. Columns: lib/changes/model.ts.
--
-- Inputs besides this build's tables: `prev_cves`, `prev_advisories` and `prev_changes`, the
-- previous snapshot's Parquet as views (set up by cli/build/previous-snapshot.ts; empty tables
-- when there is none). {{has_previous}} is false on the very first build, which records no
-- changes. {{build_id}} and {{detected_at}} (UTC) stamp this build's rows.

-- Numbers in sentences: one decimal, without a trailing ".0" (41 → 88, 6.5 → 7.5).
CREATE MACRO change_num(x) AS coalesce(regexp_replace(printf('%.1f', x), '\.0$', ''), 'none');
-- How far apart two one-decimal values (service score, service risk) are, in tenths, exactly.
-- Their DOUBLE difference is not exact (8.2 - 7.7 = 0.4999999999999991, 16.4 - 6.4 = 9.999…),
-- so `abs(a - b) >= 0.5` missed a move of exactly 0.5 (or 10) for some values.
CREATE MACRO change_tenths_apart(a, b) AS abs(round(a * 10) - round(b * 10));
-- EPSS as published, five decimals at most and no trailing zeros (0.61, 0.49999, 0.00004): a
-- DOUBLE cast to text is in scientific notation below 0.0001 ("EPSS 4e-05 → 0.2").
CREATE MACRO change_epss(x) AS coalesce(regexp_replace(printf('%.5f', x), '\.?0+$', ''), 'none');

-- 10a. Old and new state side by side, only what the kinds compare, and only for CVEs that are
--      new or differ in one of those fields (most CVEs do not change between two builds).
CREATE TABLE change_cve_pairs AS
SELECT
  c.cve_id,
  p.cve_id IS NOT NULL AS existed,
  p.status AS old_status, c.status AS new_status,
  p.in_kev AS old_kev, c.in_kev AS new_kev, c.kev_added_date,
  p.service_severity AS old_severity, c.service_severity AS new_severity,
  p.service_score AS old_score, c.service_score AS new_score,
  p.service_risk AS old_risk, c.service_risk AS new_risk,
  p.epss_score AS old_epss, c.epss_score AS new_epss,
  p.exploit_count AS old_exploits, c.exploit_count AS new_exploits,
  p.score_unassessed_reason AS old_unassessed, c.score_assessed AS new_assessed,
  p.cvss_v3_score AS old_v3_score, c.cvss_v3_score AS new_v3_score,
  p.cvss_v3_vector AS old_v3_vector, c.cvss_v3_vector AS new_v3_vector,
  p.service_ssvc_decision AS old_ssvc, c.service_ssvc_decision AS new_ssvc,
  c.published
FROM cves c
LEFT JOIN prev_cves p USING (cve_id)
WHERE {{has_previous}}
  AND (p.cve_id IS NULL
       OR p.status IS DISTINCT FROM c.status
       OR p.in_kev IS DISTINCT FROM c.in_kev
       OR p.service_severity IS DISTINCT FROM c.service_severity
       OR p.service_score IS DISTINCT FROM c.service_score
       OR p.service_risk IS DISTINCT FROM c.service_risk
       OR p.epss_score IS DISTINCT FROM c.epss_score
       OR p.exploit_count IS DISTINCT FROM c.exploit_count
       OR p.score_unassessed_reason IS DISTINCT FROM c.score_unassessed_reason
       OR p.cvss_v3_score IS DISTINCT FROM c.cvss_v3_score
       OR p.cvss_v3_vector IS DISTINCT FROM c.cvss_v3_vector
       OR p.service_ssvc_decision IS DISTINCT FROM c.service_ssvc_decision);

-- 10b. The conditions of each kind (PULSE §2). A new CVE is `new_cve` alone (its brief says
--      the rest); a rejection is `rejected` alone (its score becomes a placeholder). A CVE that
--      arrives already rejected records nothing.
CREATE VIEW change_cve_flags AS
SELECT
  x.*,
  existed AND old_status = 'active' AND new_status = 'rejected' AS is_rejected,
  existed AND new_status = 'active' AS compare,
  coalesce(old_kev, false) AS was_kev,
  -- EPSS thresholds on each side (absent = 0): which of 0.10 / 0.50 the move crossed.
  (coalesce(old_epss, 0) >= 0.10) <> (coalesce(new_epss, 0) >= 0.10) AS crossed_010,
  (coalesce(old_epss, 0) >= 0.50) <> (coalesce(new_epss, 0) >= 0.50) AS crossed_050
FROM change_cve_pairs x
WHERE NOT existed AND new_status = 'active' OR existed;

-- The upstream event behind a score, risk, severity or SSVC move, for the sentence.
CREATE TABLE change_cve_causes AS
SELECT
  f.*,
  CASE
    -- A rejection undone brings the record's rating back: its moves are that, not the CVSS
    -- placeholder (0, written "none") the rejection stood on.
    WHEN compare AND old_status = 'rejected' THEN 'no longer rejected'
    WHEN compare AND NOT was_kev AND new_kev THEN 'added to CISA KEV' || coalesce(' on ' || CAST(kev_added_date AS VARCHAR), '')
    WHEN compare AND was_kev AND NOT new_kev THEN 'removed from CISA KEV'
    WHEN compare AND (old_v3_score IS DISTINCT FROM new_v3_score OR old_v3_vector IS DISTINCT FROM new_v3_vector)
      THEN 'CVSS v3 ' || change_num(nullif(old_v3_score, 0)) || ' → ' || change_num(nullif(new_v3_score, 0))
    WHEN compare AND (crossed_010 OR crossed_050) THEN 'EPSS ' || change_epss(old_epss) || ' → ' || change_epss(new_epss)
    WHEN compare AND coalesce(old_exploits, 0) = 0 AND new_exploits > 0 THEN 'first public exploit published'
    WHEN compare AND old_unassessed = 'no_signal' AND new_assessed THEN 'first severity data published'
  END AS cause
FROM change_cve_flags f;

CREATE TABLE change_cve_kinds AS
SELECT cve_id, 'new_cve' AS kind, NULL AS before,
       to_json(struct_pack(service_severity := new_severity, service_score := new_score, service_risk := new_risk, in_kev := new_kev)) AS after,
       'New CVE published ' || coalesce(strftime(published, '%Y-%m-%d'), 'recently') || ': '
         || CASE WHEN new_assessed THEN 'service severity ' || new_severity || ' (score ' || change_num(new_score) || '), risk ' || change_num(new_risk)
                 ELSE 'not assessed yet (no source has published severity data)' END
         || CASE WHEN new_kev THEN ', listed in CISA KEV' ELSE '' END || '.' AS why
FROM change_cve_causes WHERE NOT existed
UNION ALL
SELECT cve_id, 'rejected',
       to_json(struct_pack(status := old_status, service_severity := old_severity, service_score := old_score, service_risk := old_risk)),
       to_json(struct_pack(status := new_status)),
       'Rejected by its CNA or NVD: no longer a vulnerability (was '
         -- A record never assessed had a 0 placeholder, not a rating (contract: score_assessed).
         || CASE WHEN old_unassessed = 'no_signal' THEN 'not assessed yet'
                 ELSE old_severity || ' ' || change_num(old_score) || ', risk ' || change_num(old_risk) END || ').'
FROM change_cve_causes WHERE is_rejected
UNION ALL
SELECT cve_id, 'kev_added',
       to_json(struct_pack(in_kev := false, service_risk := old_risk)),
       to_json(struct_pack(in_kev := true, kev_added_date := kev_added_date, service_risk := new_risk)),
       'Added to CISA KEV' || coalesce(' on ' || CAST(kev_added_date AS VARCHAR), '') || ': service risk ' || change_num(old_risk) || ' → ' || change_num(new_risk) || '.'
FROM change_cve_causes WHERE compare AND NOT was_kev AND new_kev
UNION ALL
SELECT cve_id, 'kev_removed',
       to_json(struct_pack(in_kev := true, service_risk := old_risk)),
       to_json(struct_pack(in_kev := false, service_risk := new_risk)),
       'Removed from CISA KEV: service risk ' || change_num(old_risk) || ' → ' || change_num(new_risk) || '.'
FROM change_cve_causes WHERE compare AND was_kev AND NOT new_kev
UNION ALL
SELECT cve_id, 'severity_changed',
       to_json(struct_pack(service_severity := old_severity, service_score := old_score)),
       to_json(struct_pack(service_severity := new_severity, service_score := new_score)),
       'Service severity ' || old_severity || ' → ' || new_severity || ' (score ' || change_num(old_score) || ' → ' || change_num(new_score) || ')'
         || coalesce(': ' || cause, '') || '.'
FROM change_cve_causes WHERE compare AND old_severity IS DISTINCT FROM new_severity
UNION ALL
SELECT cve_id, 'score_changed',
       to_json(struct_pack(service_score := old_score)),
       to_json(struct_pack(service_score := new_score)),
       'Service score ' || change_num(old_score) || ' → ' || change_num(new_score) || coalesce(': ' || cause, '') || '.'
FROM change_cve_causes WHERE compare AND change_tenths_apart(new_score, old_score) >= 5
UNION ALL
SELECT cve_id, 'risk_changed',
       to_json(struct_pack(service_risk := old_risk)),
       to_json(struct_pack(service_risk := new_risk)),
       'Service risk ' || change_num(old_risk) || ' → ' || change_num(new_risk) || coalesce(': ' || cause, '') || '.'
FROM change_cve_causes WHERE compare AND change_tenths_apart(new_risk, old_risk) >= 100
UNION ALL
SELECT cve_id, 'epss_crossed',
       to_json(struct_pack(epss_score := old_epss)),
       to_json(struct_pack(epss_score := new_epss)),
       'EPSS ' || CASE WHEN coalesce(new_epss, 0) > coalesce(old_epss, 0) THEN 'rose above ' ELSE 'fell below ' END
         || CASE WHEN crossed_050 THEN '0.50' ELSE '0.10' END
         || ': ' || change_epss(old_epss) || ' → ' || change_epss(new_epss) || ', service risk ' || change_num(old_risk) || ' → ' || change_num(new_risk) || '.'
FROM change_cve_causes WHERE compare AND (crossed_010 OR crossed_050)
UNION ALL
SELECT cve_id, 'exploit_published',
       to_json(struct_pack(exploit_count := coalesce(old_exploits, 0))),
       to_json(struct_pack(exploit_count := new_exploits)),
       'First public exploit published: service risk ' || change_num(old_risk) || ' → ' || change_num(new_risk) || '.'
FROM change_cve_causes WHERE compare AND coalesce(old_exploits, 0) = 0 AND new_exploits > 0
UNION ALL
SELECT cve_id, 'assessed',
       to_json(struct_pack(score_assessed := false)),
       to_json(struct_pack(score_assessed := true, service_severity := new_severity, service_score := new_score, service_risk := new_risk)),
       'Assessed for the first time: service severity ' || new_severity || ' (score ' || change_num(new_score) || '), risk ' || change_num(new_risk) || '.'
FROM change_cve_causes WHERE compare AND old_unassessed = 'no_signal' AND new_assessed
UNION ALL
SELECT cve_id, 'cvss_changed',
       to_json(struct_pack(cvss_v3_score := nullif(old_v3_score, 0), cvss_v3_vector := old_v3_vector)),
       to_json(struct_pack(cvss_v3_score := nullif(new_v3_score, 0), cvss_v3_vector := new_v3_vector)),
       'CVSS v3 in force ' || change_num(nullif(old_v3_score, 0)) || coalesce(' (' || old_v3_vector || ')', '')
         || ' → ' || change_num(nullif(new_v3_score, 0)) || coalesce(' (' || new_v3_vector || ')', '') || '.'
FROM change_cve_causes WHERE compare AND (old_v3_score IS DISTINCT FROM new_v3_score OR old_v3_vector IS DISTINCT FROM new_v3_vector)
UNION ALL
SELECT cve_id, 'ssvc_changed',
       to_json(struct_pack(service_ssvc_decision := old_ssvc)),
       to_json(struct_pack(service_ssvc_decision := new_ssvc)),
       'SSVC decision ' || coalesce(old_ssvc, 'none') || ' → ' || coalesce(new_ssvc, 'none') || coalesce(': ' || cause, '') || '.'
FROM change_cve_causes WHERE compare AND old_ssvc IS DISTINCT FROM new_ssvc;

-- 10c. Vendor advisories (PULSE §2): new ones, with or without a CVE, and ones that now name a
--      CVE they did not name before.
CREATE TABLE change_advisory_kinds AS
SELECT a.vendor, a.advisory_id, 'new_advisory' AS kind, a.cve_ids[1] AS cve_id, NULL AS before,
       to_json(struct_pack(vendor_severity := a.vendor_severity, cve_ids := a.cve_ids)) AS after,
       'New ' || a.vendor || ' advisory ' || a.advisory_id || coalesce(' (' || a.vendor_severity || ')', '')
         || CASE WHEN len(a.cve_ids) = 0 THEN ', no CVE assigned yet'
                 ELSE ' for ' || array_to_string(a.cve_ids[1:3], ', ') || CASE WHEN len(a.cve_ids) > 3 THEN ' and ' || (len(a.cve_ids) - 3) || ' more' ELSE '' END END
         || coalesce(': ' || a.title, '') || '.' AS why
FROM advisories a
ANTI JOIN prev_advisories p ON p.vendor = a.vendor AND p.advisory_id = a.advisory_id
WHERE {{has_previous}}
UNION ALL
SELECT vendor, advisory_id, 'advisory_linked', added[1],
       to_json(struct_pack(cve_ids := old_cve_ids)),
       to_json(struct_pack(cve_ids := cve_ids)),
       'Advisory ' || vendor || ' ' || advisory_id || ' now names ' || array_to_string(added, ', ')
         || CASE WHEN len(old_cve_ids) = 0 THEN ' (published before a CVE existed)' ELSE '' END || '.'
FROM (
  SELECT a.vendor, a.advisory_id, a.cve_ids, coalesce(p.cve_ids, []) AS old_cve_ids,
         list_filter(a.cve_ids, id -> NOT list_contains(coalesce(p.cve_ids, []), id)) AS added
  FROM advisories a
  JOIN prev_advisories p ON p.vendor = a.vendor AND p.advisory_id = a.advisory_id
  WHERE {{has_previous}}
)
WHERE len(added) > 0;

-- 10d. This build's rows with the subject's brief, for matching without joins.
CREATE TABLE change_cve_brief AS
WITH ids AS (SELECT DISTINCT cve_id FROM change_cve_kinds),
prod AS (
  SELECT p.cve_id,
         list_sort(list_distinct(list(p.vendor_key))) AS vendors,
         list_sort(list_distinct(list(p.vendor_key || ':' || p.product_key))) AS products
  FROM products p SEMI JOIN ids USING (cve_id) GROUP BY p.cve_id
),
pkg AS (
  SELECT a.cve_id,
         list_sort(list_distinct(list(a.ecosystem) FILTER (a.ecosystem IS NOT NULL))) AS ecosystems,
         list_sort(list_distinct(list(a.ecosystem || ':' || a.package_name) FILTER (a.ecosystem IS NOT NULL))) AS packages
  FROM affected_packages a SEMI JOIN ids USING (cve_id) GROUP BY a.cve_id
)
SELECT
  c.cve_id,
  coalesce(c.title, c.kev_vulnerability_name,
           CASE WHEN length(d.text) > 160 THEN rtrim(left(d.text, 157)) || '...' ELSE d.text END) AS title,
  c.service_severity, c.service_score, c.service_risk, c.in_kev, c.epss_score, c.vendor_severity,
  coalesce(prod.vendors, []) AS vendors, coalesce(prod.products, []) AS products,
  coalesce(pkg.ecosystems, []) AS ecosystems, coalesce(pkg.packages, []) AS packages,
  c.cwe_ids
FROM cves c
SEMI JOIN ids USING (cve_id)
-- NVD records have no title: the description's start, on one line, stands in.
CROSS JOIN LATERAL (SELECT trim(regexp_replace(c.description, '\s+', ' ', 'g')) AS text) d
LEFT JOIN prod USING (cve_id)
LEFT JOIN pkg USING (cve_id);

CREATE TABLE changes_new AS
SELECT
  substr(sha256('{{build_id}}|cve|' || k.cve_id || '|' || k.kind), 1, 24) AS change_id,
  '{{build_id}}' AS build_id,
  CAST('{{detected_at}}' AS TIMESTAMP) AS detected_at,
  'cve' AS subject_type,
  k.cve_id,
  CAST(NULL AS VARCHAR) AS vendor,
  CAST(NULL AS VARCHAR) AS advisory_id,
  k.kind,
  CAST(k.before AS VARCHAR) AS before,
  CAST(k.after AS VARCHAR) AS after,
  k.why,
  b.title, b.service_severity, b.service_score, b.service_risk, b.in_kev, b.epss_score, b.vendor_severity,
  b.vendors, b.products, b.ecosystems, b.packages, b.cwe_ids
FROM change_cve_kinds k JOIN change_cve_brief b USING (cve_id)
UNION ALL
SELECT
  substr(sha256('{{build_id}}|advisory|' || k.vendor || '/' || k.advisory_id || '|' || k.kind), 1, 24),
  '{{build_id}}',
  CAST('{{detected_at}}' AS TIMESTAMP),
  'advisory',
  k.cve_id,
  k.vendor,
  k.advisory_id,
  k.kind,
  CAST(k.before AS VARCHAR),
  CAST(k.after AS VARCHAR),
  k.why,
  a.title, NULL, NULL, NULL, NULL, NULL, a.vendor_severity,
  [regexp_replace(lower(trim(a.vendor)), '\s+', '_', 'g')], [], [], [],
  coalesce((SELECT list_sort(list_distinct(list(ac.cwe_id))) FROM advisory_cves ac
            WHERE ac.vendor = k.vendor AND ac.advisory_id = k.advisory_id AND ac.cwe_id LIKE 'CWE-%'), [])
FROM change_advisory_kinds k
JOIN advisories a ON a.vendor = k.vendor AND a.advisory_id = k.advisory_id;

-- 10e. The history: the predecessor's rows of the last 90 days plus this build's.
CREATE TABLE changes AS
SELECT * FROM (
  SELECT * FROM prev_changes
  WHERE detected_at >= CAST('{{detected_at}}' AS TIMESTAMP) - INTERVAL 90 DAY AND build_id <> '{{build_id}}'
  UNION ALL BY NAME
  SELECT * FROM changes_new
)
ORDER BY detected_at DESC, build_id DESC, change_id;

COPY (
  SELECT change_id, build_id, detected_at, subject_type, cve_id, vendor, advisory_id, kind, before, after, why,
         title, service_severity, service_score, service_risk, in_kev, epss_score, vendor_severity,
         vendors, products, ecosystems, packages, cwe_ids
  FROM changes
) TO '{{out}}/changes.parquet' (FORMAT parquet, COMPRESSION zstd);
