-- Step 2 — merge: keep one version of every record, then gather per CVE what each source says.
-- No scoring here: this step only decides which data is current.
--
-- Here and in the steps after it, a table that no later statement reads is dropped right after
-- its last reader. The build's tables live in memory up to its memory limit, and past it they
-- spill to disk: dropping tables at the end of a step instead left 3.7 GB spilled by the middle
-- of step 4 at full scale (1.3–1.5 GB this way), and the SQL took ~5 s longer on average.
-- Sorted distinct lists are written list_sort(list_distinct(list(x))), not
-- list(DISTINCT x ORDER BY x): an ordered aggregate sorts each group's rows apart (the
-- references' sources took 0.8 s more at full scale). Where x is never NULL, as in every use
-- in sql/ (steps 3, 5 and 10), the two are the same list.

-- The raw paths behind the staged rows' `file` ids: only the sources' freshness reads them,
-- right after step 1 (cli/build/manifest.ts).
DROP TABLE stg_file;

-- One NVD version per CVE: the latest lastModified (a later page file breaks ties).
CREATE TABLE nvd_latest AS
SELECT * FROM stg_nvd_cve
QUALIFY row_number() OVER (PARTITION BY cve_id ORDER BY last_modified DESC, file DESC) = 1;
DROP TABLE stg_nvd_cve;

-- One CVE 5 record per CVE: the latest cveMetadata.dateUpdated (baseline vs. delta zips).
CREATE TABLE cve5_latest AS
SELECT * FROM stg_cve5
QUALIFY row_number() OVER (PARTITION BY cve_id ORDER BY date_updated DESC NULLS LAST, file DESC) = 1;
DROP TABLE stg_cve5;

-- The documents whose child rows are current; children of superseded versions are dropped, so
-- a CVE that moved from Modified to Rejected loses its old metrics.
CREATE TABLE current_docs AS
SELECT cve_id, file, 'nvd' AS feed FROM nvd_latest
UNION ALL
SELECT cve_id, file, 'cve5' AS feed FROM cve5_latest;

CREATE TABLE cvss_current AS
SELECT s.* FROM stg_cvss s SEMI JOIN current_docs d ON s.cve_id = d.cve_id AND s.file = d.file AND s.feed = d.feed
WHERE s.base_score IS NOT NULL;
DROP TABLE stg_cvss;

CREATE TABLE ssvc_current AS
SELECT s.* FROM stg_ssvc s SEMI JOIN current_docs d ON s.cve_id = d.cve_id AND s.file = d.file AND s.feed = d.feed;
DROP TABLE stg_ssvc;

CREATE TABLE product_current AS
SELECT s.* FROM stg_product s SEMI JOIN current_docs d ON s.cve_id = d.cve_id AND s.file = d.file AND s.feed = d.feed;
DROP TABLE stg_product;

CREATE TABLE reference_current AS
SELECT s.* FROM stg_reference s SEMI JOIN current_docs d ON s.cve_id = d.cve_id AND s.file = d.file AND s.feed = d.feed;
DROP TABLE stg_reference;

-- Every CVE the service knows: an NVD record or a CVE 5 record.
CREATE TABLE cve_base AS
SELECT
  coalesce(n.cve_id, c.cve_id) AS cve_id,
  coalesce(n.published, c.date_published, c.date_updated, c.date_reserved) AS published,
  greatest(n.last_modified, c.date_updated) AS last_modified,
  coalesce(c.state, CASE WHEN n.vuln_status = 'Rejected' THEN 'REJECTED' ELSE 'PUBLISHED' END) AS state,
  n.vuln_status,
  (n.vuln_status = 'Rejected' OR c.state = 'REJECTED') IS TRUE AS rejected,
  coalesce(c.assigner_short_name, n.source_identifier) AS assigner,
  lower(c.assigner_short_name) AS assigner_slug,
  c.title,
  coalesce(n.description, c.description, c.rejected_reason) AS description,
  -- NVD's copy of the CNA's tags, then any the CVE List's record holds that NVD has not
  -- copied yet (a CVE the CNA marked `disputed` before NVD analysed it).
  list_concat(coalesce(n.cve_tags, []), list_filter(coalesce(c.cna_tags, []), t -> NOT list_contains(coalesce(n.cve_tags, []), t))) AS cve_tags,
  n.last_modified AS nvd_last_modified,
  c.cna_date_updated,
  n.kev_date_added AS nvd_kev_date_added,
  n.kev_due_date AS nvd_kev_due_date,
  n.kev_required_action AS nvd_kev_required_action,
  n.kev_vulnerability_name AS nvd_kev_vulnerability_name,
  c.adp_kev_date_added,
  n.cve_id IS NOT NULL AS has_nvd,
  c.cve_id IS NOT NULL AS has_cve5
