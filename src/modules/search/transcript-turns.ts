import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import type { TermTurn } from './stretches.ts';

/**
 * Transcript turns read for ranking (stretches.ts): by search's moments and by the stretches QA
 * cites, each turn with how often it says each word asked about.
 */

/** A turn as a stretch quotes it. */
export type StretchTurn = { index: number; start: number; end: number; speaker: string | null; text: string };

/** Turns read on either side of a candidate passage, so that a stretch may reach past its edge. */
const PASSAGE_MARGIN = 2;

/** A letter or digit: what the index's `simple` half makes words of. */
const WORD_CHARACTER = /[\p{L}\p{N}]/u;

/**
 * How many words as written start with each prefix, counted in the turn's text (lower case, a
 * word starting after anything but a letter or digit), as the index's `simple` half holds them.
 * Reading them from the stored vector meant unnesting every lexeme of every turn that says a
 * word of the query (about 6 ms of a search at 1,000 meetings); the text is read anyway.
 */
function prefixCounts(text: string, prefixes: string[]): Map<string, number> {
  const lower = text.toLowerCase();
  const counts = new Map<string, number>();
  for (const prefix of prefixes) {
    let n = 0;
    for (let at = lower.indexOf(prefix); at !== -1; at = lower.indexOf(prefix, at + 1))
      if (at === 0 || !WORD_CHARACTER.test(lower.charAt(at - 1))) n++;
    if (n > 0) counts.set(prefix, n);
  }
  return counts;
}

type TurnRow = StretchTurn & {
  videoId: string;
  /** The meeting's title and day, on its first turn read only (null on the others). */
  videoTitle: string | null;
  recordedAt: string | Date | null;
  terms: Record<string, number> | null;
};

const SPACE = /\s/;
/**
 * Words in a text, as `\s` separates them (`text.split(/\s+/).filter(Boolean).length`), counted
 * without splitting it: a page of moments counts some 60,000 words.
 */
export function wordCount(text: string): number {
  let words = 0;
  let inWord = false;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    const space = code < 128 ? code === 32 || (code >= 9 && code <= 13) : SPACE.test(text.charAt(at));
    if (!space && !inWord) words++;
    inWord = !space;
  }
  return words;
}

/** What a stretch says of its meeting. */
export type Meeting = { title: string; recordedAt: Date };

/**
 * Turns in transcript order, each with how often it says each of the question's words (stemmed
 * as the index stems them) and, for a prefix, the words as written that start with it (a turn
 * holding none is not read again). With `speakerIds`, only those speakers' turns count words.
 * The counts come from the turn's stored vector, whose stemmed half weighs C and whose words as
 * written weigh D (`kh_turn_vector`, migration 0019): the question's lexemes are picked out by
 * re-weighing them A, without stemming the text again or unnesting the whole vector; a prefix's
 * words are counted from the text (prefixCounts).
 */
export async function loadTurns(
  db: Db,
  lexemes: string[],
  ranges: TurnRange[],
  { prefixes = [], speakerIds = null }: { prefixes?: string[]; speakerIds?: string[] | null } = {},
) {
  // The probe is materialized: inlined, its tsquery was built again for every turn read (a
  // page of moments reads about 1,500 turns; 22 → 7 ms at 1,000 meetings).
  const { rows } = await db.execute<TurnRow>(sql`
    with probe as materialized (
      select to_tsquery('simple', coalesce(concat_ws(' | ',
        (select string_agg(quote_literal(l), ' | ') from unnest(${sql.param(lexemes)}::text[]) l),
        (select string_agg(quote_literal(p) || ':*', ' | ') from unnest(${sql.param(prefixes)}::text[]) p)), '')) as query
    )
    -- A meeting's title and day come with its first turn only: a page of moments reads some
    -- 1,500 turns of 20 meetings, and parsing the day on each cost 2–4 ms.
    select s.video_id as "videoId",
      case when row_number() over meeting = 1 then v.title end as "videoTitle",
      case when row_number() over meeting = 1 then coalesce(v.recorded_at, v.created_at) end as "recordedAt",
      s.index, s.start_seconds as start,
      s.end_seconds as "end", coalesce(sp.name, s.speaker_label) as speaker, s.text,
      case when s.search @@ probe.query
        ${speakerIds ? sql`and s.speaker_id = any(${sql.param(speakerIds)}::uuid[])` : sql``} then (
        select coalesce(json_object_agg(t.lexeme, cardinality(t.positions)), '{}')
        from unnest(ts_filter(setweight(ts_filter(s.search, '{c}'), 'a', ${sql.param(lexemes)}::text[]), '{a}')) t
      ) end as terms
    from unnest(${sql.param(ranges.map((range) => range.videoId))}::uuid[],
      ${sql.param(ranges.map((range) => range.first))}::int[],
      ${sql.param(ranges.map((range) => range.last))}::int[]) as r(video_id, first_index, last_index)
    -- Each range read as a range of the (video, index) key: flattened into a join, the planner
    -- reads every turn of the video and filters (offset 0 keeps it from flattening).
    cross join lateral (
      select * from transcript_segments s
      where s.video_id = r.video_id and s.index between r.first_index and r.last_index offset 0
    ) s
    join videos v on v.id = s.video_id
    left join speakers sp on sp.id = s.speaker_id
    cross join probe
    window meeting as (partition by s.video_id order by s.index)
    order by s.video_id, s.index`);
  const meetings = new Map<string, Meeting>();
  const turns: TermTurn[] = rows.map((row) => {
    if (row.videoTitle !== null && row.recordedAt !== null)
      meetings.set(row.videoId, { title: row.videoTitle, recordedAt: new Date(row.recordedAt) });
    const counts = new Map<string, number>();
    if (row.terms) {
      for (const term in row.terms) counts.set(term, Number(row.terms[term]));
      if (prefixes.length > 0)
        for (const [prefix, n] of prefixCounts(row.text, prefixes)) counts.set(prefix, n);
    }
    return {
      videoId: row.videoId,
      index: row.index,
      start: row.start,
      end: row.end,
      speaker: row.speaker,
      text: row.text,
      terms: counts,
      length: wordCount(row.text),
    };
  });
  return { turns, meetings };
}

export type TurnRange = { videoId: string; first: number; last: number };

/** Passages' turns with a margin on either side, overlapping ranges merged so that each turn is read once. */
export function mergedRanges(
  passages: Array<{ videoId: string; firstSegmentIndex: number; lastSegmentIndex: number }>,
) {
  const sorted = passages
    .map((passage) => ({
      videoId: passage.videoId,
      first: Math.max(0, passage.firstSegmentIndex - PASSAGE_MARGIN),
      last: passage.lastSegmentIndex + PASSAGE_MARGIN,
    }))
    .sort((a, b) => a.videoId.localeCompare(b.videoId) || a.first - b.first);
  const merged: TurnRange[] = [];
  for (const range of sorted) {
    const previous = merged.at(-1);
    if (previous && previous.videoId === range.videoId && range.first <= previous.last + 1)
      previous.last = Math.max(previous.last, range.last);
    else merged.push({ ...range });
  }
  return merged;
}
