-- Answers — related, same_cwe: per CVE, the {{list_max}} siblings (active CVEs) sharing one
-- of the CVE's CWE evidence keys, nearest publication day first (days_apart, unknown last),
-- then higher service_score, then cve_id descending.
--
-- A CWE such as CWE-79 has tens of thousands of CVEs: pairing them all is out of the question.
-- Within one key, the siblings published on or after the CVE's day, ranked, are the key's
-- members in (day, score desc, id) order from the first of the CVE's day on; those published
-- before it are the members in (day desc, score desc, id) order from the first day before it.
-- So a sibling of the list is among {{list_max}} + 1 positions of the first order, or
-- {{list_max}} of the second, of one of the shared keys; or, when too few are dated, among the
-- undated members best by score. A CVE with no date ranks every sibling by score and id.
CREATE TEMP TABLE answer_related_cwe_members AS
SELECT
  doc, key, day, service_score, id_rank,
  row_number() OVER (PARTITION BY key ORDER BY day ASC NULLS LAST, service_score DESC, id_rank) AS pos_up,
  row_number() OVER (PARTITION BY key ORDER BY day DESC NULLS LAST, service_score DESC, id_rank) AS pos_down,
  row_number() OVER (PARTITION BY key ORDER BY service_score DESC, id_rank) AS pos_score,
  row_number() OVER (PARTITION BY key, day IS NULL ORDER BY service_score DESC, id_rank) AS pos_in_dating,
  -- Members dated before this one's day, and dated at all: where its day begins in each order.
  rank() OVER (PARTITION BY key ORDER BY day ASC NULLS LAST) - 1 AS dated_before,
  count(day) OVER (PARTITION BY key) AS dated
FROM answer_related_keys
WHERE kind = 'cwe' AND active AND key_cve_count > 1;

CREATE TEMP TABLE answer_related_cwe AS
WITH evidence AS (
  -- The CVE's own row of the key tells where its day sits among the key's members.
  SELECT e.doc, e.key, e.day, m.dated_before, m.dated
  FROM answer_related_evidence e
  JOIN answer_related_cwe_members m ON m.doc = e.doc AND m.key = e.key
  WHERE e.kind = 'cwe'
),
up AS (
  SELECT doc, key, day, unnest(range(dated_before + 1, dated_before + {{list_max}} + 2)) AS pos
  FROM evidence WHERE day IS NOT NULL
),
down AS (
  SELECT doc, key, day, unnest(range(dated - dated_before + 1, dated - dated_before + {{list_max}} + 1)) AS pos
  FROM evidence WHERE day IS NOT NULL
),
candidates AS (
  SELECT p.doc AS target, p.day AS target_day, m.doc AS sibling, m.day, m.service_score, m.id_rank
  FROM up p JOIN answer_related_cwe_members m ON m.key = p.key AND m.pos_up = p.pos
  UNION
  SELECT p.doc, p.day, m.doc, m.day, m.service_score, m.id_rank
  FROM down p JOIN answer_related_cwe_members m ON m.key = p.key AND m.pos_down = p.pos
  UNION
  -- Undated siblings come last, best score first: wanted only when too few are dated.
  SELECT e.doc, e.day, m.doc, m.day, m.service_score, m.id_rank
  FROM evidence e JOIN answer_related_cwe_members m ON m.key = e.key AND m.day IS NULL AND m.pos_in_dating <= {{list_max}}
  WHERE e.day IS NOT NULL
  UNION
  SELECT e.doc, e.day, m.doc, m.day, m.service_score, m.id_rank
  FROM evidence e JOIN answer_related_cwe_members m ON m.key = e.key AND m.pos_score <= {{list_max}} + 1
  WHERE e.day IS NULL
),
ranked AS (
  SELECT
    target, sibling,
    CAST(abs(date_diff('day', day, target_day)) AS INTEGER) AS days_apart,
    row_number() OVER (PARTITION BY target ORDER BY abs(date_diff('day', day, target_day)) NULLS LAST, service_score DESC, id_rank) AS place
  FROM candidates
  WHERE sibling <> target
  QUALIFY place <= {{list_max}}
)
SELECT
  r.target, r.sibling, r.days_apart, r.place,
  len(list_filter(t.cwe_evidence, k -> list_contains(s.cwe_keys, k.key))) AS shared_count,
  list_transform(list_filter(t.cwe_evidence, k -> list_contains(s.cwe_keys, k.key))[1:{{keys_shown}}], k -> k.key) AS shared_keys
FROM ranked r
JOIN answer_related_key_lists t ON t.doc = r.target
JOIN answer_related_key_lists s ON s.doc = r.sibling;
