import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { VECTOR_IN_MEMORY } from './chunks.ts';
import { type QueryEmbedding, vectorParam } from './embeddings.ts';
import { reciprocalRankFusion } from './fusion.ts';
import { FRAMING_WEIGHT, FRAMING_WORDS } from './question-terms.ts';
import { questionLexemes } from './stemming.ts';
import { meetingLikelihood, organizationPassages } from './video-terms.ts';

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
 * reads only the index. The ranking by embedding is as deep.
 */
const RESCORE = 200;
/**
 * Reciprocal Rank Fusion's constant for a passage's rank and its meeting's likelihood rank: lower
 * than the usual 60, so that the first few meetings stand out (QMSum, in process: organization-wide
 * citation hit@5 0.394 → 0.419 at 20, 0.414 at 60).
 */
const MEETING_FUSION_K = sql.raw(String(20));
/** Passages in a scope small enough for every word to pick candidates (a meeting or a few). */
const SMALL_SCOPE = 2_000;
/**
 * A scope of at most this many passages and at most this share of its organizations' (a few
 * meetings of a large library) is read passage by passage for its first pass, each vector once:
 * cheaper than the index, which lists a word's passages over the whole organization. Any larger
 * scope is read word by word from the index. At 1,000 meetings, in process, 24 QMSum questions:
 * over 5 meetings (≈ 220 passages) 16 ms mean one by one against 28 through the index, about even
 * at 10, and over 50 meetings 77 against 33 ms; a topic summary over a topic's 140–281 meetings
 * 155–234 against 46–69 ms.
 */
const READ_WHOLE = 1_000;
const READ_WHOLE_SHARE = sql.raw(String(0.25));
/** In a larger scope, the passages of the most recent meetings that are vector candidates too. */
const VECTOR_RECENT = 2_000;
/** A word in more passages than this share of the scope is too common to pick candidates with. */
const COMMON_SHARE = 0.2;

/** The scope's conditions on a video (alias `v`): its organizations, never soft-deleted, and the narrowing asked for. */
export function videoScopeConditions(scope: RetrievalScope): SQL {
  const conditions: SQL[] = [
    sql`v.organization_id = any(${sql.param(scope.organizationIds)}::uuid[])`,
    sql`not v.is_deleted`,
  ];
  if (scope.videoIds) conditions.push(sql`v.id = any(${sql.param(scope.videoIds)}::uuid[])`);
  if (scope.channelId) conditions.push(sql`v.channel_id = ${scope.channelId}`);
  if (scope.seriesId) conditions.push(sql`v.series_id = ${scope.seriesId}`);
  if (scope.collectionId) conditions.push(sql`v.collection_id = ${scope.collectionId}`);
  return sql.join(conditions, sql` and `);
}

/** Whether the scope is narrower than its organizations: some of their videos, a channel, a series, a collection. */
const narrowed = (scope: RetrievalScope) =>
  Boolean(scope.videoIds || scope.channelId || scope.seriesId || scope.collectionId);

/** The scope's conditions on a passage (alias `c`) and its video (`v`). */
export const scopeConditions = (scope: RetrievalScope): SQL =>
  sql`c.organization_id = any(${sql.param(scope.organizationIds)}::uuid[]) and ${videoScopeConditions(scope)}`;

/**
 * The lexical ranking, as CTEs ending in `ranked` (every candidate passage's score): BM25-like
 * over the question's stemmed words (stop words dropped): each word counts by how rare it is among
 * the passages in scope (idf) times how much the passage holds it (PostgreSQL's saturating
 * `ts_rank` of that word), discounted for long passages, plus a share of its neighbours'. That
 * rank is fused (Reciprocal Rank Fusion) with the rank of the passage's meeting by how likely the
 * question is to be about it as a whole (video-terms.ts), framing words light: in a scope of many
 * meetings, the right meeting first. Every passage needs at least one of the words; a question of
 * stop words only finds nothing.
 */
