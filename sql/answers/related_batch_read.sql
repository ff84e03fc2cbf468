-- Answers — the related templates of the current batch (related_batch.sql), for answers.ts.
SELECT doc, template FROM answer_related_templates;
