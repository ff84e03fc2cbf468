-- Step 8 — summary and trends, precomputed (contract 2.4, 2.7). Counts cover active CVEs, the
-- same population as the default `/cves` listing; buckets always sum to `total`.

CREATE TABLE summary AS
SELECT
  count(*) AS total,
  count(*) FILTER (service_severity = 'CRITICAL') AS critical,
  count(*) FILTER (service_severity = 'HIGH') AS high,
  count(*) FILTER (service_severity = 'MEDIUM') AS medium,
  count(*) FILTER (service_severity = 'LOW') AS low,
  count(*) FILTER (service_severity = 'NONE') AS unscored,
  count(*) FILTER (severity = 'CRITICAL') AS nvd_critical,
  count(*) FILTER (severity = 'HIGH') AS nvd_high,
  count(*) FILTER (severity = 'MEDIUM') AS nvd_medium,
  count(*) FILTER (severity = 'LOW') AS nvd_low,
  count(*) FILTER (severity NOT IN ('CRITICAL', 'HIGH', 'MEDIUM', 'LOW')) AS nvd_none,
  count(*) FILTER (in_kev) AS kev,
  count(*) FILTER (svc_kev) AS svc_kev,
  count(*) FILTER (exploit_poc_available) AS exploit_poc_available,
  count(*) FILTER (cvss_v3_score = 0 AND cvss_v2_score > 0) AS v2_only,
  count(*) FILTER (score_unassessed_reason = 'no_signal') AS no_signal,
  (SELECT count(*) FROM cves WHERE status = 'rejected') AS rejected,
  strftime(max(published), '%Y-%m-%dT%H:%M:%S.%gZ') AS newest_published,
  strftime(max(last_modified), '%Y-%m-%dT%H:%M:%S.%gZ') AS newest_modified
FROM cves WHERE status = 'active';

-- One definition for every period length: counts by service severity per period.
CREATE MACRO severity_trend(unit) AS TABLE
SELECT
  CAST(date_trunc(unit, published) AS DATE) AS period_start,
  count(*) AS total,
  count(*) FILTER (service_severity = 'CRITICAL') AS critical,
  count(*) FILTER (service_severity = 'HIGH') AS high,
  count(*) FILTER (service_severity = 'MEDIUM') AS medium,
  count(*) FILTER (service_severity = 'LOW') AS low,
  count(*) FILTER (service_severity = 'NONE') AS unscored,
  count(*) FILTER (in_kev) AS kev
FROM cves WHERE status = 'active'
GROUP BY ALL ORDER BY period_start;

CREATE TABLE trends_weekly AS SELECT * FROM severity_trend('week');
CREATE TABLE trends_monthly AS SELECT * FROM severity_trend('month');
