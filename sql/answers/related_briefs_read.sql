-- Answers — the briefs answers.ts splices into the related lists, by doc, as bytes.
SELECT doc, encode(brief) FROM answer_related_briefs;
