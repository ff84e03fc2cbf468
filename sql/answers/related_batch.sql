-- Answers — related (GET /cves/{id}/related, api/queries/related.ts), for the CVEs of docs
-- {{from}} to {{to}} (excluded): the three lists of each, and its body as a template that the
-- replica completes with the siblings' briefs (api/snapshot/related-splice.ts). Run batch by
-- batch so the working tables stay small at full scale. Reads the tables of related_keys.sql.

-- Each list is ranked by a sort key (rank_key: its fields spell the ORDER BY ascending); the
-- candidates of each CVE, with what they share, are kept here, and the entries are the first
-- {{list_max}} by that key (answer_related_entries below).
--
-- same_product: the siblings (active CVEs) sharing an evidence product key, the most specific
-- shared key first (fewest CVEs: key_cve_count), then higher service_score, then cve_id
-- descending (id_rank ascending).
-- Candidates, not every pair: a sibling ranks by the most specific key it shares, and among
-- that key's members by score and id, so a sibling of the list is among the first
-- {{list_max}} + 1 members of that key in score/id order (+1: the CVE itself). And once the CVE
-- has a key carried by more than {{list_max}} CVEs, its keys carried by still more CVEs can add
-- no sibling: that key alone gives {{list_max}} siblings ranked before theirs. What each
-- candidate shares is then read in full from the two CVEs' key lists.
CREATE OR REPLACE TEMP TABLE answer_related_product AS
WITH evidence AS (
  SELECT doc, key_id, key_cve_count
  FROM answer_related_evidence
  WHERE kind = 'product' AND doc >= {{from}} AND doc < {{to}}
),
widest AS (
  SELECT doc, min(key_cve_count) FILTER (WHERE key_cve_count > {{list_max}}) AS bound
  FROM evidence
  GROUP BY doc
),
candidates AS (
  SELECT DISTINCT target, sibling
  FROM (
    SELECT e.doc AS target, unnest(h.docs) AS sibling
    FROM evidence e
    JOIN widest w USING (doc)
    JOIN answer_related_product_heads h USING (key_id)
    WHERE w.bound IS NULL OR e.key_cve_count <= w.bound
  )
  WHERE sibling <> target
),
shared AS (
  SELECT
    cand.target, cand.sibling, c.service_score, c.id_rank,
    list_filter(t.product_keys, x -> list_contains(s.product_ids, x.key_id)) AS keys
  FROM candidates cand
  JOIN answer_related_key_lists t ON t.doc = cand.target
  JOIN answer_related_key_lists s ON s.doc = cand.sibling
  JOIN cves c ON c.doc = cand.sibling
  WHERE c.status = 'active'
)
SELECT
  target, sibling, keys[1].key_cve_count AS key_cve_count, len(keys) AS shared_count,
  list_transform(keys[1:{{keys_shown}}], x -> x.key) AS shared_keys,
  {'key_cve_count': keys[1].key_cve_count, 'unscored': service_score IS NULL, 'score': -service_score, 'id_rank': id_rank} AS rank_key
FROM shared;

-- same_vendor: the siblings (active CVEs) sharing the most vendor advisories among
-- the CVE's first {{key_cap}} advisory keys, then higher service_score, then cve_id descending.
-- Shared keys by name.
CREATE OR REPLACE TEMP TABLE answer_related_vendor AS
WITH per_sibling AS (
  SELECT e.doc AS target, s.doc AS sibling, count(*) AS shared_count, list(s.key) AS keys
  FROM answer_related_evidence e
  JOIN answer_related_keys s ON s.kind = 'advisory' AND s.key_id = e.key_id AND s.doc <> e.doc
  WHERE e.kind = 'advisory' AND e.doc >= {{from}} AND e.doc < {{to}}
  GROUP BY e.doc, s.doc
)
SELECT
  p.target, p.sibling, p.shared_count, list_sort(p.keys)[1:{{keys_shown}}] AS shared_keys,
  {'shared': -p.shared_count, 'unscored': c.service_score IS NULL, 'score': -c.service_score, 'id_rank': c.id_rank} AS rank_key
FROM per_sibling p
JOIN cves c ON c.doc = p.sibling
WHERE c.status = 'active';

