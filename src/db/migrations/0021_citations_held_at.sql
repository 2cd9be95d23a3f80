-- Citations carry the day their meeting was held (`heldAt`: the recording date, else when the
-- video was added), so that an answer quoting meetings of several days can be read source by
-- source. Stored answers get it from their videos; a video since purged leaves it null.
CREATE OR REPLACE FUNCTION pg_temp.kh_with_held_at(citations jsonb) RETURNS jsonb
  LANGUAGE sql STABLE
  RETURN (
    SELECT coalesce(jsonb_agg(
      c || jsonb_build_object('heldAt',
        to_char(coalesce(v."recorded_at", v."created_at") AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
      ORDER BY position), '[]'::jsonb)
    FROM jsonb_array_elements(citations) WITH ORDINALITY AS e(c, position)
    LEFT JOIN "videos" v ON v."id"::text = c->>'videoId'
  );
--> statement-breakpoint
UPDATE "ai_questions" SET "citations" = pg_temp.kh_with_held_at("citations") WHERE jsonb_array_length("citations") > 0;
--> statement-breakpoint
UPDATE "chat_messages" SET "citations" = pg_temp.kh_with_held_at("citations") WHERE jsonb_array_length("citations") > 0;
