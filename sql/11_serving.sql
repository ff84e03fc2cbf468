-- Step 11 — serving files (DESIGN §8.1): what a replica opens instead of loading the Parquet.
-- Derived from the snapshot's own Parquet files (views `snap.<table>`, created by
-- cli/build/serving.ts), written into {{dir}} (a work folder renamed to `serving/` when whole):
--   serving.duckdb   every table in the shape the API queries (a DuckDB database file: a replica
--                    opens it read-only in milliseconds and reads its blocks on demand, within
--                    its memory limit, instead of copying every table into memory);
--   records.ndjson   the API's JSON of every CVE, one per line, in `doc` order, so a record is
--                    one positioned read of the file (through the OS page cache, not the heap);
--                    written by cli/build/serving.ts, its order proven by `serving_keys`,
--                    left by this step.
-- Three tables are reshaped, as the API reads them:
--   cves             every column but record_json and score_factors (read only inside the
--                    record's JSON, records.ndjson; the nested struct was 40 % of the table's
--                    writing), plus `doc` (INTEGER): the row's position in the default order
--                    (published DESC, cve_id DESC; 0 = newest), and `id_rank` (INTEGER): the
--                    position in cve_id DESC order, the tie-break of every sort;
--   search_postings  (term_id, doc, active) replaces search_terms (term, cve_id, published, status),
--                    stored by term_id (the term's line in terms.txt) so `term_id = ?` reads
--                    only that term's row groups;
--   search_text      (doc, text) replaces search_docs: the normalised text, for phrase tests.
-- Every other table is copied as it is, in the order of its Parquet file.

CREATE TEMP TABLE serving_keys AS
SELECT cve_id,
       CAST(row_number() OVER (ORDER BY published DESC, cve_id DESC) - 1 AS INTEGER) AS doc,
       CAST(row_number() OVER (ORDER BY cve_id DESC) - 1 AS INTEGER) AS id_rank
FROM (SELECT cve_id, published FROM snap.cves);

CREATE TABLE serving.cves AS
SELECT c.* EXCLUDE (record_json, score_factors), k.doc, k.id_rank
FROM snap.cves c JOIN serving_keys k USING (cve_id)
ORDER BY k.doc;

-- The search terms numbered in byte order (the order of terms.txt, which a replica searches by
-- bytes), with how many CVEs hold each: the postings are stored by number, so their sort is of
-- two integers, not of 11.9 M strings at full scale. Left for cli/build/serving.ts, which
-- writes the term dictionary and the flat postings from it (on a connection of its own, beside
-- the stored answers: a table, not TEMP, so that connection sees it).
CREATE TABLE serving_terms AS
SELECT term, CAST(row_number() OVER (ORDER BY term) - 1 AS INTEGER) AS term_id,
       count(*) AS all_count, count(*) FILTER (WHERE status = 'active') AS active_count
FROM snap.search_terms
GROUP BY term;

CREATE TABLE serving.search_postings AS
SELECT i.term_id, k.doc, t.status = 'active' AS active
FROM snap.search_terms t
JOIN serving_terms i ON i.term = t.term
JOIN serving_keys k ON k.cve_id = t.cve_id
ORDER BY i.term_id, k.doc;

CREATE TABLE serving.search_text AS
SELECT k.doc, d.text
FROM snap.search_docs d JOIN serving_keys k USING (cve_id)
ORDER BY k.doc;

-- What a replica holds in memory of each CVE, by doc, for cli/build/serving.ts to write as flat
-- arrays (columns.bin, with the record lengths it measures while writing records.ndjson) and
-- ids (ids.txt): the columns the lists filter on and each sort's rank (descending, no value last, ties by cve_id descending), so a replica
-- sorts nothing when it opens.
CREATE TABLE serving_doc_columns AS
SELECT c.doc, c.cve_id,
       CAST(epoch_us(c.published) AS DOUBLE) AS published_us,
       c.status = 'active' AS active,
       coalesce(c.severity, 'NONE') AS severity,
       coalesce(c.service_severity, 'NONE') AS service_severity,
       CAST(c.max_cvss AS DOUBLE) AS max_cvss,
       coalesce(c.in_kev, false) AS in_kev,
       coalesce(c.year, 0) AS year,
       CAST(epoch_us(c.last_modified) AS DOUBLE) AS last_modified_us,
       CAST(row_number() OVER (ORDER BY coalesce(CAST(c.epss_score AS DOUBLE), '-inf'::DOUBLE) DESC, c.id_rank) - 1 AS INTEGER) AS epss_rank,
       CAST(row_number() OVER (ORDER BY coalesce(CAST(c.service_score AS DOUBLE), '-inf'::DOUBLE) DESC, c.id_rank) - 1 AS INTEGER) AS severity_rank,
       CAST(row_number() OVER (ORDER BY coalesce(CAST(c.cvss_v3_score AS DOUBLE), '-inf'::DOUBLE) DESC, c.id_rank) - 1 AS INTEGER) AS cvss_v3_rank
FROM serving.cves c
ORDER BY c.doc;

-- serving_keys stays for cli/build/serving.ts: records.ndjson is in doc order, the build's
-- written early from `cves` as held and checked id by id against it, a derivation's written
-- sorted by it.