-- same_cwe: the siblings (active CVEs) sharing one of the CVE's CWE evidence keys,
-- nearest publication day first (days_apart, unknown last), then higher service_score, then
-- cve_id descending. A CWE such as CWE-79 has tens of thousands of CVEs: pairing them all is out
-- of the question. Within one key, the siblings published on or after the CVE's day, ranked,
-- are the key's dated members in (day, score desc, id) order from the first of the CVE's day
-- on; those published before it, the members in (day desc, score desc, id) order from the
-- first day before it. So a sibling of the list is among {{list_max}} + 1 positions of the
-- first order or {{list_max}} of the second, of one of the shared keys; or, when too few are
-- dated, among the undated members best by score. A CVE with no date ranks every sibling by
-- score and id.
CREATE OR REPLACE TEMP TABLE answer_related_cwe AS
WITH evidence AS (
  -- The CVE's own row of the key tells where its day sits among the key's members.
  SELECT e.doc, e.key_id, e.key, e.day, m.dated_before, m.dated, len(l.cwe_evidence) AS keys
  FROM answer_related_evidence e
  JOIN answer_related_cwe_members m ON m.doc = e.doc AND m.key_id = e.key_id
  JOIN answer_related_key_lists l ON l.doc = e.doc
  WHERE e.kind = 'cwe' AND e.doc >= {{from}} AND e.doc < {{to}}
),
positions AS (
  SELECT doc, key_id, key, keys, 'up' AS side, unnest(range(dated_before + 1, dated_before + {{list_max}} + 2)) AS pos
  FROM evidence WHERE day IS NOT NULL
  UNION ALL
  SELECT doc, key_id, key, keys, 'down', unnest(range(dated - dated_before + 1, dated - dated_before + {{list_max}} + 1))
  FROM evidence WHERE day IS NOT NULL
),
-- Within one key the branches are disjoint (on or after the day, before it, undated), so only
-- a CVE with several keys can reach a sibling twice.
candidates AS (
  SELECT p.doc AS target, p.key, p.keys, m.doc AS sibling
  FROM positions p JOIN answer_related_cwe_members m ON m.key_id = p.key_id AND m.pos_up = p.pos
  WHERE p.side = 'up' AND m.day IS NOT NULL
  UNION ALL
  SELECT p.doc, p.key, p.keys, m.doc
  FROM positions p JOIN answer_related_cwe_members m ON m.key_id = p.key_id AND m.pos_down = p.pos
  WHERE p.side = 'down' AND m.day IS NOT NULL
  UNION ALL
  SELECT e.doc, e.key, e.keys, unnest(h.best_undated)
  FROM evidence e JOIN answer_related_cwe_heads h USING (key_id)
  WHERE e.day IS NOT NULL
  UNION ALL
  SELECT e.doc, e.key, e.keys, unnest(h.best)
  FROM evidence e JOIN answer_related_cwe_heads h USING (key_id)
  WHERE e.day IS NULL
),
-- With a single evidence key, that key is all a sibling shares of the CVE's evidence keys:
-- with several, the two CVEs' keys are compared (shared keys by CWE number, then name).
shared AS (
  SELECT target, sibling, 1 AS shared_count, [key] AS shared_keys
  FROM candidates
  WHERE keys = 1 AND sibling <> target
  UNION ALL
  SELECT target, sibling, len(keys), list_transform(keys[1:{{keys_shown}}], x -> x.key)
  FROM (
    SELECT d.target, d.sibling, list_filter(t.cwe_evidence, x -> list_contains(s.cwe_ids, x.key_id)) AS keys
    FROM (SELECT DISTINCT target, sibling FROM candidates WHERE keys > 1 AND sibling <> target) d
    JOIN answer_related_key_lists t ON t.doc = d.target
    JOIN answer_related_key_lists s ON s.doc = d.sibling
  )
),
ranked AS (
  SELECT
    sh.target, sh.sibling, sh.shared_count, sh.shared_keys, c.service_score, c.id_rank,
    CAST(abs(date_diff('day', CAST(c.published AS DATE), CAST(t.published AS DATE))) AS INTEGER) AS days_apart
  FROM shared sh
  JOIN cves c ON c.doc = sh.sibling
  JOIN cves t ON t.doc = sh.target
  WHERE c.status = 'active'
)
SELECT
  target, sibling, days_apart, shared_count, shared_keys,
  {'undated': days_apart IS NULL, 'days_apart': days_apart, 'unscored': service_score IS NULL, 'score': -service_score, 'id_rank': id_rank} AS rank_key
FROM ranked;

