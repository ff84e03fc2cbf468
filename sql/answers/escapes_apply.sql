-- Answers — puts the texts written again by answers.ts in place in {{table}}.{{column}}.
UPDATE {{table}} SET {{column}} = f.text FROM answer_escape_fixes f WHERE {{table}}.rowid = f.row_id;
DROP TABLE answer_escape_fixes;
