-- PostgreSQL's English stemmer keeps a plural's "s" when the word has no vowel but one right
-- before it, as many acronyms do: "PDAs" is pdas and "PDA" is pda, so a question about PDAs found
-- no turn that says "PDA" and was told no recording mentions them. A text's English half now also
-- holds the singular of each such plural written in capitals (kh_english_vector), and the words
-- of a question are stemmed with those plurals made singular (kh_question_text): pda finds both.
-- The words as written (the simple half) and the English words' positions are as before, so
-- phrases and prefixes match what they matched.
-- Whether the stemmer keeps the "s" of the acronym's plural ("APIs" is already api) and its
-- singular is a word at all ("ORs" in "Noisy-ORs" is not made "OR", a stop word).
CREATE FUNCTION kh_acronym_keeps_s(singular text) RETURNS boolean
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN right((tsvector_to_array(to_tsvector('english'::regconfig, singular || 's')))[1], 1) = 's'
    AND numnode(plainto_tsquery('english'::regconfig, singular)) > 0;
--> statement-breakpoint
CREATE FUNCTION kh_acronym_singulars(body text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN (
    SELECT string_agg(m[1], ' ')
    FROM regexp_matches(body, '\m([[:upper:]][[:upper:][:digit:]]*[[:upper:]])s\M', 'g') AS m
    WHERE kh_acronym_keeps_s(m[1]));
--> statement-breakpoint
CREATE FUNCTION kh_english_vector(body text) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN to_tsvector('english'::regconfig, coalesce(body, ''))
    || to_tsvector('english'::regconfig, coalesce(kh_acronym_singulars(body), ''));
--> statement-breakpoint
CREATE FUNCTION kh_question_text(body text) RETURNS text
  LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
  AS $$
DECLARE
  singular text;
BEGIN
  FOR singular IN
    SELECT DISTINCT m[1] FROM regexp_matches(body, '\m([[:upper:]][[:upper:][:digit:]]*[[:upper:]])s\M', 'g') AS m
    WHERE kh_acronym_keeps_s(m[1])
  LOOP
    body := regexp_replace(body, '\m' || singular || 's\M', singular, 'g');
  END LOOP;
  RETURN body;
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION kh_search_vector(body text, weight "char") RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN setweight(kh_english_vector(body) || to_tsvector('simple'::regconfig, coalesce(body, '')), weight);
--> statement-breakpoint
CREATE OR REPLACE FUNCTION kh_turn_vector(body text) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN setweight(kh_english_vector(body), 'C') || setweight(to_tsvector('simple'::regconfig, coalesce(body, '')), 'D');
--> statement-breakpoint
-- The stored vectors are generated columns, computed again when their row is written: only the
-- rows that write a plural in capitals are.
UPDATE "transcript_segments" SET "text" = "text" WHERE "text" ~ '\m[[:upper:]][[:upper:][:digit:]]*[[:upper:]]s\M';
--> statement-breakpoint
UPDATE "transcript_chunks" SET "text" = "text" WHERE "text" ~ '\m[[:upper:]][[:upper:][:digit:]]*[[:upper:]]s\M';
--> statement-breakpoint
UPDATE "comments" SET "body" = "body" WHERE "body" ~ '\m[[:upper:]][[:upper:][:digit:]]*[[:upper:]]s\M';
--> statement-breakpoint
UPDATE "videos" SET "title" = "title"
WHERE concat_ws(' ', "title", "description") ~ '\m[[:upper:]][[:upper:][:digit:]]*[[:upper:]]s\M';
--> statement-breakpoint
UPDATE "clips" SET "title" = "title"
WHERE concat_ws(' ', "title", "description") ~ '\m[[:upper:]][[:upper:][:digit:]]*[[:upper:]]s\M';
--> statement-breakpoint
UPDATE "channels" SET "name" = "name"
WHERE concat_ws(' ', "name", "description") ~ '\m[[:upper:]][[:upper:][:digit:]]*[[:upper:]]s\M';
--> statement-breakpoint
UPDATE "series" SET "name" = "name"
WHERE concat_ws(' ', "name", "description") ~ '\m[[:upper:]][[:upper:][:digit:]]*[[:upper:]]s\M';
--> statement-breakpoint
UPDATE "collections" SET "name" = "name"
WHERE concat_ws(' ', "name", "description") ~ '\m[[:upper:]][[:upper:][:digit:]]*[[:upper:]]s\M';
--> statement-breakpoint
-- Each meeting's word counts (video-terms.ts) again where its turns or passages write such a
-- plural, counted as indexVideoTerms counts them.
DELETE FROM "video_terms" WHERE "video_id" IN (
  SELECT "video_id" FROM "transcript_segments" WHERE "text" ~ '\m[[:upper:]][[:upper:][:digit:]]*[[:upper:]]s\M');
--> statement-breakpoint
INSERT INTO "video_terms" ("video_id", "organization_id", "lexeme", "occurrences", "passages")
SELECT v.id, v.organization_id, counted.lexeme, coalesce(counted.occurrences, 0), coalesce(counted.passages, 0)
FROM "videos" v
CROSS JOIN LATERAL (
  SELECT coalesce(s.lexeme, p.lexeme) AS lexeme, s.occurrences, p.passages
  FROM (
    SELECT t.lexeme, sum(cardinality(t.positions))::int AS occurrences
    FROM "transcript_segments" seg CROSS JOIN unnest(ts_filter(seg.search, '{c}')) t
    WHERE seg.video_id = v.id
    GROUP BY t.lexeme
  ) s
  FULL JOIN (
    SELECT l.lexeme, count(*)::int AS passages
    FROM "transcript_chunks" c CROSS JOIN unnest(tsvector_to_array(kh_english_vector(c.text))) AS l(lexeme)
    WHERE c.video_id = v.id
    GROUP BY l.lexeme
  ) p ON p.lexeme = s.lexeme
) counted
WHERE v.id IN (
  SELECT "video_id" FROM "transcript_segments" WHERE "text" ~ '\m[[:upper:]][[:upper:][:digit:]]*[[:upper:]]s\M');
--> statement-breakpoint
UPDATE "video_term_totals" t SET "occurrences" = said.n
FROM (
  SELECT vt.video_id, sum(vt.occurrences)::int AS n FROM "video_terms" vt
  WHERE vt.video_id IN (
    SELECT "video_id" FROM "transcript_segments" WHERE "text" ~ '\m[[:upper:]][[:upper:][:digit:]]*[[:upper:]]s\M')
  GROUP BY vt.video_id
) said
WHERE said.video_id = t.video_id;
