-- Answers — no vendor advisory answer: the snapshot's advisories or advisory_cves table could
-- not be read, and the endpoint then answers 503 naming the table, for every advisory.
CREATE TABLE answer_vendor_advisory (vendor VARCHAR, advisory_id VARCHAR, body VARCHAR);