-- The entries of the three lists: per CVE and list, the first {{list_max}} candidates by
-- rank_key (min_by keeps them in that order), each rendered as chr(2), the sibling's doc,
-- chr(3), then the entry's evidence as related.ts adds it after the brief. The replica puts
-- the sibling's brief (answer_related_briefs) in place of chr(2) doc chr(3)
-- (api/snapshot/related-splice.ts): JSON text never holds a raw control character, so the
-- markers cannot occur otherwise.
CREATE OR REPLACE TEMP TABLE answer_related_entries AS
WITH product AS (
  SELECT target, min_by(sibling, rank_key, {{list_max}}) AS siblings FROM answer_related_product GROUP BY target
),
vendor AS (
  SELECT target, min_by(sibling, rank_key, {{list_max}}) AS siblings FROM answer_related_vendor GROUP BY target
),
cwe AS (
  SELECT target, min_by(sibling, rank_key, {{list_max}}) AS siblings FROM answer_related_cwe GROUP BY target
),
cwe_entries AS (
  SELECT target, unnest(siblings) AS sibling, generate_subscripts(siblings, 1) AS place FROM cwe
),
-- related.ts reads a CVE whose CWE keys could give {{cwe_windowing_from}} or more siblings by
-- publication windows (up to ± {{cwe_window_max_days}} days) when the list fills within one:
-- its entries then carry shared_keys before shared_count. The list is the same.
cwe_windowed AS (
  SELECT e.target
  FROM cwe_entries e
  JOIN answer_related_cwe w USING (target, sibling)
  JOIN answer_related_cwe_possible p ON p.doc = e.target
  JOIN cves t ON t.doc = e.target
  WHERE e.place = {{list_max}} AND w.days_apart <= {{cwe_window_max_days}}
    AND t.published IS NOT NULL AND p.possible >= {{cwe_windowing_from}}
)
SELECT e.target, 1 AS list, e.place,
       concat(chr(2), e.sibling, chr(3), ',"key_cve_count":', d.key_cve_count, ',"shared_count":', d.shared_count,
              ',"shared_keys":', to_json(d.shared_keys), '}') AS entry
FROM (SELECT target, unnest(siblings) AS sibling, generate_subscripts(siblings, 1) AS place FROM product) e
JOIN answer_related_product d USING (target, sibling)
UNION ALL
SELECT e.target, 2, e.place,
       concat(chr(2), e.sibling, chr(3), ',"shared_count":', d.shared_count, ',"shared_keys":', to_json(d.shared_keys), '}')
FROM (SELECT target, unnest(siblings) AS sibling, generate_subscripts(siblings, 1) AS place FROM vendor) e
JOIN answer_related_vendor d USING (target, sibling)
UNION ALL
SELECT e.target, 3, e.place,
       CASE WHEN x.target IS NOT NULL
            THEN concat(chr(2), e.sibling, chr(3), ',"days_apart":', d.days_apart, ',"shared_keys":', to_json(d.shared_keys),
                        ',"shared_count":', d.shared_count, '}')
            ELSE concat(chr(2), e.sibling, chr(3), ',"days_apart":', coalesce(CAST(d.days_apart AS VARCHAR), 'null'),
                        ',"shared_count":', d.shared_count, ',"shared_keys":', to_json(d.shared_keys), '}') END
FROM cwe_entries e
JOIN answer_related_cwe d USING (target, sibling)
LEFT JOIN cwe_windowed x USING (target);

-- The body of each CVE of the batch as a template of its entries (see above), appended to
-- answer_related_templates (related_keys.sql).
INSERT INTO answer_related_templates
WITH lists AS (
  SELECT
    target,
    list({'k': place, 'v': entry}) FILTER (WHERE list = 1) AS same_product,
    list({'k': place, 'v': entry}) FILTER (WHERE list = 2) AS same_vendor,
    list({'k': place, 'v': entry}) FILTER (WHERE list = 3) AS same_cwe
  FROM answer_related_entries
  GROUP BY target
)
SELECT
  c.doc,
  concat(
    '{"cve_id":', to_json(c.cve_id),
    ',"same_product":', coalesce(answer_join(l.same_product), '[]'),
    ',"same_vendor":', coalesce(answer_join(l.same_vendor), '[]'),
    ',"same_cwe":', coalesce(answer_join(l.same_cwe), '[]'),
    -- basisOf of related.ts: ok, else why (answer_related_basis, related_keys.sql).
    ',"basis":{"same_product":"', CASE WHEN l.same_product IS NOT NULL THEN 'ok' ELSE coalesce(b.same_product, 'no_data') END,
    '","same_vendor":"', CASE WHEN l.same_vendor IS NOT NULL THEN 'ok' ELSE coalesce(b.same_vendor, 'no_data') END,
    '","same_cwe":"', CASE WHEN l.same_cwe IS NOT NULL THEN 'ok' ELSE coalesce(b.same_cwe, 'no_data') END,
    '"}}'
  ) AS template
FROM cves c
LEFT JOIN lists l ON l.target = c.doc
LEFT JOIN answer_related_basis b ON b.doc = c.doc
WHERE c.doc >= {{from}} AND c.doc < {{to}}
-- Batches come in doc order: so, sorted within each, the table is held in doc order and is
-- written out as it is held (cli/build/serving.ts), without sorting 0.5 GB of templates again.
ORDER BY c.doc;
