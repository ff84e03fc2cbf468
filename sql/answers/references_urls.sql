-- Answers — the reference URLs of each CVE: an exploit record at one of them is already shown
-- as a reference, so the references answer does not list it again.
CREATE TEMP TABLE answer_referenced_urls AS
SELECT DISTINCT cve_id, url FROM "references";
