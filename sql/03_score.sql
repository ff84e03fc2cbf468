-- Step 3 — score: DESIGN §5, rule by rule. Parameters: {{mission_wellbeing}} (low|medium|high).
-- Every intermediate is a column, so `score_factors` can show the evidence of each number.

-- The rules that do not depend on what a CVE record holds, as macros: sql/05_side_tables.sql
-- scores the OSV/GHSA advisories that name no CVE of the snapshot by them too (their packages
-- are judged beside the CVEs', lib/packages).
-- DESIGN §5.1 steps 2e–2f: a severity band as a base score.
CREATE MACRO band_base_score(band) AS
  CASE band WHEN 'CRITICAL' THEN 9.0 WHEN 'HIGH' THEN 7.5 WHEN 'MEDIUM' THEN 5.0 WHEN 'LOW' THEN 2.0 END;
-- §5.1 step 4: an assessed score clamped to [0.4, 10] and rounded half-up to one decimal
-- (`escalated` a DECIMAL(6, 3), so the rounding is exact).
CREATE MACRO clamped_service_score(escalated) AS
  CAST(round(greatest(CAST(0.4 AS DECIMAL(6, 3)), least(CAST(10 AS DECIMAL(6, 3)), escalated)), 1) AS DOUBLE);
-- §5.1: the band of an assessed score.
CREATE MACRO service_severity_of(score) AS
  CASE WHEN score >= 9.0 THEN 'CRITICAL' WHEN score >= 7.0 THEN 'HIGH' WHEN score >= 4.0 THEN 'MEDIUM' ELSE 'LOW' END;
-- The metrics of a CVSS vector that §5.2 and §5.3 read, by key (non-canonical order and
-- suffixes are fine); '' for a metric the vector lacks.
CREATE MACRO cvss_metrics(vector) AS {
  'av': regexp_extract(vector, '(?:^|/)AV:([A-Z])', 1),
  'ac': regexp_extract(vector, '(?:^|/)AC:([A-Z])', 1),
  'pr': regexp_extract(vector, '(?:^|/)PR:([A-Z])', 1),
  'ui': regexp_extract(vector, '(?:^|/)UI:([A-Z])', 1),
  'au': regexp_extract(vector, '(?:^|/)Au:([A-Z])', 1),
  'c': regexp_extract(vector, '(?:^|/)V?C:([A-Z])', 1),
  'i': regexp_extract(vector, '(?:^|/)V?I:([A-Z])', 1),
  'a': regexp_extract(vector, '(?:^|/)V?A:([A-Z])', 1)};
-- §5.2 `automatable` without SSVC, from a vector's metrics (cvss_metrics): v3/v4: network, low
-- complexity, no privileges, no user interaction. v2 has no UI and expresses privileges as Au
-- (authentication): Au:N stands for "no privileges", and NVD's userInteractionRequired flag
-- (`v2_user_interaction`) for UI:R.
CREATE MACRO vector_automatable(m, v2_user_interaction) AS CAST(
  CASE WHEN m.av = 'N' AND m.ac = 'L' AND (m.pr = 'N' OR (m.pr = '' AND m.au = 'N'))
            AND (m.ui = 'N' OR (m.ui = '' AND NOT coalesce(v2_user_interaction, false))) THEN 0.5
       ELSE 0.1 END AS DOUBLE);
-- §5.2: the risk (0–100) of its three factors, rounded half-up to one decimal. Each factor is
-- taken as an exact decimal of 10 places before the sum, so the one rounding is exact: rounding
-- the DOUBLE sum to 4 places first rounded twice (an EPSS probability of 6 digits, 0.002499, on
-- a 5.5 with a local vector is 26.34996, and came out 26.4).
CREATE MACRO service_risk_of(severity_norm, exploitation, automatable) AS
  CAST(round(100 * (0.45 * CAST(severity_norm AS DECIMAL(18, 10)) + 0.40 * CAST(exploitation AS DECIMAL(18, 10))
                    + 0.15 * CAST(automatable AS DECIMAL(18, 10))), 1) AS DOUBLE);

-- 3a. One CVSS metric per CVE, family and assessor. The CNA's own CVE 5 container beats its
--     copy inside the NVD record; v3.1 beats v3.0; then the freshest, then the highest score;
--     then, so that every build picks the same one (an NVD record gives all its metrics one
--     time, and two ADPs may score alike), the least vector and provider.
CREATE TABLE cvss_pick AS
SELECT *,
  CASE WHEN version IN ('3.0', '3.1') THEN 'v3' WHEN version = '4.0' THEN 'v4' ELSE 'v2' END AS family
FROM cvss_current
QUALIFY row_number() OVER (
  PARTITION BY cve_id, family, role
  ORDER BY (feed = 'cve5') DESC, version DESC, modified DESC NULLS LAST, base_score DESC, vector, provider) = 1;
DROP TABLE cvss_current;

CREATE TABLE cvss_by_cve AS
SELECT
  cve_id,
  max(base_score) FILTER (family = 'v3' AND role = 'nvd') AS nvd_v3_score,
  max(vector) FILTER (family = 'v3' AND role = 'nvd') AS nvd_v3_vector,
  max(version) FILTER (family = 'v3' AND role = 'nvd') AS nvd_v3_version,
  max(base_severity) FILTER (family = 'v3' AND role = 'nvd') AS nvd_v3_severity,
  max(modified) FILTER (family = 'v3' AND role = 'nvd') AS nvd_v3_modified,
  max(provider) FILTER (family = 'v3' AND role = 'nvd') AS nvd_v3_provider,
  max(base_score) FILTER (family = 'v3' AND role = 'cna') AS cna_v3_score,
  max(vector) FILTER (family = 'v3' AND role = 'cna') AS cna_v3_vector,
  max(version) FILTER (family = 'v3' AND role = 'cna') AS cna_v3_version,
  max(base_severity) FILTER (family = 'v3' AND role = 'cna') AS cna_v3_severity,
  max(modified) FILTER (family = 'v3' AND role = 'cna') AS cna_v3_modified,
  max(provider) FILTER (family = 'v3' AND role = 'cna') AS cna_v3_provider,
  max(base_score) FILTER (family = 'v3' AND role = 'adp') AS adp_v3_score,
  max(vector) FILTER (family = 'v3' AND role = 'adp') AS adp_v3_vector,
  max(version) FILTER (family = 'v3' AND role = 'adp') AS adp_v3_version,
  max(base_severity) FILTER (family = 'v3' AND role = 'adp') AS adp_v3_severity,
  max(modified) FILTER (family = 'v3' AND role = 'adp') AS adp_v3_modified,
  max(provider) FILTER (family = 'v3' AND role = 'adp') AS adp_v3_provider,
  -- v4.0: the freshest of NVD and CNA (NVD on a tie), else the ADP's.
  arg_max(struct_pack(score := base_score, vector := vector, severity := base_severity, role := role, provider := provider),
          (CASE role WHEN 'adp' THEN 0 ELSE 1 END, modified, role = 'nvd')) FILTER (family = 'v4') AS v4,
  -- v2.0: NVD's, else the CNA's, else an ADP's. A v2 vector has no UI component: NVD's
  -- `userInteractionRequired` flag travels with it.
  arg_max(struct_pack(score := base_score, vector := vector, severity := base_severity, role := role, provider := provider,
                      user_interaction := user_interaction_required),
          CASE role WHEN 'nvd' THEN 3 WHEN 'cna' THEN 2 ELSE 1 END) FILTER (family = 'v2') AS v2,
  bool_or(role = 'nvd') AS has_nvd_cvss,
  bool_or(role = 'cna') AS has_cna_cvss
FROM cvss_pick
GROUP BY cve_id;
DROP TABLE cvss_pick;

-- 3b. The v3 metric in force (contract 1.6): NVD analyst vs CNA; when both exist and their
--     scores differ, the fresher modified time wins (NVD on an equal time).
CREATE TABLE cvss_v3_choice AS
SELECT
  cve_id,
  CASE
    WHEN nvd_v3_score IS NOT NULL AND cna_v3_score IS NOT NULL AND nvd_v3_score <> cna_v3_score
      THEN CASE WHEN cna_v3_modified > nvd_v3_modified THEN 'cna' ELSE 'nvd' END
    WHEN nvd_v3_score IS NOT NULL THEN 'nvd'
    WHEN cna_v3_score IS NOT NULL THEN 'cna'
    WHEN adp_v3_score IS NOT NULL THEN 'adp'
  END AS v3_assessor,
  (nvd_v3_score IS NOT NULL AND cna_v3_score IS NOT NULL AND nvd_v3_score <> cna_v3_score) AS v3_disagree
FROM cvss_by_cve;

-- 3c. GHSA evidence per CVE: the highest-scoring vector of a linked, live GHSA record, and the
--     highest database severity band; of advisories alike, the one with the greatest id (the
--     same in every build).
CREATE TABLE ghsa_by_cve AS
SELECT
  oc.cve_id,
  list_sort(list_distinct(list(o.advisory_id))) AS ghsa_ids,
  arg_max(struct_pack(score := coalesce(o.cvss_v3_score, o.cvss_v4_score),
                      vector := CASE WHEN o.cvss_v3_score IS NOT NULL THEN o.cvss_v3_vector ELSE o.cvss_v4_vector END,
                      advisory_id := o.advisory_id),
          (coalesce(o.cvss_v3_score, o.cvss_v4_score), o.advisory_id))
    FILTER (coalesce(o.cvss_v3_score, o.cvss_v4_score) IS NOT NULL) AS ghsa_cvss,
  arg_max(struct_pack(band := CASE upper(o.severity_band) WHEN 'MODERATE' THEN 'MEDIUM' ELSE upper(o.severity_band) END,
                      advisory_id := o.advisory_id),
          (CASE upper(o.severity_band) WHEN 'CRITICAL' THEN 4 WHEN 'HIGH' THEN 3 WHEN 'MODERATE' THEN 2 WHEN 'MEDIUM' THEN 2 WHEN 'LOW' THEN 1 END, o.advisory_id))
    FILTER (upper(o.severity_band) IN ('CRITICAL', 'HIGH', 'MODERATE', 'MEDIUM', 'LOW')) AS ghsa_band
FROM osv_cve oc JOIN osv_latest o USING (advisory_id)
WHERE oc.database = 'ghsa'
GROUP BY oc.cve_id;

-- 3d. Vendor evidence per CVE: the vendor's stated band (the CNA's own vendor first, then the
--     highest band, then the newest advisory), exploited flags (svc_kev), and advisory links.
CREATE TABLE vendor_by_cve AS
SELECT
  v.cve_id,
  arg_max(struct_pack(band := v.vendor_severity, source := v.vendor_severity_source,
                      evidence := v.vendor_severity_evidence, vendor := v.vendor, advisory_id := v.advisory_id),
          (b.assigner_slug IS NOT NULL AND b.assigner_slug = v.vendor,
           CASE v.vendor_severity WHEN 'CRITICAL' THEN 4 WHEN 'HIGH' THEN 3 WHEN 'MEDIUM' THEN 2 WHEN 'LOW' THEN 1 ELSE 0 END,
           a.modified, v.advisory_id))
    FILTER (v.vendor_severity IN ('CRITICAL', 'HIGH', 'MEDIUM', 'LOW')) AS band,
  bool_or(v.exploited) AS vendor_exploited,
  list_sort(list_distinct(list(v.vendor || ': ' || coalesce(v.exploited_evidence, 'exploited')) FILTER (v.exploited))) AS exploited_evidence,
  list_sort(list_distinct(list(struct_pack(vendor := v.vendor, advisory_id := v.advisory_id)))) AS advisories
