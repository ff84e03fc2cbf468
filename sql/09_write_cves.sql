-- Step 9, the CVEs — the largest Parquet file of the snapshot (DESIGN §4): hive-partitioned by
-- UTC publication year, in the table's order (newest first, set in step 4), with the API's JSON
-- beside the typed columns. zstd level 1: most of the ratio at a fraction of the time.
-- Run by cli/build/build.ts on a connection of its own while the serving step (11_serving.sql)
-- starts on another: the serving step's first phases leave a core idle, and this fills it. The
-- serving step keeps `cves` until this has read it all; publishing waits for both.
--
-- Once per year ({{year_test}}: `= 2019`, or `IS NULL` for CVEs without a publication time;
-- {{partition}}: the folder's value, DuckDB's __HIVE_DEFAULT_PARTITION__ for NULL), by writeCvesParquet
-- (cli/build/sql-steps.ts): a plain COPY keeps the rows' order, a partitioned one
-- (PARTITION_BY) does not: it wrote a year's row groups as its threads finished them (at
-- 120,000 CVEs, late December 2019 after the 1st of January). The year's rows are adjacent in
-- `cves`, so each COPY reads only their row groups. The partition column is not stored in the
-- files, as PARTITION_BY had it: readers take it from the folder name.

COPY (SELECT * EXCLUDE (year) FROM cves WHERE year {{year_test}})
TO '{{out}}/cves/year={{partition}}/cves_0.parquet' (FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 1, ROW_GROUP_SIZE 20000);
