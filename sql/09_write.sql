-- Step 9 — write: the snapshot's Parquet files (DESIGN §4) into the build's output folder
-- {{out}}; publishing (rename + data/CURRENT) happens only after every file is written.
-- The CVEs themselves are written by 09_write_cves.sql, beside the serving step.
-- zstd level 1 for the search terms: most of the ratio at a fraction of the time.
-- search_terms is written in build order.

COPY (SELECT * FROM affected_packages ORDER BY cve_id, ecosystem, package_name) TO '{{out}}/affected_packages.parquet' (FORMAT parquet, COMPRESSION zstd);
COPY (SELECT * FROM advisory_packages ORDER BY advisory_id, ecosystem, package_name) TO '{{out}}/advisory_packages.parquet' (FORMAT parquet, COMPRESSION zstd);
COPY (SELECT * FROM products ORDER BY vendor_key, product_key, cve_id) TO '{{out}}/products.parquet' (FORMAT parquet, COMPRESSION zstd);
COPY (SELECT * FROM "references" ORDER BY cve_id, url) TO '{{out}}/references.parquet' (FORMAT parquet, COMPRESSION zstd);
COPY (SELECT * FROM exploits ORDER BY cve_id, source, exploit_id) TO '{{out}}/exploits.parquet' (FORMAT parquet, COMPRESSION zstd);
COPY (SELECT * FROM advisories ORDER BY vendor, advisory_id) TO '{{out}}/advisories.parquet' (FORMAT parquet, COMPRESSION zstd);
COPY (SELECT * FROM advisory_cves ORDER BY vendor, advisory_id, cve_id) TO '{{out}}/advisory_cves.parquet' (FORMAT parquet, COMPRESSION zstd);
COPY (SELECT * FROM osv_advisories ORDER BY advisory_id) TO '{{out}}/osv_advisories.parquet' (FORMAT parquet, COMPRESSION zstd);
COPY (SELECT * FROM cve_cwes ORDER BY cve_id, cwe_id) TO '{{out}}/cve_cwes.parquet' (FORMAT parquet, COMPRESSION zstd);
COPY (SELECT * FROM cwes ORDER BY TRY_CAST(regexp_extract(cwe_id, '(\d+)$', 1) AS INTEGER) NULLS LAST, cwe_id) TO '{{out}}/cwes.parquet' (FORMAT parquet, COMPRESSION zstd);
COPY (SELECT * FROM kev ORDER BY date_added DESC, cve_id DESC) TO '{{out}}/kev.parquet' (FORMAT parquet, COMPRESSION zstd);
COPY (SELECT * FROM related_keys) TO '{{out}}/related_keys.parquet' (FORMAT parquet, COMPRESSION zstd);
COPY (SELECT * FROM search_docs ORDER BY published DESC, cve_id DESC) TO '{{out}}/search_docs.parquet' (FORMAT parquet, COMPRESSION zstd);
COPY (SELECT * FROM search_terms) TO '{{out}}/search_terms.parquet' (FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 1, ROW_GROUP_SIZE 100000);
COPY (SELECT * FROM search_term_stats ORDER BY term) TO '{{out}}/search_term_stats.parquet' (FORMAT parquet, COMPRESSION zstd);
COPY (SELECT * FROM summary) TO '{{out}}/summary.parquet' (FORMAT parquet);
COPY (SELECT * FROM trends_weekly) TO '{{out}}/trends_weekly.parquet' (FORMAT parquet);
COPY (SELECT * FROM trends_monthly) TO '{{out}}/trends_monthly.parquet' (FORMAT parquet);