function lexicalRanking(question: string, scope: RetrievalScope): SQL {
  return sql`terms as (
      select lexeme, quote_literal(lexeme)::tsquery as query
      from unnest(${questionLexemes(question)}) as lexeme
    ),
    scope_videos as materialized (select v.id from videos v where ${videoScopeConditions(scope)}),
    -- The scope's passages and their words, from each video's counts (video-terms.ts), not read;
    -- and whether its first pass reads its passages one by one (see READ_WHOLE).
    totals as (
      select n, average_words,
        n <= ${READ_WHOLE}
          and n <= ${READ_WHOLE_SHARE} * ${organizationPassages(sql`${sql.param(scope.organizationIds)}::uuid[]`)}
          as read_whole
      from (
        select coalesce(sum(t.passages), 0)::float8 as n,
          greatest(sum(t.passage_words)::float8 / nullif(sum(t.passages), 0), 1) as average_words
        from video_term_totals t join scope_videos s on s.id = t.video_id
      ) scope_totals
    ),
    -- How many passages hold each word, up to the point where the word is too common to matter
    -- (its idf is then that of the cap).
    counted as (
      select t.lexeme, t.query, least(df.n, greatest(ceil(totals.n * ${sql.raw(String(COMMON_SHARE))}), 1)) as holding,
        df.n >= totals.n * ${sql.raw(String(COMMON_SHARE))} as common
      from terms t cross join totals
      cross join lateral (
        select coalesce(sum(p.passages), 0)::float8 as n
        from video_terms p join scope_videos s on s.id = p.video_id
        where p.organization_id = any(${sql.param(scope.organizationIds)}::uuid[]) and p.lexeme = t.lexeme
      ) df
      where df.n > 0
    ),
    weights as (
      select lexeme, query, common, ln(1 + (totals.n - holding + 0.5) / (holding + 0.5)) as idf
      from counted cross join totals
    ),
    -- The words that pick candidates: in a large scope only the distinctive ones (all of them
    -- when none is).
    picking as (
      select w.query, w.idf from weights w cross join totals
      where not w.common or totals.n <= ${SMALL_SCOPE} or not exists (select 1 from weights where not common)
    ),
    -- First pass: passages by the summed idf of the picking words they hold.
    rough as (
      select id, sum(idf) as score from (
        -- Word by word, each from the index. In a narrowed scope "offset 0" keeps it so: joined
        -- over all the words, the planner may scan the scope's passages and test each word on
        -- each, fetching a passage's vector from TOAST once per word (a 6-word question over 100
        -- meetings of 1,000: 153 → 27 ms). Over whole organizations its own plan already reads
        -- each word from the index, and joins the scope once where the fence would join it per
        -- word (QA over 1,000 meetings, in process: 3–4 % slower with it).
        select c.id, w.idf
        from picking w
        cross join totals
        cross join lateral (
          select c.id, c.video_id from transcript_chunks c where c.search @@ w.query
          ${narrowed(scope) ? sql`offset 0` : sql``}
        ) c
        join scope_videos s on s.id = c.video_id
        where not totals.read_whole
        union all
        select c.id, w.idf
        from (
          select c.id, ${VECTOR_IN_MEMORY}
          from transcript_chunks c join scope_videos s on s.id = c.video_id cross join totals
          where totals.read_whole
          offset 0
        ) c
        join picking w on c.search @@ w.query
      ) found
      group by id
      order by score desc, id
      limit ${RESCORE}
    ),
    scored as (
      select c.id, c.video_id, c.index,
        score.value / (1 - ${lengthWeight} + ${lengthWeight} * c.word_count / totals.average_words) as own
      from (
        select c.id, c.video_id, c.index, c.word_count, ${VECTOR_IN_MEMORY}
        from rough r join transcript_chunks c on c.id = r.id
        offset 0
      ) c
      cross join totals
      cross join lateral (
        select sum(w.idf * ts_rank(c.search, w.query)) as value from weights w where c.search @@ w.query
      ) score
    ),
    smoothed as materialized (
      select s.id, s.video_id, s.own + ${neighbourWeight} * (
        case when lag(s.index) over w = s.index - 1 then lag(s.own) over w else 0 end
        + case when lead(s.index) over w = s.index + 1 then lead(s.own) over w else 0 end) as score
      from scored s
      window w as (partition by s.video_id order by s.index)
    ),
    ${meetingLikelihood({
      words: sql`(select t.lexeme,
        case when to_tsvector('english', ${FRAMING_WORDS}) @@ t.query then ${sql.raw(String(FRAMING_WEIGHT))} else 1 end
          as factor
        from terms t)`,
      videos: sql`smoothed`,
      organizations: sql`${sql.param(scope.organizationIds)}::uuid[]`,
    })},
    ranked as (
      select s.id, s.video_id,
        (1.0 / (${MEETING_FUSION_K} + row_number() over (order by s.score desc, s.id))
          + 1.0 / (${MEETING_FUSION_K} + dense_rank() over (order by l.value desc nulls last)))::float8 as score
      from smoothed s left join meeting_likelihood l on l.video_id = s.video_id
    )`;
}

