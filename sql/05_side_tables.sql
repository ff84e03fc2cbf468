-- Step 5 — side tables: the per-CVE enrichment the API and analysts read beside `cves`:
-- affected packages with their fix ranges, products, references, exploits, advisories, CWEs.

-- Affected packages from OSV records: every branch of every range, in each record's order
-- (contract 2.6). Each branch keeps its range's type (SEMVER, ECOSYSTEM, GIT: which version
-- order applies) and the range's `limit` (versions at or above it are outside the range), so
-- a version can be judged against the branch alone (api/packages, `vulnintel scan`). A package entry with no range gives `fixed_branches = []` (ranges were
-- loaded, none is on record).
CREATE TABLE osv_package_current AS
SELECT p.* FROM stg_osv_package p SEMI JOIN osv_latest o ON o.advisory_id = p.advisory_id AND o.file = p.file;
DROP TABLE stg_osv_package;

CREATE TABLE osv_range_current AS
SELECT r.* FROM stg_osv_range r SEMI JOIN osv_latest o ON o.advisory_id = r.advisory_id AND o.file = r.file;
DROP TABLE stg_osv_range;

CREATE TABLE osv_affected AS
SELECT
  oc.cve_id,
  p.ecosystem,
  p.package_name,
  min(p.purl) AS purl,
  list_sort(list_distinct(list(p.advisory_id))) AS advisory_ids,
  flatten(list(p.versions ORDER BY p.advisory_id, p.affected_index)) AS versions,
  max(p.last_known_affected_version_range) AS last_known_affected_version_range
FROM osv_cve oc
JOIN osv_package_current p ON p.advisory_id = oc.advisory_id
GROUP BY oc.cve_id, p.ecosystem, p.package_name;

CREATE TABLE osv_branches AS
SELECT
  oc.cve_id,
  p.ecosystem,
  p.package_name,
  list(struct_pack(introduced := r.introduced, fixed := r.fixed, last_affected := r.last_affected,
                   source := oc.database, advisory_id := r.advisory_id,
                   range_type := r.range_type, "limit" := r."limit")
       ORDER BY r.advisory_id, r.affected_index, r.range_index, r.branch_index) AS fixed_branches
FROM osv_cve oc
JOIN osv_package_current p ON p.advisory_id = oc.advisory_id
JOIN osv_range_current r ON r.advisory_id = p.advisory_id AND r.affected_index = p.affected_index
GROUP BY oc.cve_id, p.ecosystem, p.package_name;

