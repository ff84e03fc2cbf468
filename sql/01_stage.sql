-- Step 1 — stage: load what the parsers extracted (NDJSON, one folder per table) into typed
-- tables. The columns mirror cli/stage/tables.ts; a type mismatch fails here, naming the table.
-- {{stage}} is the build's staging folder. Every `file` column holds a short document id; the
-- `stg_file` dictionary maps it to the raw path (archive.zip!member for zip members).

CREATE TABLE stg_file AS SELECT * FROM read_json('{{stage}}/file/*.ndjson', format = 'newline_delimited', columns = {
  id: 'VARCHAR', path: 'VARCHAR'});

CREATE TABLE stg_nvd_cve AS SELECT * FROM read_json('{{stage}}/nvd_cve/*.ndjson', format = 'newline_delimited', columns = {
  cve_id: 'VARCHAR', published: 'TIMESTAMP', last_modified: 'TIMESTAMP', vuln_status: 'VARCHAR',
  source_identifier: 'VARCHAR', description: 'VARCHAR', cve_tags: 'VARCHAR[]',
  kev_date_added: 'DATE', kev_due_date: 'DATE', kev_required_action: 'VARCHAR',
  kev_vulnerability_name: 'VARCHAR', file: 'VARCHAR'});

CREATE TABLE stg_cve5 AS SELECT * FROM read_json('{{stage}}/cve5/*.ndjson', format = 'newline_delimited', columns = {
  cve_id: 'VARCHAR', state: 'VARCHAR', assigner_org_id: 'VARCHAR', assigner_short_name: 'VARCHAR',
  date_reserved: 'TIMESTAMP', date_published: 'TIMESTAMP', date_updated: 'TIMESTAMP',
  date_rejected: 'TIMESTAMP', cna_date_updated: 'TIMESTAMP', title: 'VARCHAR', description: 'VARCHAR',
  rejected_reason: 'VARCHAR', cna_tags: 'VARCHAR[]', adp_kev_date_added: 'DATE', file: 'VARCHAR'});

CREATE TABLE stg_cvss AS SELECT * FROM read_json('{{stage}}/cvss/*.ndjson', format = 'newline_delimited', columns = {
  cve_id: 'VARCHAR', feed: 'VARCHAR', role: 'VARCHAR', provider: 'VARCHAR', version: 'VARCHAR',
  vector: 'VARCHAR', base_score: 'DOUBLE', base_severity: 'VARCHAR', user_interaction_required: 'BOOLEAN',
  modified: 'TIMESTAMP', file: 'VARCHAR'});

CREATE TABLE stg_ssvc AS SELECT * FROM read_json('{{stage}}/ssvc/*.ndjson', format = 'newline_delimited', columns = {
  cve_id: 'VARCHAR', feed: 'VARCHAR', exploitation: 'VARCHAR', automatable: 'VARCHAR',
  technical_impact: 'VARCHAR', timestamp: 'TIMESTAMP', file: 'VARCHAR'});

CREATE TABLE stg_cve_cwe AS SELECT * FROM read_json('{{stage}}/cve_cwe/*.ndjson', format = 'newline_delimited', columns = {
  cve_id: 'VARCHAR', cwe_id: 'VARCHAR', feed: 'VARCHAR', provider: 'VARCHAR', file: 'VARCHAR'});

CREATE TABLE stg_reference AS SELECT * FROM read_json('{{stage}}/reference/*.ndjson', format = 'newline_delimited', columns = {
  cve_id: 'VARCHAR', url: 'VARCHAR', feed: 'VARCHAR', provider: 'VARCHAR', name: 'VARCHAR',
  tags: 'VARCHAR[]', file: 'VARCHAR'});

CREATE TABLE stg_product AS SELECT * FROM read_json('{{stage}}/product/*.ndjson', format = 'newline_delimited', columns = {
  cve_id: 'VARCHAR', feed: 'VARCHAR', vendor: 'VARCHAR', product: 'VARCHAR', cpe: 'VARCHAR',
  package_name: 'VARCHAR', collection_url: 'VARCHAR', purl: 'VARCHAR', ecosystem: 'VARCHAR',
  version_start_including: 'VARCHAR', version_start_excluding: 'VARCHAR',
  version_end_including: 'VARCHAR', version_end_excluding: 'VARCHAR', file: 'VARCHAR'});

CREATE TABLE stg_kev AS SELECT * FROM read_json('{{stage}}/kev/*.ndjson', format = 'newline_delimited', columns = {
  cve_id: 'VARCHAR', vendor_project: 'VARCHAR', product: 'VARCHAR', vulnerability_name: 'VARCHAR',
  date_added: 'DATE', short_description: 'VARCHAR', required_action: 'VARCHAR', due_date: 'DATE',
  known_ransomware_campaign_use: 'VARCHAR', notes: 'VARCHAR', cwes: 'VARCHAR[]',
  catalog_version: 'VARCHAR'});