FROM vendor_advisory_cve_current v
JOIN vendor_advisory_latest a ON a.vendor = v.vendor AND a.advisory_id = v.advisory_id
LEFT JOIN cve_base b ON b.cve_id = v.cve_id
GROUP BY v.cve_id;

CREATE TABLE exploit_by_cve AS
SELECT cve_id, count(*) AS exploit_count, list_sort(list_distinct(list(source))) AS exploit_sources
FROM exploit_current GROUP BY cve_id;

-- 3e. All inputs side by side, one row per CVE.
CREATE TABLE score_inputs AS
SELECT
  b.*,
  c.nvd_v3_score, c.nvd_v3_vector, c.nvd_v3_version, c.nvd_v3_severity, c.nvd_v3_modified, c.nvd_v3_provider,
  c.cna_v3_score, c.cna_v3_vector, c.cna_v3_version, c.cna_v3_severity, c.cna_v3_modified, c.cna_v3_provider,
  ch.v3_assessor, coalesce(ch.v3_disagree, false) AS v3_disagree,
  CASE ch.v3_assessor WHEN 'nvd' THEN c.nvd_v3_score WHEN 'cna' THEN c.cna_v3_score WHEN 'adp' THEN c.adp_v3_score END AS v3_score,
  CASE ch.v3_assessor WHEN 'nvd' THEN c.nvd_v3_vector WHEN 'cna' THEN c.cna_v3_vector WHEN 'adp' THEN c.adp_v3_vector END AS v3_vector,
  CASE ch.v3_assessor WHEN 'nvd' THEN c.nvd_v3_version WHEN 'cna' THEN c.cna_v3_version WHEN 'adp' THEN c.adp_v3_version END AS v3_version,
  CASE ch.v3_assessor WHEN 'nvd' THEN c.nvd_v3_severity WHEN 'cna' THEN c.cna_v3_severity WHEN 'adp' THEN c.adp_v3_severity END AS v3_severity_raw,
  CASE ch.v3_assessor WHEN 'nvd' THEN c.nvd_v3_provider WHEN 'cna' THEN c.cna_v3_provider WHEN 'adp' THEN c.adp_v3_provider END AS v3_provider,
  CASE ch.v3_assessor WHEN 'nvd' THEN c.nvd_v3_modified WHEN 'cna' THEN c.cna_v3_modified WHEN 'adp' THEN c.adp_v3_modified END AS v3_modified,
  c.v4, c.v2,
  coalesce(c.has_nvd_cvss, false) AS has_nvd_cvss,
  coalesce(c.has_cna_cvss, false) AS has_cna_cvss,
  g.ghsa_ids, g.ghsa_cvss, g.ghsa_band,
  vb.band AS vendor_band, coalesce(vb.vendor_exploited, false) AS vendor_exploited, vb.exploited_evidence AS vendor_exploited_evidence,
  vb.advisories AS vendor_advisories,
  k.cve_id IS NOT NULL OR b.nvd_kev_date_added IS NOT NULL OR b.adp_kev_date_added IS NOT NULL AS in_kev,
  coalesce(k.date_added, b.nvd_kev_date_added, b.adp_kev_date_added) AS kev_added_date,
  coalesce(k.due_date, b.nvd_kev_due_date) AS kev_due_date,
  k.known_ransomware_campaign_use AS kev_ransomware_use,
  coalesce(k.required_action, b.nvd_kev_required_action) AS kev_required_action,
  coalesce(k.vulnerability_name, b.nvd_kev_vulnerability_name) AS kev_vulnerability_name,
  e.epss AS epss_score, e.percentile AS epss_percentile, e.score_date AS epss_date, e.model_version AS epss_model_version,
  s.exploitation AS ssvc_exploitation, s.automatable AS ssvc_automatable, s.technical_impact AS ssvc_technical_impact,
  s.feed AS ssvc_feed,
  coalesce(x.exploit_count, 0) AS exploit_count, coalesce(x.exploit_sources, []) AS exploit_sources
