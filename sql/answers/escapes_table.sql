-- Answers — the texts written again by answers.ts, by rowid of their answer table.
CREATE OR REPLACE TEMP TABLE answer_escape_fixes (row_id BIGINT, text VARCHAR);