CREATE TABLE stg_epss AS SELECT * FROM read_json('{{stage}}/epss/*.ndjson', format = 'newline_delimited', columns = {
  cve_id: 'VARCHAR', epss: 'DOUBLE', percentile: 'DOUBLE', model_version: 'VARCHAR', score_date: 'DATE'});

CREATE TABLE stg_osv_advisory AS SELECT * FROM read_json('{{stage}}/osv_advisory/*.ndjson', format = 'newline_delimited', columns = {
  advisory_id: 'VARCHAR', database: 'VARCHAR', modified: 'TIMESTAMP', published: 'TIMESTAMP',
  withdrawn: 'TIMESTAMP', summary: 'VARCHAR', details: 'VARCHAR', severity_band: 'VARCHAR',
  cvss_v3_vector: 'VARCHAR', cvss_v3_score: 'DOUBLE', cvss_v4_vector: 'VARCHAR', cvss_v4_score: 'DOUBLE',
  aliases: 'VARCHAR[]', cve_ids: 'VARCHAR[]', cwe_ids: 'VARCHAR[]', github_reviewed: 'BOOLEAN',
  url: 'VARCHAR', "references": 'STRUCT("type" VARCHAR, url VARCHAR)[]', file: 'VARCHAR'});

CREATE TABLE stg_osv_package AS SELECT * FROM read_json('{{stage}}/osv_package/*.ndjson', format = 'newline_delimited', columns = {
  advisory_id: 'VARCHAR', affected_index: 'INTEGER', ecosystem: 'VARCHAR', package_name: 'VARCHAR',
  purl: 'VARCHAR', versions: 'VARCHAR[]', last_known_affected_version_range: 'VARCHAR',
  range_count: 'INTEGER', file: 'VARCHAR'});

CREATE TABLE stg_osv_range AS SELECT * FROM read_json('{{stage}}/osv_range/*.ndjson', format = 'newline_delimited', columns = {
  advisory_id: 'VARCHAR', affected_index: 'INTEGER', range_index: 'INTEGER', branch_index: 'INTEGER',
  range_type: 'VARCHAR', repo: 'VARCHAR', introduced: 'VARCHAR', fixed: 'VARCHAR',
  last_affected: 'VARCHAR', "limit": 'VARCHAR', file: 'VARCHAR'});

CREATE TABLE stg_vendor_advisory AS SELECT * FROM read_json('{{stage}}/vendor_advisory/*.ndjson', format = 'newline_delimited', columns = {
  vendor: 'VARCHAR', advisory_id: 'VARCHAR', title: 'VARCHAR', description: 'VARCHAR',
  publisher: 'VARCHAR', category: 'VARCHAR', tlp: 'VARCHAR', status: 'VARCHAR', version: 'VARCHAR',
  published: 'TIMESTAMP', modified: 'TIMESTAMP', aggregate_severity: 'VARCHAR',
  aggregate_severity_namespace: 'VARCHAR', vendor_severity: 'VARCHAR', vendor_severity_source: 'VARCHAR',
  vendor_severity_evidence: 'VARCHAR', cvss_score: 'DOUBLE', cvss_vector: 'VARCHAR', products: 'VARCHAR[]',
  remediations: 'STRUCT(category VARCHAR, details VARCHAR, url VARCHAR)[]',
  "references": 'STRUCT(url VARCHAR, summary VARCHAR, category VARCHAR)[]',
  cve_ids: 'VARCHAR[]', url: 'VARCHAR', file: 'VARCHAR'});

CREATE TABLE stg_vendor_advisory_cve AS SELECT * FROM read_json('{{stage}}/vendor_advisory_cve/*.ndjson', format = 'newline_delimited', columns = {
  vendor: 'VARCHAR', advisory_id: 'VARCHAR', cve_id: 'VARCHAR', vendor_severity: 'VARCHAR',
  vendor_severity_source: 'VARCHAR', vendor_severity_evidence: 'VARCHAR', cvss_score: 'DOUBLE',
  cvss_vector: 'VARCHAR', cvss_version: 'VARCHAR', exploited: 'BOOLEAN', exploited_evidence: 'VARCHAR',
  cwe_id: 'VARCHAR', file: 'VARCHAR'});

CREATE TABLE stg_exploit AS SELECT * FROM read_json('{{stage}}/exploit/*.ndjson', format = 'newline_delimited', columns = {
  cve_id: 'VARCHAR', source: 'VARCHAR', exploit_id: 'VARCHAR', url: 'VARCHAR', title: 'VARCHAR',
  published: 'TIMESTAMP', verified: 'BOOLEAN'});

CREATE TABLE stg_cwe AS SELECT * FROM read_json('{{stage}}/cwe/*.ndjson', format = 'newline_delimited', columns = {
  cwe_id: 'VARCHAR', name: 'VARCHAR', kind: 'VARCHAR', abstraction: 'VARCHAR', status: 'VARCHAR',
  description: 'VARCHAR'});