FROM nvd_latest n
FULL OUTER JOIN cve5_latest c ON n.cve_id = c.cve_id;
DROP TABLE nvd_latest;
DROP TABLE cve5_latest;

-- OSV records: the latest version of each id; withdrawn records are tombstones.
CREATE TABLE osv_latest AS
SELECT * FROM stg_osv_advisory
QUALIFY row_number() OVER (PARTITION BY advisory_id ORDER BY modified DESC NULLS LAST, file DESC) = 1;
DROP TABLE stg_osv_advisory;

CREATE TABLE osv_cve AS
SELECT DISTINCT o.advisory_id, o.database, unnest(o.cve_ids) AS cve_id
FROM osv_latest o WHERE o.withdrawn IS NULL;

-- Vendor advisories: the latest revision of each (vendor, advisory_id).
CREATE TABLE vendor_advisory_latest AS
SELECT * FROM stg_vendor_advisory
QUALIFY row_number() OVER (PARTITION BY vendor, advisory_id ORDER BY modified DESC NULLS LAST, file DESC) = 1;
DROP TABLE stg_vendor_advisory;

CREATE TABLE vendor_advisory_cve_current AS
SELECT DISTINCT ON (s.vendor, s.advisory_id, s.cve_id) s.*
FROM stg_vendor_advisory_cve s
SEMI JOIN vendor_advisory_latest a ON s.vendor = a.vendor AND s.advisory_id = a.advisory_id AND s.file = a.file
ORDER BY s.vendor, s.advisory_id, s.cve_id, s.exploited DESC;
DROP TABLE stg_vendor_advisory_cve;

-- KEV: the catalog, else NVD's mirror, else the CISA ADP container.
CREATE TABLE kev_current AS
SELECT * FROM stg_kev
QUALIFY row_number() OVER (PARTITION BY cve_id ORDER BY catalog_version DESC NULLS LAST, date_added) = 1;
DROP TABLE stg_kev;

-- EPSS: the newest score date per CVE.
CREATE TABLE epss_current AS
SELECT * FROM stg_epss
QUALIFY row_number() OVER (PARTITION BY cve_id ORDER BY score_date DESC NULLS LAST, epss DESC) = 1;
DROP TABLE stg_epss;

-- Exploit records, one per (source, id) and CVE.
CREATE TABLE exploit_current AS
SELECT DISTINCT ON (cve_id, source, exploit_id) * FROM stg_exploit
ORDER BY cve_id, source, exploit_id, published NULLS LAST;
DROP TABLE stg_exploit;

-- SSVC decision points: the newest assessment (CVE 5 ADP wins a tie).
CREATE TABLE ssvc_pick AS
SELECT cve_id, exploitation, automatable, technical_impact, timestamp, feed
FROM ssvc_current
QUALIFY row_number() OVER (PARTITION BY cve_id ORDER BY timestamp DESC NULLS LAST, (feed = 'cve5') DESC) = 1;
DROP TABLE ssvc_current;

-- CWEs per CVE: NVD weaknesses, CVE 5 problem types, KEV cwes (real CWE ids only).
CREATE TABLE cve_cwe_current AS
SELECT DISTINCT s.cve_id, s.cwe_id
FROM stg_cve_cwe s
WHERE (s.feed NOT IN ('nvd', 'cve5')
       OR EXISTS (SELECT 1 FROM current_docs d WHERE d.cve_id = s.cve_id AND d.file = s.file AND d.feed = s.feed))
UNION
SELECT k.cve_id, unnest(k.cwes) FROM kev_current k;
DROP TABLE stg_cve_cwe;
DROP TABLE current_docs;

-- CWE catalog: one row per id.
CREATE TABLE cwe_catalog AS
SELECT DISTINCT ON (cwe_id) * FROM stg_cwe ORDER BY cwe_id, status;
DROP TABLE stg_cwe;
