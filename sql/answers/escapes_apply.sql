-- Answers — puts the bodies written again by answers.ts in place in {{table}}.
UPDATE {{table}} SET body = f.body FROM answer_escape_fixes f WHERE {{table}}.rowid = f.row_id;
DROP TABLE answer_escape_fixes;
