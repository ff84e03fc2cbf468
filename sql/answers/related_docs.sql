-- Answers — the range of docs answers.ts builds the related bodies over, in batches.
SELECT coalesce(min(doc), 0) AS first, coalesce(max(doc) + 1, 0) AS past FROM cves;