-- Advisories no CVE of the snapshot names (no CVE alias at all, such as malware records and many
-- GHSA-only ones, or only CVEs not yet published by NVD or the CVE List): their packages and
-- ranges, as affected_packages holds a CVE's, so a version they hold is never answered "not
-- affected" (api/packages, `vulnintel scan`). Records are one vulnerability when tied by an alias
-- (either way, through any number of records: a GHSA and its MAL- or PYSEC- twins) or by a CVE
-- the snapshot does not hold that both name (a USN and the UBUNTU-CVE record it fixes): one
-- group, named by the least of its records' ids, with the ranges of all. A group holding a record
-- that names a CVE of the snapshot is that CVE's and left out whole: the CVE's row judges the
-- package, from the records that name the CVE (a twin's own ranges are not added to it). Each
-- group is scored from its records alone by the rules of DESIGN §5 (the macros of
-- sql/03_score.sql), with the evidence a CVE's score reads of them: the highest-scoring GHSA CVSS
-- vector, else the highest GHSA severity band; no KEV, EPSS or exploit record can name it, so
-- nothing escalates it and its exploitation factor is 0.
CREATE TABLE advisory_groups AS
WITH RECURSIVE live AS (
  SELECT advisory_id, aliases FROM osv_latest WHERE withdrawn IS NULL
), named AS (
  SELECT DISTINCT oc.advisory_id FROM osv_cve oc JOIN cves c ON c.cve_id = oc.cve_id
), links AS (
  -- A CVE of the snapshot ties nothing more: every record naming it is named.
  SELECT l.advisory_id AS a, x.alias AS b
  FROM live l, unnest(l.aliases) AS x(alias)
  WHERE x.alias NOT IN (SELECT cve_id FROM cves)
  UNION ALL
  SELECT oc.advisory_id, oc.cve_id FROM osv_cve oc WHERE oc.cve_id NOT IN (SELECT cve_id FROM cves)
), edges AS (
  SELECT a, b FROM links UNION SELECT b, a FROM links
), reach (node, label) AS (
  -- Every id (record, alias, CVE) each live record reaches; UNION keeps each pair once, so it ends.
  SELECT advisory_id, advisory_id FROM live
  UNION
  SELECT e.b, r.label FROM reach r JOIN edges e ON e.a = r.node
), components AS (
  -- A record's labels are the live records of its group.
  SELECT r.node AS advisory_id, min(r.label) AS group_id, bool_or(r.label IN (SELECT advisory_id FROM named)) AS covered
  FROM reach r
  WHERE r.node IN (SELECT advisory_id FROM live)
  GROUP BY r.node
)
SELECT advisory_id, group_id FROM components WHERE NOT covered;

CREATE TABLE advisory_scores AS
WITH evidence AS (
  SELECT
    g.group_id,
    arg_max(struct_pack(score := coalesce(o.cvss_v3_score, o.cvss_v4_score),
                        vector := CASE WHEN o.cvss_v3_score IS NOT NULL THEN o.cvss_v3_vector ELSE o.cvss_v4_vector END),
            (coalesce(o.cvss_v3_score, o.cvss_v4_score), o.advisory_id))
      FILTER (o.database = 'ghsa' AND coalesce(o.cvss_v3_score, o.cvss_v4_score) IS NOT NULL) AS cvss,
    max(CASE upper(o.severity_band) WHEN 'CRITICAL' THEN 4 WHEN 'HIGH' THEN 3 WHEN 'MODERATE' THEN 2 WHEN 'MEDIUM' THEN 2 WHEN 'LOW' THEN 1 END)
      FILTER (o.database = 'ghsa') AS band_rank
  FROM advisory_groups g JOIN osv_latest o USING (advisory_id)
  GROUP BY g.group_id
), scored AS (
  SELECT
    group_id, cvss.vector AS cvss_vector,
    coalesce(cvss.score, band_base_score(CASE band_rank WHEN 4 THEN 'CRITICAL' WHEN 3 THEN 'HIGH' WHEN 2 THEN 'MEDIUM' WHEN 1 THEN 'LOW' END)) AS base_score
  FROM evidence
), assessed AS (
  SELECT *,
    base_score IS NOT NULL AS score_assessed,
    CASE WHEN base_score IS NULL THEN 0.0 ELSE clamped_service_score(CAST(base_score AS DECIMAL(6, 3))) END AS service_score,
    CAST(CASE WHEN cvss_vector IS NULL THEN 0.0 ELSE vector_automatable(cvss_metrics(cvss_vector), NULL) END AS DOUBLE) AS automatable
  FROM scored
)
SELECT
  group_id, score_assessed, service_score,
  CASE WHEN score_assessed THEN service_severity_of(service_score) ELSE 'NONE' END AS service_severity,
  service_risk_of(CASE WHEN score_assessed THEN service_score / 10.0 ELSE 0.0 END, 0.0, automatable) AS service_risk
FROM assessed;

CREATE TABLE advisory_packages AS
WITH packages AS (
  SELECT
    g.group_id, p.ecosystem, p.package_name,
    list_sort(list_distinct(list(p.advisory_id))) AS advisory_ids,
    min(p.purl) AS purl,
    flatten(list(p.versions ORDER BY p.advisory_id, p.affected_index)) AS versions,
    max(p.last_known_affected_version_range) AS last_known_affected_version_range
  FROM advisory_groups g JOIN osv_package_current p USING (advisory_id)
  GROUP BY g.group_id, p.ecosystem, p.package_name
), branches AS (
  SELECT
    g.group_id, p.ecosystem, p.package_name,
    list(struct_pack(introduced := r.introduced, fixed := r.fixed, last_affected := r.last_affected,
                     source := o.database, advisory_id := r.advisory_id,
                     range_type := r.range_type, "limit" := r."limit")
         ORDER BY r.advisory_id, r.affected_index, r.range_index, r.branch_index) AS fixed_branches
  FROM advisory_groups g
  JOIN osv_latest o USING (advisory_id)
  JOIN osv_package_current p ON p.advisory_id = g.advisory_id
  JOIN osv_range_current r ON r.advisory_id = p.advisory_id AND r.affected_index = p.affected_index
  GROUP BY g.group_id, p.ecosystem, p.package_name
)
SELECT
  pk.group_id AS advisory_id, pk.advisory_ids, pk.ecosystem, pk.package_name, pk.purl,
  coalesce(b.fixed_branches, []) AS fixed_branches,
  list_filter(list_transform(coalesce(b.fixed_branches, []), x -> x.fixed), f -> f IS NOT NULL)[1] AS fixed_version,
  pk.versions, pk.last_known_affected_version_range,
  a.service_risk, a.service_score, a.service_severity, a.score_assessed
FROM packages pk
JOIN advisory_scores a USING (group_id)
LEFT JOIN branches b USING (group_id, ecosystem, package_name);
DROP TABLE advisory_groups;
DROP TABLE advisory_scores;

DROP TABLE osv_range_current;

-- Packages named only by a CVE 5 / NVD `affected[]` entry: their ranges were never loaded as
-- OSV ranges, so `fixed_branches` is null (contract 2.6), never `[]`.
CREATE TABLE record_packages AS
SELECT DISTINCT
  pc.cve_id,
  -- The purl's ecosystem first (the parser maps it as OSV spells it, with the release), then
  -- the registry the collection URL names.
  CASE
    WHEN pc.ecosystem IS NOT NULL THEN pc.ecosystem
    WHEN pc.collection_url ILIKE '%pypi%' THEN 'PyPI'
    WHEN pc.collection_url ILIKE '%npmjs%' THEN 'npm'
    WHEN pc.collection_url ILIKE '%maven%' THEN 'Maven'
    WHEN pc.collection_url ILIKE '%rubygems%' THEN 'RubyGems'
    WHEN pc.collection_url ILIKE '%crates.io%' THEN 'crates.io'
    WHEN pc.collection_url ILIKE '%nuget%' THEN 'NuGet'
    WHEN pc.collection_url ILIKE '%packagist%' THEN 'Packagist'
    WHEN pc.collection_url ILIKE '%go.dev%' OR pc.collection_url ILIKE '%golang%' THEN 'Go'
    -- A purl of a type OSV has no ecosystem for (`pkg:generic/…`): the type, as published.
    WHEN pc.purl LIKE 'pkg:%' THEN regexp_extract(pc.purl, '^pkg:([^/]+)/', 1)
  END AS ecosystem,
  pc.package_name,
  pc.purl
FROM product_current pc
WHERE pc.package_name IS NOT NULL AND pc.package_name <> '' AND lower(pc.package_name) <> 'n/a';

CREATE TABLE affected_packages AS
SELECT
  a.cve_id, a.ecosystem, a.package_name, a.purl, 'osv' AS source, a.advisory_ids,
  coalesce(b.fixed_branches, []) AS fixed_branches,
  list_filter(list_transform(coalesce(b.fixed_branches, []), x -> x.fixed), f -> f IS NOT NULL)[1] AS fixed_version,
  a.versions, a.last_known_affected_version_range
FROM osv_affected a
LEFT JOIN osv_branches b USING (cve_id, ecosystem, package_name)
UNION ALL
SELECT
  r.cve_id, r.ecosystem, r.package_name, r.purl, 'cve_list' AS source, [] AS advisory_ids,
  NULL AS fixed_branches, NULL AS fixed_version, [] AS versions, NULL AS last_known_affected_version_range
FROM record_packages r
-- The same package under the advisory's spelling: names compared as the package index compares
-- them (lib/packages/names.ts): lower case, and a PyPI name PEP 503-normalised (the CNA's
-- `Mooncake_Transfer.Engine` is GHSA's `mooncake-transfer-engine`).
WHERE NOT EXISTS (
  SELECT 1 FROM osv_affected a
  WHERE a.cve_id = r.cve_id
    AND (lower(a.package_name) = lower(r.package_name)
         OR (a.ecosystem = 'PyPI' AND r.ecosystem = 'PyPI'
             AND regexp_replace(lower(a.package_name), '[-_.]+', '-', 'g') = regexp_replace(lower(r.package_name), '[-_.]+', '-', 'g'))));
DROP TABLE osv_affected;
DROP TABLE osv_branches;
DROP TABLE record_packages;

-- Vendor/product pairs (CPE and CNA/ADP `affected[]`), with normalised keys for matching:
-- lower case, spaces as underscores, as CPE spells names. "Spaces" are what JavaScript's \s
-- holds, as the API folds a caller's text (productKey, api/routes/cves.ts): RE2's \s is ASCII
-- only, so a CNA's `Pixcor\u00a0Labs` (a name pasted from a web page) kept its no-break space in
-- the key, which /vendors served and /cves/match, folding it to `_`, never found.
CREATE MACRO product_key_of(name) AS regexp_replace(lower(trim(name)), '[\s\v\p{Z}\x{FEFF}]+', '_', 'g');
CREATE TABLE products AS
SELECT
  cve_id,
  product_key_of(vendor) AS vendor_key,
  product_key_of(product) AS product_key,
  -- The spellings a key gathers (CPE's `pixcor_labs`, the CNA's `pixcor labs`; the parsers
  -- lower-case both): the least, so every build names it alike (a space sorts before an
  -- underscore: the CNA's, where it differs).
  min(vendor) AS vendor,
  min(product) AS product,
  list_sort(list_distinct(list(feed))) AS feeds,
  list_sort(list_distinct(list(cpe) FILTER (cpe IS NOT NULL))) AS cpes
FROM product_current
WHERE vendor IS NOT NULL AND product IS NOT NULL AND lower(vendor) NOT IN ('n/a', '*', '-', '') AND lower(product) NOT IN ('n/a', '*', '-', '')
GROUP BY ALL;
DROP TABLE product_current;

-- Vendor advisories with their CVEs; `has_cve` answers the contract's filter.
CREATE TABLE advisory_cves AS
SELECT v.vendor, v.advisory_id, v.cve_id, v.vendor_severity, v.vendor_severity_source, v.vendor_severity_evidence,
       v.cvss_score, v.cvss_vector, v.cvss_version, v.exploited, v.exploited_evidence, v.cwe_id
FROM vendor_advisory_cve_current v
UNION ALL
-- CVEs named by the document but not as a vulnerability entry (e.g. in notes).
SELECT a.vendor, a.advisory_id, c.cve_id, NULL, NULL, NULL, NULL, NULL, NULL, false, NULL, NULL
FROM (SELECT vendor, advisory_id, unnest(cve_ids) AS cve_id FROM vendor_advisory_latest) c
JOIN vendor_advisory_latest a USING (vendor, advisory_id)
WHERE NOT EXISTS (SELECT 1 FROM vendor_advisory_cve_current v WHERE v.vendor = c.vendor AND v.advisory_id = c.advisory_id AND v.cve_id = c.cve_id);
DROP TABLE vendor_advisory_cve_current;

CREATE TABLE advisories AS
SELECT
  a.vendor, a.advisory_id, a.title, a.description, a.publisher, a.category, a.tlp, a.status, a.version,
  a.published, a.modified, a.aggregate_severity, a.aggregate_severity_namespace,
  a.vendor_severity, a.vendor_severity_source, a.vendor_severity_evidence,
  a.cvss_score, a.cvss_vector, a.products, a.remediations, a."references", a.url,
  coalesce(c.cve_ids, []) AS cve_ids,
  len(coalesce(c.cve_ids, [])) > 0 AS has_cve,
  coalesce(c.exploited, false) AS exploited
FROM vendor_advisory_latest a
LEFT JOIN (
  SELECT vendor, advisory_id, list_sort(list_distinct(list(cve_id))) AS cve_ids, bool_or(exploited) AS exploited
  FROM advisory_cves GROUP BY vendor, advisory_id
) c USING (vendor, advisory_id);

-- OSV/GHSA advisories, live and withdrawn (withdrawn ones are shown as such, never linked).
CREATE TABLE osv_advisories AS
SELECT
  o.advisory_id, o.database, o.summary, o.details, o.severity_band, o.cvss_v3_vector, o.cvss_v3_score,
  o.cvss_v4_vector, o.cvss_v4_score, o.aliases, o.cve_ids, o.cwe_ids, o.github_reviewed,
  o.published, o.modified, o.withdrawn, o.url, o."references",
  coalesce(p.packages, []) AS packages
FROM osv_latest o
LEFT JOIN (
  SELECT advisory_id, list_sort(list_distinct(list(struct_pack(ecosystem := ecosystem, name := package_name)))) AS packages
  FROM osv_package_current GROUP BY advisory_id
) p USING (advisory_id);
DROP TABLE osv_package_current;

-- References: one row per CVE and URL, tags of every feed folded to one spelling
-- (`Vendor Advisory`, `vendor-advisory`, `x_refsource_…` → `vendor-advisory`), with the
-- cross-walk to a known vendor advisory, GHSA record or exploit record.
-- Three of NVD's tags are not the CVE 5 schema's words spelled another way but other words for
-- the same tag: folding their letters alone served a CISA KEV link as `us-government-resource`
-- from NVD and `government-resource` from the CVE List (both, for a URL in both feeds).
-- Two steps, letters then words: a CASE over the letters' macro runs its regular expressions
-- once per WHEN (three times the step's time at 340,000 CVEs).
CREATE MACRO reference_tag_letters(t) AS regexp_replace(regexp_replace(lower(trim(t)), '^x_refsource_', ''), '[^a-z0-9]+', '-', 'g');
CREATE MACRO reference_tag_word(letters) AS CASE letters
  WHEN 'us-government-resource' THEN 'government-resource'
  WHEN 'press-media-coverage' THEN 'media-coverage'
  WHEN 'tool-signature' THEN 'signature'
  ELSE letters END;
CREATE TABLE references_norm AS
WITH listed AS (
  SELECT cve_id, url, tags, provider, feed, name FROM reference_current
  UNION ALL
  -- The GHSA references of the merged view (contract 1.2): the page of each live GitHub
  -- advisory naming the CVE and every URL it lists (its OSV type, e.g. WEB, as the tag), by
  -- the advisory's id.
  SELECT oc.cve_id, g.r.url, [g.r."type"], oc.advisory_id, 'ghsa', NULL
  FROM osv_cve oc
  JOIN (SELECT advisory_id, unnest("references") AS r FROM osv_latest) g USING (advisory_id)
  WHERE oc.database = 'ghsa' AND g.r.url <> ''
  UNION ALL
  SELECT oc.cve_id, o.url, ['advisory'], oc.advisory_id, 'ghsa', NULL
  FROM osv_cve oc JOIN osv_latest o USING (advisory_id)
  WHERE oc.database = 'ghsa' AND o.url IS NOT NULL
)
SELECT
  r.cve_id,
  r.url,
  list_distinct(flatten(list(list_transform(list_transform(coalesce(r.tags, []), t -> reference_tag_letters(t)), l -> reference_tag_word(l))))) AS tags,
  list_sort(list_distinct(list(coalesce(r.provider, r.feed)))) AS sources,
  max(r.name) AS name
FROM listed r
WHERE r.url IS NOT NULL
GROUP BY r.cve_id, r.url;
DROP TABLE reference_current;

-- An exploit record that a reference of its CVE names under another spelling of the same URL is
-- that reference: NVD writes Exploit-DB's pages `https://www.exploit-db.com/exploits/42031/` (and
-- older ones with http://), the record's own URL has no trailing slash. Matched on exact URLs
-- only, CVE-2017-0144 served EDB 42031 twice (a reference with no exploit_source, and again as
-- an unreferenced exploit). The record takes the reference's spelling (the least, if several
-- spellings are listed), so every later comparison of the two is the plain URL equality; a
-- record whose own spelling is listed keeps it. Only the CVEs with exploit records are read.
CREATE MACRO exploit_url_key(u) AS regexp_replace(u, '^https?://(www\.)?|/+$', '', 'g');
CREATE TABLE exploit_reference_url AS
SELECT e.cve_id, e.source, e.exploit_id, min(n.url) AS url
FROM exploit_current e
JOIN (SELECT cve_id, url FROM references_norm SEMI JOIN (SELECT DISTINCT cve_id FROM exploit_current) USING (cve_id)) n
  ON n.cve_id = e.cve_id AND exploit_url_key(n.url) = exploit_url_key(e.url)
WHERE NOT EXISTS (SELECT 1 FROM references_norm x WHERE x.cve_id = e.cve_id AND x.url = e.url)
GROUP BY e.cve_id, e.source, e.exploit_id;
UPDATE exploit_current e SET url = r.url
FROM exploit_reference_url r
WHERE e.cve_id = r.cve_id AND e.source = r.source AND e.exploit_id IS NOT DISTINCT FROM r.exploit_id;
DROP TABLE exploit_reference_url;

CREATE TABLE "references" AS
SELECT
  n.cve_id, n.url, n.name, list_sort(n.tags) AS tags, n.sources,
  list_contains(n.tags, 'patch') AS is_patch,
  list_contains(n.tags, 'exploit') OR x.url IS NOT NULL AS is_exploit,
  list_contains(n.tags, 'vendor-advisory') OR va.advisory_id IS NOT NULL AS is_vendor_advisory,
  CASE WHEN va.advisory_id IS NOT NULL THEN struct_pack(vendor := va.vendor, advisory_id := va.advisory_id) END AS advisory,
  regexp_extract(n.url, '(GHSA(-[23456789cfghjmpqrvwx]{4}){3})', 1) AS ghsa_id,
  x.source AS exploit_source
FROM references_norm n
-- An advisory is known by every URL its document calls itself (CSAF `self` references), not
-- only the first one kept as its `url`: CISA's ICS documents name their JSON file first and
-- their web page second, and the web page is what NVD's references carry.
LEFT JOIN (
  SELECT DISTINCT ON (url) url, vendor, advisory_id
  FROM (
    SELECT url, vendor, advisory_id FROM vendor_advisory_latest WHERE url IS NOT NULL
    UNION ALL
    SELECT r.url, vendor, advisory_id
    FROM (SELECT vendor, advisory_id, unnest("references") AS r FROM vendor_advisory_latest)
    WHERE r.category = 'self' AND r.url IS NOT NULL
  )
  ORDER BY url, vendor, advisory_id) va
  ON va.url = n.url
LEFT JOIN (SELECT DISTINCT ON (cve_id, url) cve_id, url, source FROM exploit_current WHERE url IS NOT NULL ORDER BY cve_id, url, source) x
  ON x.cve_id = n.cve_id AND x.url = n.url;
DROP TABLE references_norm;

CREATE TABLE exploits AS
SELECT cve_id, source, exploit_id, url, title, published, verified FROM exploit_current;
DROP TABLE exploit_current;

CREATE TABLE cve_cwes AS
SELECT cc.cve_id, cc.cwe_id FROM cve_cwe_current cc;

CREATE TABLE cwes AS
SELECT
  coalesce(c.cwe_id, n.cwe_id) AS cwe_id,
  c.name, c.kind, c.abstraction, c.status, c.description,
  coalesce(n.cve_count, 0) AS cve_count
FROM cwe_catalog c
FULL OUTER JOIN (
  SELECT cc.cwe_id, count(DISTINCT cc.cve_id) AS cve_count
  FROM cve_cwe_current cc JOIN cves v ON v.cve_id = cc.cve_id AND v.status = 'active'
  GROUP BY cc.cwe_id
) n ON n.cwe_id = c.cwe_id;
DROP TABLE cve_cwe_current;

CREATE TABLE kev AS
SELECT k.*, v.service_score, v.service_severity, v.service_risk
FROM kev_current k LEFT JOIN cves v USING (cve_id);
