-- Answers — no reference URL is known (the snapshot's references table could not be read):
-- the references answer lists every exploit record.
CREATE TEMP TABLE answer_referenced_urls (cve_id VARCHAR, url VARCHAR);
