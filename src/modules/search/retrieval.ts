import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';

/** Where to look: always within organizations, optionally narrowed to videos or a channel, series or collection. */
export type RetrievalScope = {
  organizationIds: string[];
  videoIds?: string[];
  channelId?: string;
  seriesId?: string;
  collectionId?: string;
};

export type RetrievedChunk = {
  chunkId: string;
  videoId: string;
  videoTitle: string;
  index: number;
  firstSegmentIndex: number;
  lastSegmentIndex: number;
  startSeconds: number;
  endSeconds: number;
  speakerNames: string[];
  text: string;
  score: number;
};

/** BM25's length normalisation: how much a long passage's matches are discounted. */
const lengthWeight = sql.raw(String(0.5));
/** The share of its neighbours' scores a passage gets: answers in meetings run across passages. */
const neighbourWeight = sql.raw(String(0.3));
/**
 * Passages ranked exactly (their vectors read); the others are left out by a first pass that
 * reads only the index.
 */
const RESCORE = 200;
/** Passages in a scope small enough for every word to pick candidates (a meeting or a few). */
const SMALL_SCOPE = 2_000;
/** A word in more passages than this share of the scope is too common to pick candidates with. */
const COMMON_SHARE = 0.2;

function scopeConditions(scope: RetrievalScope): SQL {
  const conditions: SQL[] = [
    sql`c.organization_id = any(${sql.param(scope.organizationIds)}::uuid[])`,
    sql`not v.is_deleted`,
  ];
  if (scope.videoIds) conditions.push(sql`c.video_id = any(${sql.param(scope.videoIds)}::uuid[])`);
  if (scope.channelId) conditions.push(sql`v.channel_id = ${scope.channelId}`);
  if (scope.seriesId) conditions.push(sql`v.series_id = ${scope.seriesId}`);
  if (scope.collectionId) conditions.push(sql`v.collection_id = ${scope.collectionId}`);
  return sql.join(conditions, sql` and `);
}

/**
 * The passages of transcripts that best answer a question, best first, with their scores: what
 * the AI layer quotes and cites. Ranking is BM25-like over the question's stemmed words (stop
 * words dropped): each word counts by how rare it is among the passages in scope (idf) times
 * how much the passage holds it (PostgreSQL's saturating `ts_rank` of that word), discounted for
 * long passages. Every passage needs at least one of the words; a question of stop words only
 * finds nothing.
 */
export async function retrieveChunks(
  db: Db,
  question: string,
  scope: RetrievalScope,
  { limit = 5 }: { limit?: number } = {},
): Promise<RetrievedChunk[]> {
  if (scope.organizationIds.length === 0 || (scope.videoIds && scope.videoIds.length === 0)) return [];
  const { rows } = await db.execute<RetrievedChunk>(sql`
    with terms as (
      select lexeme, quote_literal(lexeme)::tsquery as query
      from unnest(tsvector_to_array(to_tsvector('english', ${question}))) as lexeme
    ),
    scoped as materialized (
      select c.id, c.word_count
      from transcript_chunks c join videos v on v.id = c.video_id
      where ${scopeConditions(scope)}
    ),
    totals as (select count(*)::float8 as n, greatest(avg(word_count), 1) as average_words from scoped),
    -- How many passages hold each word, counted from the index, up to the point where the word
    -- is too common to matter (its idf is then that of the cap).
    counted as (
      select t.lexeme, t.query, df.n as holding, df.n >= totals.n * ${sql.raw(String(COMMON_SHARE))} as common
      from terms t cross join totals
      cross join lateral (
        select count(*)::float8 as n from (
          select 1 from transcript_chunks c join scoped s on s.id = c.id
          where c.search @@ t.query
          limit greatest(ceil(totals.n * ${sql.raw(String(COMMON_SHARE))}), 1)
        ) capped
      ) df
      where df.n > 0
    ),
    weights as (
      select lexeme, query, common, ln(1 + (totals.n - holding + 0.5) / (holding + 0.5)) as idf
      from counted cross join totals
    ),
    -- First pass, from the index alone: passages by the summed idf of the words they hold — in a
    -- large scope only the distinctive words (all of them when none is).
    rough as (
      select c.id, sum(w.idf) as score
      from weights w
      cross join totals
      join transcript_chunks c on c.search @@ w.query
      join scoped s on s.id = c.id
      where not w.common or totals.n <= ${SMALL_SCOPE} or not exists (select 1 from weights where not common)
      group by c.id
      order by score desc
      limit ${RESCORE}
    ),
    scored as (
      select c.id, c.video_id, c.index,
        score.value / (1 - ${lengthWeight} + ${lengthWeight} * c.word_count / totals.average_words) as own
      from rough r join transcript_chunks c on c.id = r.id cross join totals
      cross join lateral (
        select sum(w.idf * ts_rank(c.search, w.query)) as value from weights w where c.search @@ w.query
      ) score
    ),
    smoothed as (
      select s.id, s.own + ${neighbourWeight} * (
        case when lag(s.index) over w = s.index - 1 then lag(s.own) over w else 0 end
        + case when lead(s.index) over w = s.index + 1 then lead(s.own) over w else 0 end) as score
      from scored s
      window w as (partition by s.video_id order by s.index)
    ),
    best as (select * from smoothed order by score desc, id limit ${limit})
    select c.id as "chunkId", c.video_id as "videoId", v.title as "videoTitle", c.index,
      c.first_segment_index as "firstSegmentIndex", c.last_segment_index as "lastSegmentIndex",
      c.start_seconds as "startSeconds", c.end_seconds as "endSeconds", c.speaker_names as "speakerNames",
      c.text, best.score
    from best join transcript_chunks c on c.id = best.id join videos v on v.id = c.video_id
    order by best.score desc, c.video_id, c.index`);
  return rows;
}
