-- Answers — the completed related bodies of the batch into answer_related, as text (decode
-- checks the bytes are UTF-8).
INSERT INTO answer_related SELECT doc, decode(body) FROM answer_related_done;