FROM cve_base b
LEFT JOIN cvss_by_cve c USING (cve_id)
LEFT JOIN cvss_v3_choice ch USING (cve_id)
LEFT JOIN ghsa_by_cve g USING (cve_id)
LEFT JOIN vendor_by_cve vb USING (cve_id)
LEFT JOIN kev_current k USING (cve_id)
LEFT JOIN epss_current e USING (cve_id)
LEFT JOIN ssvc_pick s USING (cve_id)
LEFT JOIN exploit_by_cve x USING (cve_id);
DROP TABLE cve_base;
DROP TABLE cvss_by_cve;
DROP TABLE cvss_v3_choice;
DROP TABLE epss_current;
DROP TABLE exploit_by_cve;
DROP TABLE ghsa_by_cve;
DROP TABLE vendor_by_cve;
DROP TABLE ssvc_pick;

-- The SSVC decision tree that 3h reads.
CREATE TABLE ssvc_tree (exploitation VARCHAR, automatable VARCHAR, technical_impact VARCHAR, low VARCHAR, medium VARCHAR, high VARCHAR);
INSERT INTO ssvc_tree VALUES
  ('none', 'no', 'partial', 'Track', 'Track', 'Track'),
  ('none', 'no', 'total', 'Track', 'Track', 'Track*'),
  ('none', 'yes', 'partial', 'Track', 'Track', 'Attend'),
  ('none', 'yes', 'total', 'Track', 'Track', 'Attend'),
  ('poc', 'no', 'partial', 'Track', 'Track', 'Track*'),
  ('poc', 'no', 'total', 'Track', 'Track*', 'Attend'),
  ('poc', 'yes', 'partial', 'Track', 'Track', 'Attend'),
  ('poc', 'yes', 'total', 'Track', 'Track*', 'Attend'),
  ('active', 'no', 'partial', 'Track', 'Track', 'Attend'),
  ('active', 'no', 'total', 'Track', 'Attend', 'Act'),
  ('active', 'yes', 'partial', 'Attend', 'Attend', 'Act'),
  ('active', 'yes', 'total', 'Attend', 'Act', 'Act');

