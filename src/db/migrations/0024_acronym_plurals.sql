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
-- Whether a text writes a plural in capitals at all: the cheap test of which stored rows to write
-- again (the functions above decide what changes in them).
CREATE FUNCTION kh_writes_acronym_plural(body text) RETURNS boolean
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN body ~ '\m[[:upper:]][[:upper:][:digit:]]*[[:upper:]]s\M';
--> statement-breakpoint
-- The stored vectors are generated columns, computed again when their row is written: only the
-- rows that write such a plural are.
UPDATE "transcript_segments" SET "text" = "text" WHERE kh_writes_acronym_plural("text");
--> statement-breakpoint
UPDATE "transcript_chunks" SET "text" = "text" WHERE kh_writes_acronym_plural("text");
--> statement-breakpoint
UPDATE "comments" SET "body" = "body" WHERE kh_writes_acronym_plural("body");
--> statement-breakpoint
UPDATE "videos" SET "title" = "title" WHERE kh_writes_acronym_plural(concat_ws(' ', "title", "description"));
--> statement-breakpoint
UPDATE "clips" SET "title" = "title" WHERE kh_writes_acronym_plural(concat_ws(' ', "title", "description"));
--> statement-breakpoint
UPDATE "channels" SET "name" = "name" WHERE kh_writes_acronym_plural(concat_ws(' ', "name", "description"));
--> statement-breakpoint
UPDATE "series" SET "name" = "name" WHERE kh_writes_acronym_plural(concat_ws(' ', "name", "description"));
--> statement-breakpoint
UPDATE "collections" SET "name" = "name" WHERE kh_writes_acronym_plural(concat_ws(' ', "name", "description"));
--> statement-breakpoint
-- Each meeting's word counts (video-terms.ts) where its transcript writes such a plural, counted
-- again as indexVideoTerms counts them. The singulars only add to what a meeting says, so every
-- word it had keeps its row and the recount updates or adds rows.
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
WHERE v.id IN (SELECT "video_id" FROM "transcript_segments" WHERE kh_writes_acronym_plural("text"))
ON CONFLICT ("video_id", "lexeme")
DO UPDATE SET "occurrences" = excluded."occurrences", "passages" = excluded."passages";
--> statement-breakpoint
-- A meeting's total is the sum of its words' occurrences, as indexVideoTerms writes it.
UPDATE "video_term_totals" t SET "occurrences" = said.n
FROM (SELECT video_id, sum(occurrences)::int AS n FROM "video_terms" GROUP BY video_id) said
WHERE said.video_id = t.video_id AND said.n <> t.occurrences;
