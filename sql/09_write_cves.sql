-- Step 9, the CVEs — the largest Parquet file of the snapshot (DESIGN §4): hive-partitioned by
-- UTC publication year, in the table's order (newest first, set in step 4), with the API's JSON
-- beside the typed columns. zstd level 1: most of the ratio at a fraction of the time.
-- Run by cli/build/build.ts on a connection of its own while the serving step (11_serving.sql)
-- starts on another: the serving step's first phases leave a core idle, and this fills it. The
-- serving step keeps `cves` until this has read it all; publishing waits for both.

COPY cves TO '{{out}}/cves' (FORMAT parquet, PARTITION_BY (year), COMPRESSION zstd, COMPRESSION_LEVEL 1, ROW_GROUP_SIZE 20000, FILENAME_PATTERN 'cves_{i}');