/** The passages' columns a caller gets, from `c` (transcript_chunks) and `v` (videos). */
const passageColumns = sql`c.id as "chunkId", c.video_id as "videoId", v.title as "videoTitle", c.index,
      c.first_segment_index as "firstSegmentIndex", c.last_segment_index as "lastSegmentIndex",
      c.start_seconds as "startSeconds", c.end_seconds as "endSeconds", c.speaker_names as "speakerNames",
      c.text`;

/**
 * The passages of transcripts that best answer a question, best first, with their scores: what
 * the AI layer quotes and cites. Ranking is lexical (see lexicalRanking); given the question's
 * vector (`queryEmbedding`, from embeddings.ts), it is fused with a ranking by cosine similarity
 * (see fusedChunks).
 */
export async function retrieveChunks(
  db: Db,
  question: string,
  scope: RetrievalScope,
  { limit = 5, queryEmbedding }: { limit?: number; queryEmbedding?: QueryEmbedding } = {},
): Promise<RetrievedChunk[]> {
  if (scope.organizationIds.length === 0 || (scope.videoIds && scope.videoIds.length === 0)) return [];
  if (queryEmbedding) return fusedChunks(db, question, scope, limit, queryEmbedding);
  const { rows } = await db.execute<RetrievedChunk>(sql`
    with ${lexicalRanking(question, scope)},
    best as (select * from ranked order by score desc, id limit ${limit})
    select ${passageColumns}, best.score
    from best join transcript_chunks c on c.id = best.id join videos v on v.id = c.video_id
    order by best.score desc, c.video_id, c.index`);
  return rows;
}

/**
 * Lexical ranks fused with vector ranks by Reciprocal Rank Fusion; `score` is the fused score.
 * The vector ranking holds the passages with a vector from the query's model, by cosine
 * similarity (vectors are stored at unit length: a dot product), best `RESCORE` first. Its
 * candidates: every passage of a scope of up to `SMALL_SCOPE` passages; in a larger scope, the
 * lexical candidates plus the `VECTOR_RECENT` passages of the most recent meetings — similarity
 * is computed in SQL, about 0.1–0.3 ms per 1,536-dimension passage, so the bound keeps a question
 * over a whole library under half a second, and recent meetings are what most questions are
 * about. A passage found by its vector alone (none of the words: a synonym, a paraphrase) enters
 * the result like any other.
 */
async function fusedChunks(
  db: Db,
  question: string,
  scope: RetrievalScope,
  limit: number,
  queryEmbedding: QueryEmbedding,
): Promise<RetrievedChunk[]> {
  const { model } = queryEmbedding;
  const { rows } = await db.execute<{ lexical: string[] | null; vector: string[] | null }>(sql`
    with ${lexicalRanking(question, scope)},
    probe as (select ${vectorParam(queryEmbedding.vector)}::real[] as v),
    pool as (
      select c.id from transcript_chunks c join scope_videos s on s.id = c.video_id cross join totals
      where totals.n <= ${SMALL_SCOPE}
      union
      select id from ranked
      union
      (select c.id
        from transcript_chunks c join scope_videos s on s.id = c.video_id cross join totals
        join chunk_embeddings e on e.chunk_id = c.id and e.model = ${model}
        join videos v on v.id = e.video_id
        where totals.n > ${SMALL_SCOPE}
        order by coalesce(v.recorded_at, v.created_at) desc, c.id desc
        limit ${VECTOR_RECENT})
    ),
    nearest as (
      select p.id, similarity.value
      from pool p
      join chunk_embeddings e on e.chunk_id = p.id and e.model = ${model}
      cross join probe
      cross join lateral (select sum(a * b) as value from unnest(e.embedding, probe.v) as t(a, b)) similarity
      where array_length(e.embedding, 1) = array_length(probe.v, 1)
      order by similarity.value desc, p.id
      limit ${RESCORE}
    )
    select (select array_agg(id::text order by score desc, id) from ranked) as lexical,
      (select array_agg(id::text order by value desc, id) from nearest) as vector`);
  const fused = reciprocalRankFusion([rows[0]?.lexical ?? [], rows[0]?.vector ?? []]).slice(0, limit);
  if (fused.length === 0) return [];
  const { rows: passages } = await db.execute<Omit<RetrievedChunk, 'score'>>(sql`
    select ${passageColumns}
    from unnest(${sql.param(fused.map((entry) => entry.id))}::uuid[]) as f(id)
    join transcript_chunks c on c.id = f.id join videos v on v.id = c.video_id`);
  const byId = new Map(passages.map((passage) => [passage.chunkId, passage]));
  // A passage rewritten between the two statements is gone: the others keep their places.
  return fused.flatMap(({ id, score }) => {
    const passage = byId.get(id);
    return passage ? [{ ...passage, score }] : [];
  });
}
