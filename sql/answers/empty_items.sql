-- Answers — a section whose snapshot table could not be read: no items for any CVE (the
-- answer names the section in `failed_sections`).
CREATE TEMP TABLE {{table}} (cve_id VARCHAR, items VARCHAR);
