-- Answers — the rows of {{table}} whose {{column}} holds a control character escaped the way
-- DuckDB's to_json writes it (`\u001F`, upper-case hex) where JSON.stringify writes `\u001f`:
-- answers.ts writes those again. (A text holding a backslash followed by such letters matches
-- too; writing it again changes nothing.)
SELECT rowid AS row_id, {{column}} AS text FROM {{table}}
WHERE contains({{column}}, '\u00') AND regexp_matches({{column}}, '\\u00[01][A-F]');
