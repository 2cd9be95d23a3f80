-- Search reads the passages that hold a word from the heap (their id and video): with the text
-- kept inline (compressed, about 1.2 kB a row) one word's passages span six times the pages they
-- would. A row over about 2 kB is already being toasted; a target of 128 bytes moves its text out
-- of line too (the vector already was), so a passage's row is its keys and numbers. Rows written
-- before this stay as they are until their transcript is stored again or `npm run reindex`.
ALTER TABLE "transcript_chunks" SET (toast_tuple_target = 128);
