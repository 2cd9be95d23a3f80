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
const neighbourWeight = sql.raw(String(0.6));

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
    -- Ids only: the passages' text and vectors are read from the table, through its indexes.
    scoped as materialized (
      select c.id, c.word_count
      from transcript_chunks c join videos v on v.id = c.video_id
      where ${scopeConditions(scope)}
    ),
    totals as (select count(*)::float8 as n, greatest(avg(word_count), 1) as average_words from scoped),
    weights as (
      select t.lexeme, t.query,
        ln(1 + (totals.n - df.n + 0.5) / (df.n + 0.5)) as idf
      from terms t cross join totals
      cross join lateral (
        select count(*)::float8 as n
        from transcript_chunks c join scoped s on s.id = c.id
        where c.search @@ t.query
      ) df
      where df.n > 0
    ),
    candidates as (
      select c.id, c.video_id, c.index, c.word_count, c.search
      from transcript_chunks c join scoped s on s.id = c.id
      where c.search @@ (select coalesce(tsquery_or_agg, ''::tsquery) from (
        select string_agg(quote_literal(lexeme), ' | ')::tsquery as tsquery_or_agg from weights) any_word)
    ),
    scored as (
      select s.id, s.video_id, s.index,
        score.value / (1 - ${lengthWeight} + ${lengthWeight} * s.word_count / totals.average_words) as own
      from candidates s cross join totals
      cross join lateral (
        select sum(w.idf * ts_rank(s.search, w.query)) as value from weights w where s.search @@ w.query
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
