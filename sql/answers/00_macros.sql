-- Answers, step 0 — the JSON spellings every precomputed answer shares (cli/build/answers.ts).
-- Bodies are JSON text built here with DuckDB's to_json, which writes strings and booleans as
-- JSON.stringify does (control characters aside: answers.ts rewrites the rare body holding one);
-- these macros cover what it writes otherwise.

-- A DOUBLE as JSON.stringify writes a JS number: integral values without `.0` (to_json
-- writes 10.0), -0 as 0, NaN and infinities as null; other values are the same shortest
-- round-trip digits in both.
CREATE OR REPLACE TEMP MACRO answer_number(x) AS
  CASE
    WHEN x IS NULL OR isnan(x) OR isinf(x) THEN NULL
    WHEN x = trunc(x) AND abs(x) < 1e21 THEN CAST(CAST(CAST(x AS HUGEINT) AS VARCHAR) AS JSON)
    ELSE to_json(x)
  END;

-- A TIMESTAMP as the API spells times (isoTimestampSql of api/queries/support.ts).
CREATE OR REPLACE TEMP MACRO answer_time(t) AS strftime(t, '%Y-%m-%dT%H:%M:%S.%gZ');

-- JS encodeURIComponent: url_encode leaves only A-Z a-z 0-9 - _ . ~ as they are; the URI
-- component also keeps ! * ' ( ). A `%` in the text is itself encoded (%25), so each of these
-- five escapes can only stand for its character.
CREATE OR REPLACE TEMP MACRO answer_uri_component(s) AS
  replace(replace(replace(replace(replace(url_encode(s), '%21', '!'), '%2A', '*'), '%27', ''''), '%28', '('), '%29', ')');

-- vendorAdvisoryApiPath of api/queries/support.ts.
CREATE OR REPLACE TEMP MACRO answer_advisory_path(vendor, advisory_id) AS
  '/api/v1/public/vendor-advisories/' || answer_uri_component(vendor) || '/' || answer_uri_component(advisory_id);

-- The JSON array of a list of {'k': sort key, 'v': item} (items are JSON texts), in key order.
-- Keys are structs whose fields spell the endpoint's ORDER BY ascending (a DESC column
-- negated, NULLS LAST where it matters as an explicit flag: list_grade_up compares structs
-- field by field, NULLs last). list_grade_up sorts the keys only; the items are then picked
-- once in that order. Far cheaper than a window or an ordered aggregate over hundreds of
-- thousands of small groups.
CREATE OR REPLACE TEMP MACRO answer_join(pairs) AS
  '[' || array_to_string(list_select(list_transform(pairs, x -> x.v), list_grade_up(list_transform(pairs, x -> x.k))), ',') || ']';

-- The aggregate form: the JSON array of a group's items in the order of their keys.
CREATE OR REPLACE TEMP MACRO answer_array(sort_key, item) AS answer_join(list({'k': sort_key, 'v': item}));

-- A boolean sorted DESC NULLS LAST, as an ascending rank: true, false, NULL.
CREATE OR REPLACE TEMP MACRO answer_desc_flag(b) AS CASE WHEN b THEN 0 WHEN NOT b THEN 1 ELSE 2 END;
