-- Step 7 — search terms: the project's own full-text index (DuckDB's fts extension cannot be
-- downloaded offline). Per CVE, one normalised text: its id, title and description, then its
-- vendors and products, packages, vendor advisory and OSV titles, sorted (so every build gives
-- the same text, and a phrase across two of them matches alike); lower case, every run of
-- non-letters/digits folded to one space, padded with spaces, so a phrase is a plain substring
-- test (' use after free ').
-- The term table is the inverted index, one row per (term, CVE), with the CVE's publication
-- time and status so a search can order and filter postings without touching `cves`.

CREATE TABLE search_docs AS
WITH others AS (
  SELECT cve_id, vendor || ' ' || product AS t FROM products
  UNION ALL SELECT cve_id, package_name FROM affected_packages
  UNION ALL SELECT ac.cve_id, a.title FROM advisory_cves ac JOIN advisories a USING (vendor, advisory_id) WHERE a.title IS NOT NULL
  UNION ALL SELECT oc.cve_id, o.summary FROM osv_cve oc JOIN osv_latest o USING (advisory_id) WHERE o.summary IS NOT NULL
),
others_by_cve AS (
  SELECT cve_id, array_to_string(list_sort(list(t)), ' ') AS t FROM others GROUP BY cve_id
)
SELECT
  c.cve_id, c.published, c.status,
  -- `i` + U+0307 is `İ` as the parsers' toLowerCase() wrote vendor and product names; lower()
  -- (and the query side, lib/sql-lower.ts) writes `i`: one spelling, or a name split in two words.
  ' ' || trim(regexp_replace(replace(lower(concat_ws(' ', c.cve_id, c.title, c.description, o.t)), 'i' || chr(775), 'i'), '[^\p{L}\p{N}]+', ' ', 'g')) || ' ' AS text
FROM cves c LEFT JOIN others_by_cve o USING (cve_id);

-- Terms are made distinct per document before unnesting: no global DISTINCT over millions of rows.
CREATE TABLE search_terms AS
SELECT term, cve_id, published, status
FROM (SELECT cve_id, published, status, unnest(list_distinct(string_split(trim(text), ' '))) AS term FROM search_docs)
WHERE term <> '';

-- Document frequency per term: exact totals for one-word searches without scanning postings.
CREATE TABLE search_term_stats AS
SELECT term, count(*) FILTER (status = 'active') AS active_count, count(*) AS all_count
FROM search_terms GROUP BY term;
