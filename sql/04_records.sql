-- Step 4 — records: one published row per CVE with every field of contract 2.1–2.2, the
-- evidence behind each number (`score_factors`), and the API's JSON text precomputed so the
-- server sends bytes instead of re-serialising rows.

CREATE TABLE cve_cwes_by_cve AS
SELECT cve_id, list(cwe_id ORDER BY TRY_CAST(regexp_extract(cwe_id, '(\d+)$', 1) AS INTEGER) NULLS LAST, cwe_id) AS cwe_ids
FROM cve_cwe_current WHERE cwe_id LIKE 'CWE-%' GROUP BY cve_id;

-- One statement: the typed columns (`typed`), then the API's JSON of each row beside them.
CREATE TABLE cves AS
WITH s AS (
  SELECT
    sc.*,
    coalesce(cw.cwe_ids, []) AS cwe_ids,
    CASE
      WHEN NOT sc.score_assessed THEN 'NONE'
      WHEN sc.base_rule = 'vendor_severity' THEN 'LOW'  -- a vendor's band alone is weak evidence (DESIGN §5.2e)
      WHEN sc.signal_count >= 3 THEN 'HIGH'
      WHEN sc.signal_count = 2 THEN 'MEDIUM'
      ELSE 'LOW'
    END AS score_confidence,
    list_filter([
      sc.base_rule,
      sc.escalation_rule,
      CASE WHEN sc.floor_applied THEN 'score_floor' END
    ], x -> x IS NOT NULL) AS rule_triggered,
    list_filter([
      CASE WHEN sc.has_nvd THEN 'nvd' END,
      CASE WHEN sc.has_cve5 THEN 'cve_list' END,
      CASE WHEN sc.ssvc_feed IS NOT NULL OR sc.adp_kev_date_added IS NOT NULL THEN 'cisa_adp' END,
      CASE WHEN sc.in_kev THEN 'kev' END,
      CASE WHEN sc.epss_score IS NOT NULL THEN 'epss' END,
      CASE WHEN sc.ghsa_ids IS NOT NULL THEN 'ghsa' END
    ], x -> x IS NOT NULL)
      -- list_distinct keeps no order (a hash's): sorted, so every build names the vendors alike.
      || coalesce(list_transform(list_sort(list_distinct(list_transform(sc.vendor_advisories, a -> a.vendor))), v -> 'vendor:' || v), [])
      || sc.exploit_sources AS sources_contributing,
    CASE
      WHEN sc.in_kev THEN 'listed in CISA KEV'
      WHEN sc.svc_kev THEN 'exploited in the wild (' || coalesce(array_to_string(sc.vendor_exploited_evidence, '; '), 'CISA ADP SSVC exploitation: active') || ')'
      WHEN sc.exploitation_value = 0 THEN 'no exploitation evidence'
      WHEN sc.exploitation_value = coalesce(sc.epss_score, -1) THEN 'EPSS probability ' || printf('%.5f', sc.epss_score)
      ELSE 'public exploit or proof of concept'
    END AS exploitation_reason,
    CASE
      WHEN sc.ssvc_automatable IS NOT NULL THEN 'SSVC Automatable: ' || sc.ssvc_automatable
      WHEN sc.base_vector IS NULL THEN 'no CVSS vector'
      WHEN sc.automatable_value = 0.5 THEN 'network vector, low complexity, no privileges, no user interaction'
      ELSE 'vector needs local/adjacent access, high complexity, privileges or user interaction'
    END AS automatable_reason
  FROM scored sc
  LEFT JOIN cve_cwes_by_cve cw USING (cve_id)
),
typed AS (
SELECT
  s.cve_id,
  s.published,
  s.last_modified,
  CAST(year(s.published) AS INTEGER) AS year,
  CASE WHEN s.rejected THEN 'rejected' ELSE 'active' END AS status,
  s.state,
  s.vuln_status,
  s.assigner,
  s.title,
  s.description,
  s.cve_tags,
  s.severity,
  coalesce(s.v3_score, 0.0) AS cvss_v3_score,
  s.v3_vector AS cvss_v3_vector,
  s.v3_version AS cvss_v3_version,
  s.v3_assessor AS cvss_v3_source,
  coalesce(s.v4.score, 0.0) AS cvss_v4_score,
  s.v4.vector AS cvss_v4_vector,
  CASE WHEN s.v4.score IS NULL THEN NULL
       WHEN s.v4.score >= 9 THEN 'CRITICAL' WHEN s.v4.score >= 7 THEN 'HIGH'
       WHEN s.v4.score >= 4 THEN 'MEDIUM' WHEN s.v4.score > 0 THEN 'LOW' ELSE 'NONE' END AS cvss_v4_severity,
  coalesce(s.v2.score, 0.0) AS cvss_v2_score,
  CASE WHEN s.v2.score IS NULL THEN NULL
       WHEN s.v2.score >= 7 THEN 'HIGH' WHEN s.v2.score >= 4 THEN 'MEDIUM' ELSE 'LOW' END AS cvss_v2_severity,
  s.v2.vector AS cvss_v2_vector,
  greatest(s.v3_score, s.v4.score, s.v2.score) AS max_cvss,
  s.epss_score,
  s.epss_percentile,
  s.epss_date,
  s.in_kev,
  s.kev_added_date,
  s.kev_due_date,
  s.kev_ransomware_use,
  s.kev_required_action,
  s.kev_vulnerability_name,
  s.svc_kev,
  s.exploit_poc_available,
  CAST(s.exploit_count AS INTEGER) AS exploit_count,
  s.cwe_ids,
  coalesce(s.ghsa_ids, []) AS ghsa_ids,
  coalesce(s.vendor_advisories, []) AS vendor_advisories,
  s.service_score,
  s.score_assessed,
  s.score_unassessed_reason,
  s.service_severity,
  s.service_risk,
  s.service_ssvc_decision,
  s.score_confidence,
  s.vendor_band.band AS vendor_severity,
  s.vendor_band.source AS vendor_severity_source,
  s.vendor_band.evidence AS vendor_severity_evidence,
  struct_pack(
    rule_triggered := s.rule_triggered,
    sources_contributing := s.sources_contributing,
    base_score := s.base_score,
    cvss := struct_pack(
      basis := s.base_rule,
      version := CASE s.base_rule WHEN 'cvss_v3' THEN s.v3_version WHEN 'cvss_v3_freshest' THEN s.v3_version
                   WHEN 'cvss_v4' THEN '4.0' WHEN 'cvss_v2_only' THEN '2.0'
                   WHEN 'ghsa_cvss' THEN regexp_extract(s.ghsa_cvss.vector, '^CVSS:(\d\.\d)', 1) END,
      score := s.base_score,
      vector := s.base_vector,
      assessor := CASE s.base_rule WHEN 'cvss_v3' THEN s.v3_assessor WHEN 'cvss_v3_freshest' THEN s.v3_assessor
                    WHEN 'cvss_v4' THEN s.v4.role WHEN 'cvss_v2_only' THEN s.v2.role
                    WHEN 'ghsa_cvss' THEN 'ghsa' WHEN 'vendor_severity' THEN 'vendor' WHEN 'ghsa_severity' THEN 'ghsa' END,
      provider := CASE s.base_rule WHEN 'cvss_v3' THEN s.v3_provider WHEN 'cvss_v3_freshest' THEN s.v3_provider
                    WHEN 'cvss_v4' THEN s.v4.provider WHEN 'cvss_v2_only' THEN s.v2.provider
                    WHEN 'ghsa_cvss' THEN s.ghsa_cvss.advisory_id WHEN 'ghsa_severity' THEN s.ghsa_band.advisory_id
                    WHEN 'vendor_severity' THEN s.vendor_band.vendor || '/' || s.vendor_band.advisory_id END,
      nvd_v3_score := s.nvd_v3_score,
      nvd_v3_modified := strftime(s.nvd_v3_modified, '%Y-%m-%dT%H:%M:%S.%gZ'),
      cna_v3_score := s.cna_v3_score,
      cna_v3_modified := strftime(s.cna_v3_modified, '%Y-%m-%dT%H:%M:%S.%gZ'),
      freshest := CASE WHEN s.v3_disagree THEN s.v3_assessor END
    ),
    epss := struct_pack(
      probability := s.epss_score,
      percentile := s.epss_percentile,
      score_date := s.epss_date,
      model_version := s.epss_model_version,
      escalation := CASE WHEN s.exploited OR s.epss_score IS NULL OR NOT s.score_assessed THEN NULL
                         WHEN s.epss_score >= 0.50 THEN 1.0::DOUBLE WHEN s.epss_score >= 0.10 THEN 0.5::DOUBLE END
    ),
    kev := struct_pack(
      listed := s.in_kev,
      date_added := s.kev_added_date,
      due_date := s.kev_due_date,
      known_ransomware_campaign_use := s.kev_ransomware_use
    ),
    svc_kev := struct_pack(
      exploited := s.svc_kev,
      ssvc_exploitation_active := s.ssvc_exploitation = 'active',
      vendor_evidence := coalesce(s.vendor_exploited_evidence, [])
    ),
    ssvc := struct_pack(
      exploitation := s.dp_exploitation,
      automatable := s.dp_automatable,
      technical_impact := s.dp_technical_impact,
      mission_wellbeing := '{{mission_wellbeing}}',
      from_cisa_adp := s.ssvc_exploitation IS NOT NULL OR s.ssvc_automatable IS NOT NULL OR s.ssvc_technical_impact IS NOT NULL,
      decision := s.service_ssvc_decision
    ),
    svc_risk := struct_pack(
      risk := s.service_risk,
      severity_norm := round(s.severity_norm, 3),
      exploitation := round(s.exploitation_value, 5),
      automatable := s.automatable_value,
      weights := struct_pack(severity := 0.45::DOUBLE, exploitation := 0.40::DOUBLE, automatable := 0.15::DOUBLE),
      about := 'service_risk is a 0-100 priority, not a severity: 45% severity (service_score / 10), 40% exploitation (1.0 when listed in KEV or otherwise known exploited, else the EPSS probability, at least 0.5 with a public exploit) and 15% automatability (SSVC Automatable, else from the CVSS vector). Higher means act sooner.',
      summary := CASE
        WHEN s.rejected THEN 'Risk 0: the record was rejected by its CNA or NVD.'
        ELSE printf('Risk %.1f = 45%% x severity %.2f (%s) + 40%% x exploitation %.2f (%s) + 15%% x automatable %.1f (%s).',
                    s.service_risk, s.severity_norm,
                    CASE WHEN s.score_assessed THEN 'service_score ' || printf('%.1f', s.service_score) ELSE 'not assessed: no source has published severity data' END,
                    s.exploitation_value, s.exploitation_reason, s.automatable_value, s.automatable_reason)
      END
    )
  ) AS score_factors
FROM s
-- The published order (DESIGN §4), sorted once here while the rows are narrow; the JSON and the
-- Parquet files keep it.
ORDER BY s.published DESC, s.cve_id DESC
)
-- The API's JSON for each record. score_unassessed_reason is absent when assessed (contract 2.2).
SELECT
  * EXCLUDE (j),
  -- Removing the one fragment as text: json_merge_patch would re-parse every record. The
  -- fragment cannot occur inside a string value, where quotes are escaped.
  CASE WHEN score_assessed THEN replace(CAST(j AS VARCHAR), '"score_unassessed_reason":null,', '') ELSE CAST(j AS VARCHAR) END AS record_json
FROM (
  SELECT *, to_json(struct_pack(
    cve_id := cve_id,
    published := strftime(published, '%Y-%m-%dT%H:%M:%S.%gZ'),
    last_modified := strftime(last_modified, '%Y-%m-%dT%H:%M:%S.%gZ'),
    status := status,
    state := state,
    vuln_status := vuln_status,
    assigner := assigner,
    title := title,
    description := description,
    cve_tags := cve_tags,
    severity := severity,
    cvss_v3_score := cvss_v3_score,
    cvss_v3_vector := cvss_v3_vector,
    cvss_v3_version := cvss_v3_version,
    cvss_v3_source := cvss_v3_source,
    cvss_v4_score := cvss_v4_score,
    cvss_v4_vector := cvss_v4_vector,
    cvss_v4_severity := cvss_v4_severity,
    cvss_v2_score := cvss_v2_score,
    cvss_v2_severity := cvss_v2_severity,
    cvss_v2_vector := cvss_v2_vector,
    max_cvss := max_cvss,
    epss_score := epss_score,
    epss_percentile := epss_percentile,
    epss_date := epss_date,
    kev := in_kev,
    kev_added_date := kev_added_date,
    kev_due_date := kev_due_date,
    kev_known_ransomware_campaign_use := kev_ransomware_use,
    kev_required_action := kev_required_action,
    svc_kev := svc_kev,
    exploit_poc_available := exploit_poc_available,
    exploit_count := exploit_count,
    cwe_ids := cwe_ids,
    ghsa_ids := ghsa_ids,
    vendor_advisories := vendor_advisories,
    service_score := service_score,
    score_assessed := score_assessed,
    score_unassessed_reason := score_unassessed_reason,
    service_severity := service_severity,
    service_risk := service_risk,
    service_ssvc_decision := service_ssvc_decision,
    score_confidence := score_confidence,
    vendor_severity := vendor_severity,
    vendor_severity_source := vendor_severity_source,
    vendor_severity_evidence := vendor_severity_evidence,
    score_factors := score_factors
  )) AS j
  FROM typed
);
DROP TABLE cve_cwes_by_cve;
DROP TABLE scored;