-- 3f–3h, one statement: each stage below is a named query that the next reads (the columns
-- score_factors shows are kept at every stage), not a table of its own: materialising the three
-- intermediate tables of 340,000 wide rows cost ~1 s at full scale.
CREATE TABLE scored AS
WITH
-- 3f. The base (DESIGN §5.1 step 2, first that exists) and the exploitation signals.
score_base AS (
SELECT
  i.*,
  coalesce(i.ssvc_exploitation = 'active', false) OR i.vendor_exploited AS svc_kev,
  i.exploit_count > 0 AS exploit_poc_available,
  CASE
    WHEN i.rejected THEN 'rejected'
    WHEN i.v3_score IS NOT NULL THEN CASE WHEN i.v3_disagree THEN 'cvss_v3_freshest' ELSE 'cvss_v3' END
    WHEN i.v4.score IS NOT NULL THEN 'cvss_v4'
    WHEN i.ghsa_cvss.score IS NOT NULL THEN 'ghsa_cvss'
    WHEN i.v2.score IS NOT NULL THEN 'cvss_v2_only'
    WHEN i.vendor_band.band IS NOT NULL THEN 'vendor_severity'
    WHEN i.ghsa_band.band IS NOT NULL THEN 'ghsa_severity'
    ELSE 'no_signal'
  END AS base_rule
FROM score_inputs i
),
score_base2 AS (
SELECT
  b.*,
  CASE b.base_rule
    WHEN 'cvss_v3' THEN b.v3_score WHEN 'cvss_v3_freshest' THEN b.v3_score
    WHEN 'cvss_v4' THEN b.v4.score
    WHEN 'ghsa_cvss' THEN b.ghsa_cvss.score
    WHEN 'cvss_v2_only' THEN b.v2.score
    WHEN 'vendor_severity' THEN band_base_score(b.vendor_band.band)
    WHEN 'ghsa_severity' THEN band_base_score(b.ghsa_band.band)
  END AS base_score,
  -- The vector behind the base, for automatability and technical impact.
  CASE b.base_rule
    WHEN 'cvss_v3' THEN b.v3_vector WHEN 'cvss_v3_freshest' THEN b.v3_vector
    WHEN 'cvss_v4' THEN b.v4.vector
    WHEN 'ghsa_cvss' THEN b.ghsa_cvss.vector
    WHEN 'cvss_v2_only' THEN b.v2.vector
  END AS base_vector,
  -- v2 only: NVD's userInteractionRequired, standing in for the UI metric v2 vectors lack.
  CASE WHEN b.base_rule = 'cvss_v2_only' THEN b.v2.user_interaction END AS base_v2_user_interaction,
  b.in_kev OR b.svc_kev AS exploited
FROM score_base b
),
-- 3g. Escalation, clamp, rounding (DESIGN §5.1 steps 3–4), in exact decimals so half-up
--     rounding is exact.
esc AS (
  SELECT
    s.*,
    CAST(s.base_score AS DECIMAL(6, 3)) AS base_dec,
    CASE
      WHEN s.base_rule IN ('rejected', 'no_signal') THEN NULL
      WHEN s.exploited THEN 'kev_escalation'
      WHEN s.epss_score >= 0.50 THEN 'epss_escalation'
      WHEN s.epss_score >= 0.10 THEN 'epss_escalation'
    END AS escalation_rule
  FROM score_base2 s
), raised AS (
  SELECT
    e.*,
    CASE
      WHEN e.base_rule IN ('rejected', 'no_signal') THEN CAST(0 AS DECIMAL(6, 3))
      WHEN e.exploited THEN least(CAST(10 AS DECIMAL(6, 3)), greatest(e.base_dec, CAST(7.0 AS DECIMAL(6, 3))) + 1.0)
      WHEN e.epss_score >= 0.50 THEN least(CAST(10 AS DECIMAL(6, 3)), e.base_dec + 1.0)
      WHEN e.epss_score >= 0.10 THEN least(CAST(10 AS DECIMAL(6, 3)), e.base_dec + 0.5)
      ELSE e.base_dec
    END AS escalated
  FROM esc e
), score_final AS (
SELECT
  r.*,
  r.base_rule NOT IN ('rejected', 'no_signal') AS score_assessed,
  CASE r.base_rule WHEN 'rejected' THEN 'rejected' WHEN 'no_signal' THEN 'no_signal' END AS score_unassessed_reason,
  r.base_rule NOT IN ('rejected', 'no_signal') AND r.escalated < 0.4 AS floor_applied,
  CASE WHEN r.base_rule IN ('rejected', 'no_signal') THEN 0.0
       ELSE clamped_service_score(r.escalated)
  END AS service_score
FROM raised r
),
-- 3h. Severity bands, confidence, risk and the SSVC decision.
vec AS (
  SELECT f.*, cvss_metrics(f.base_vector) AS m
  FROM score_final f
), factors AS (
  SELECT
    v.*,
    CAST(CASE
      WHEN v.ssvc_automatable = 'yes' THEN 1.0
      WHEN v.ssvc_automatable = 'no' THEN 0.0
      WHEN v.base_vector IS NULL THEN 0.0
      ELSE vector_automatable(v.m, v.base_v2_user_interaction)
    END AS DOUBLE) AS automatable_value,
    CAST(CASE
      WHEN v.exploited THEN 1.0
      ELSE greatest(coalesce(v.epss_score, 0.0),
                    CASE WHEN v.exploit_poc_available OR v.ssvc_exploitation = 'poc' THEN 0.5 ELSE 0.0 END)
    END AS DOUBLE) AS exploitation_value,
    CASE WHEN v.score_assessed THEN v.service_score / 10.0 ELSE 0.0 END AS severity_norm
  FROM vec v
), decision AS (
  SELECT
    fa.*,
    coalesce(fa.ssvc_exploitation,
             CASE WHEN fa.exploited THEN 'active'
                  WHEN fa.exploit_poc_available OR fa.epss_score >= 0.10 THEN 'poc'
                  ELSE 'none' END) AS dp_exploitation,
    coalesce(fa.ssvc_automatable, CASE WHEN fa.automatable_value >= 0.5 THEN 'yes' ELSE 'no' END) AS dp_automatable,
    coalesce(fa.ssvc_technical_impact,
             -- v2 spells full impact C (complete), v3/v4 H.
             CASE WHEN fa.m.c IN ('H', 'C') AND fa.m.i IN ('H', 'C') AND fa.m.a IN ('H', 'C') THEN 'total' ELSE 'partial' END) AS dp_technical_impact
  FROM factors fa
)
SELECT
  d.*,
  CASE
    WHEN NOT d.score_assessed THEN 'NONE'
    ELSE service_severity_of(d.service_score)
  END AS service_severity,
  -- `severity`: NVD's CVSS v3 label of the chosen v3 metric (computed from its score when the
  -- record states none), NONE when there is no v3.
  CASE
    WHEN d.v3_score IS NULL THEN 'NONE'
    WHEN upper(d.v3_severity_raw) IN ('CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'NONE') THEN upper(d.v3_severity_raw)
    WHEN d.v3_score >= 9.0 THEN 'CRITICAL' WHEN d.v3_score >= 7.0 THEN 'HIGH'
    WHEN d.v3_score >= 4.0 THEN 'MEDIUM' WHEN d.v3_score > 0 THEN 'LOW' ELSE 'NONE'
  END AS severity,
  (CASE WHEN d.has_nvd_cvss THEN 1 ELSE 0 END
   + CASE WHEN d.has_cna_cvss THEN 1 ELSE 0 END
   + CASE WHEN d.ghsa_cvss.score IS NOT NULL OR d.ghsa_band.band IS NOT NULL THEN 1 ELSE 0 END
   + CASE WHEN d.vendor_band.band IS NOT NULL THEN 1 ELSE 0 END
   + CASE WHEN d.epss_score IS NOT NULL THEN 1 ELSE 0 END
   + CASE WHEN d.exploited THEN 1 ELSE 0 END
   + CASE WHEN d.exploit_poc_available THEN 1 ELSE 0 END) AS signal_count,
  CASE WHEN d.rejected THEN 0.0
       ELSE service_risk_of(d.severity_norm, d.exploitation_value, d.automatable_value)
  END AS service_risk,
  CASE
    WHEN d.rejected THEN 'Track'
    ELSE (SELECT CASE '{{mission_wellbeing}}' WHEN 'low' THEN t.low WHEN 'high' THEN t.high ELSE t.medium END
          FROM ssvc_tree t
          WHERE t.exploitation = d.dp_exploitation AND t.automatable = d.dp_automatable AND t.technical_impact = d.dp_technical_impact)
  END AS service_ssvc_decision
FROM decision d;
DROP TABLE score_inputs;
DROP TABLE ssvc_tree;
