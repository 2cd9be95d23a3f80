import { eq, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { memberships } from '../../db/schema/index.ts';
import { toPage } from '../../http/pagination.ts';
import { requireRole } from '../organizations/access.ts';
import { embedQuery, type QueryEmbedding, vectorParam } from './embeddings.ts';
import { RRF_K } from './fusion.ts';
import { HEADLINE_OPTIONS, momentsOf } from './moments.ts';
import { constrains, parseQuery, rankingTerms, snippetQuery, toTsquery } from './query.ts';
import { asksQuestion, cueWords } from './question-terms.ts';
import { transcriptRanking } from './ranking.ts';
import { SEARCH_TYPES, type SearchQuery, type SearchResult, type SearchType } from './schemas.ts';

/** Rank weights for D, C, B, A (ts_rank_cd's order): titles and names count most. */
const WEIGHTS = sql.raw(`'{0.1, 0.2, 0.4, 1.0}'::float4[]`);
/** Normalisation 32: rank / (rank + 1), so every type's score falls in [0, 1). */
const rank = (vector: SQL) => sql`ts_rank_cd(${WEIGHTS}, ${vector}, q.query, 32)`;
/** A snippet of `text`, HTML escaped first so that only our `<mark>` tags are markup. */
const headline = (text: SQL) =>
  sql`ts_headline('english', kh_html_escape(${text}), q.marks, ${HEADLINE_OPTIONS})`;

type Scope = {
  organizationIds: string[];
  /** The speakers a `speaker` filter names (none found: nothing matches). */
  speakerIds: string[] | null;
};

/** The organizations searched: the one asked for (403 unless a member) or all of the caller's. */
async function organizationsOf(db: Db, userId: string, organizationId: string | undefined) {
  if (organizationId) {
    await requireRole(db, { userId, organizationId });
    return [organizationId];
  }
  const rows = await db
    .select({ id: memberships.organizationId })
    .from(memberships)
    .where(eq(memberships.userId, userId));
  return rows.map((row) => row.id);
}

async function speakersNamed(db: Db, organizationIds: string[], name: string): Promise<string[]> {
  const rows = await db.execute<{ id: string }>(sql`
    select id from speakers
    where organization_id = any(${sql.param(organizationIds)}::uuid[]) and normalized_name = lower(${name})`);
  return rows.rows.map((row) => row.id);
}

/**
 * Passages (alias `c`) that hold the words; with a speaker filter, in a turn of one of those
 * speakers — a passage where Alice speaks and Bob says the words is not Alice saying them.
 */
function spokenBy(speakerIds: string[] | null): SQL {
  if (!speakerIds) return sql`true`;
  return sql`exists (
    select 1 from transcript_segments s
    where s.video_id = c.video_id and s.index between c.first_segment_index and c.last_segment_index
      and s.speaker_id = any(${sql.param(speakerIds)}::uuid[]) and s.search @@ q.query)`;
}

/** The text a snippet is cut from: the title (or name) and the description, so that either can be marked. */
const titled = (title: SQL, description: SQL) => sql`${title} || coalesce(': ' || ${description}, '')`;

/** Conditions on the video (alias `v`) that video, clip and comment results share. */
function videoConditions(query: SearchQuery): SQL {
  const conditions: SQL[] = [sql`not v.is_deleted`];
  if (query.channelId) conditions.push(sql`v.channel_id = ${query.channelId}`);
  if (query.seriesId) conditions.push(sql`v.series_id = ${query.seriesId}`);
  if (query.collectionId) conditions.push(sql`v.collection_id = ${query.collectionId}`);
  return sql.join(conditions, sql` and `);
}

/** Creation time and author conditions on a result's own row. */
function ownConditions(query: SearchQuery, createdAt: SQL, author: SQL): SQL {
  const conditions: SQL[] = [sql`true`];
  if (query.authorId) conditions.push(sql`${author} = ${query.authorId}`);
  if (query.from) conditions.push(sql`${createdAt} >= ${query.from.toISOString()}::timestamptz`);
  if (query.to) conditions.push(sql`${createdAt} <= ${query.to.toISOString()}::timestamptz`);
  return sql.join(conditions, sql` and `);
}

/**
 * Every result of the query, one row each: videos (matched by title and description, or by
 * their transcript's passages — a video's score adds both), clips, comments, channels, series
 * and collections. Filters on videos (channel, series, collection, speaker) leave out channels,
 * series and collections; a speaker filter keeps only videos where that speaker says the words.
 * Passages are ranked exactly only within the rescoring window (docs/search.md): the videos with
 * the most matching passages, counted from the index without reading any vector.
 */
function resultsSql(query: SearchQuery, scope: Scope): SQL {
  const orgs = sql`${sql.param(scope.organizationIds)}::uuid[]`;
  const videoFiltered = Boolean(query.channelId || query.seriesId || query.collectionId || scope.speakerIds);
  const parts: SQL[] = [
    sql`
    select 'video' as type, v.id, v.id as video_id, v.organization_id, v.title,
      ${scope.speakerIds ? sql`0` : sql`case when v.search @@ q.query then ${rank(sql`v.search`)} else 0 end`}
        + coalesce(h.score, 0) as score,
      v.created_at, ${titled(sql`v.title`, sql`v.description`)} as snippet_source,
      ${scope.speakerIds ? sql`false` : sql`v.search @@ q.query`} as text_match, h.best_chunk_ids
    from videos v
    cross join q
    left join video_hits h on h.video_id = v.id
    where v.organization_id = any(${orgs}) and ${videoConditions(query)}
      and ${ownConditions(query, sql`v.created_at`, sql`v.author_id`)}
      and (h.video_id is not null ${scope.speakerIds ? sql`` : sql`or v.search @@ q.query`})`,
  ];
  if (!scope.speakerIds) {
    parts.push(
      sql`
      select 'clip', k.id, k.video_id, k.organization_id, k.title, ${rank(sql`k.search`)}, k.created_at,
        ${titled(sql`k.title`, sql`k.description`)}, true, null::uuid[]
      from clips k cross join q join videos v on v.id = k.video_id
      where k.organization_id = any(${orgs}) and k.search @@ q.query and ${videoConditions(query)}
        and ${ownConditions(query, sql`k.created_at`, sql`k.created_by`)}`,
      sql`
      select 'comment', m.id, m.video_id, m.organization_id, v.title, ${rank(sql`m.search`)}, m.created_at,
        m.body, true, null::uuid[]
      from comments m cross join q join videos v on v.id = m.video_id
      where m.organization_id = any(${orgs}) and m.search @@ q.query and m.deleted_at is null
        and ${videoConditions(query)} and ${ownConditions(query, sql`m.created_at`, sql`m.author_id`)}`,
    );
  }
  if (!videoFiltered) {
    for (const [type, table] of [
      ['channel', 'channels'],
      ['series', 'series'],
      ['collection', 'collections'],
    ] as const) {
      parts.push(sql`
        select ${type}, t.id, null::uuid, t.organization_id, t.name, ${rank(sql`t.search`)}, t.created_at,
          ${titled(sql`t.name`, sql`t.description`)}, true, null::uuid[]
        from ${sql.identifier(table)} t cross join q
        where t.organization_id = any(${orgs}) and t.search @@ q.query
          and ${ownConditions(query, sql`t.created_at`, sql`t.created_by`)}`);
    }
  }
  return sql.join(parts, sql`\nunion all\n`);
}

type ResultRow = {
  facets: Partial<Record<SearchType, number>>;
  idf_by_term: Record<string, number>;
  type: SearchType | null;
  id: string;
  video_id: string | null;
  organization_id: string;
  title: string;
  score: number;
  created_at: string;
  snippet: string;
  text_match: boolean;
  best_chunk_ids: string[] | null;
};

/** The results of a search, and the page of them: by score, then newest first. */
function lexicalPage(query: SearchQuery, scope: Scope, types: SearchType[]) {
  return {
    ctes: sql`results as materialized (${resultsSql(query, scope)})`,
    page: sql`select * from results
      where type = any(${sql.param(types)}::text[])
      order by score desc, created_at desc, id`,
  };
}

/** Passages whose similarity to the query is computed, at most, in a fused search (see fusedPage). */
const VECTOR_PASSAGES = 1_000;

/**
 * The results of a search whose query has a vector, and the page of them, by Reciprocal Rank
 * Fusion: every result scores 1/(60 + its lexical rank) — the order a lexical search gives the
 * selected types — and a video adds 1/(60 + its vector rank), by the best cosine similarity of its
 * passages to the query. Fusion re-ranks what the words found; it adds no video the words did not
 * find (a snippet marks the words and a moment links to where they were said), so facets and
 * totals are those of a lexical search. Similarity is computed in SQL for the passages of the
 * lexically best videos first, up to `VECTOR_PASSAGES` passages (a few hundred milliseconds at
 * 1,536 dimensions): the pages people read. `score` is the fused score.
 */
function fusedPage(query: SearchQuery, scope: Scope, types: SearchType[], queryEmbedding: QueryEmbedding) {
  const { model } = queryEmbedding;
  const ctes = sql`results as materialized (${resultsSql(query, scope)}),
    probe as (select ${vectorParam(queryEmbedding.vector)}::real[] as v),
    pool as (
      select e.chunk_id, e.video_id
      from (
        select id, row_number() over (order by score desc, created_at desc, id) as position
        from results where type = 'video'
      ) found
      join chunk_embeddings e on e.video_id = found.id and e.model = ${model}
      order by found.position, e.chunk_id
      limit ${VECTOR_PASSAGES}
    ),
    nearest as (
      select p.video_id, row_number() over (order by max(similarity.value) desc, p.video_id) as rank
      from pool p
      join chunk_embeddings e on e.chunk_id = p.chunk_id
      cross join probe
      cross join lateral (select sum(a * b) as value from unnest(e.embedding, probe.v) as t(a, b)) similarity
      where array_length(e.embedding, 1) = array_length(probe.v, 1)
      group by p.video_id
    )`;
  const page = sql`select * from (
        select r.type, r.id, r.video_id, r.organization_id, r.title, r.created_at, r.snippet_source,
          r.text_match, r.best_chunk_ids,
          (1.0 / (${sql.raw(String(RRF_K))} + row_number() over (order by r.score desc, r.created_at desc, r.id))
            + coalesce(1.0 / (${sql.raw(String(RRF_K))} + s.rank), 0))::float8 as score
        from results r
        left join nearest s on r.type = 'video' and s.video_id = r.id
        where r.type = any(${sql.param(types)}::text[])
      ) fused
      order by score desc, created_at desc, id`;
  return { ctes, page };
}

/** The caller's app, when search may embed the query (an embedding model is configured). */
export type SearchEmbedding = Parameters<typeof embedQuery>[0];

/**
 * `GET /search`: what the caller may read (their organizations' content, nothing soft-deleted),
 * ranked by relevance then recency, with snippets, moments for videos and counts per type. With
 * `embedding` and an embedding model configured, the ranking fuses lexical ranks with the
 * videos' vector ranks (see fusedPage).
 */
export async function search(db: Db, userId: string, query: SearchQuery, embedding?: SearchEmbedding) {
  const organizationIds = await organizationsOf(db, userId, query.organizationId);
  const speakerIds = query.speaker ? await speakersNamed(db, organizationIds, query.speaker) : null;
  const scope: Scope = { organizationIds, speakerIds };
  const types = query.types ?? [...SEARCH_TYPES];
  const empty = { ...toPage<SearchResult>([], 0, query), facets: { types: facetsOf({}) } };
  if (organizationIds.length === 0 || speakerIds?.length === 0) return empty;

  const parsed = parseQuery(query.q);
  // Only exclusions ("-draft") would match nearly everything: nothing was asked for.
  if (parsed.clauses.length === 0) return empty;
  const tsquery = toTsquery(parsed);
  const marks = snippetQuery(parsed);
  const offset = (query.page - 1) * query.limit;
  // A speaker filter asks who said the words, which a vector cannot tell.
  const fuses = embedding !== undefined && types.includes('video') && !speakerIds;
  const meaning = parsed.clauses.flatMap((clause) => clause.map((term) => term.text)).join(' ');
  const queryEmbedding = fuses ? await embedQuery(embedding, meaning) : undefined;
  const page = queryEmbedding
    ? fusedPage(query, scope, types, queryEmbedding)
    : lexicalPage(query, scope, types);
  const organizations = sql`${sql.param(organizationIds)}::uuid[]`;
  const ranking = transcriptRanking(rankingTerms(parsed), {
    organizations,
    videoCondition: sql`${videoConditions(query)} and ${ownConditions(query, sql`v.created_at`, sql`v.author_id`)}`,
    // Every candidate holds a word of the query: the match query adds only what it requires or excludes.
    chunkCondition: sql`${spokenBy(speakerIds)} and ${constrains(parsed) ? sql`c.search @@ q.query` : sql`true`}`,
  });
  const { rows } = await db.execute<ResultRow>(sql`
    with q as materialized (select ${tsquery} as query, ${marks} as marks),
    ${ranking},
    ${page.ctes},
    facets as (select type, count(*)::int as n from results group by type)
    select (select coalesce(json_object_agg(type, n), '{}'::json) from facets) as facets,
      (select coalesce(json_object_agg(ord, idf), '{}'::json) from term_weights) as idf_by_term,
      page.type, page.id, page.video_id, page.organization_id, page.title, page.score, page.created_at,
      page.text_match, page.best_chunk_ids, ${headline(sql`page.snippet_source`)} as snippet
    from q
    left join lateral (
      ${page.page}
      limit ${query.limit} offset ${offset}
    ) page on true`);
  const facets = facetsOf(rows[0]?.facets ?? {});
  const total = types.reduce((sum, type) => sum + facets[type], 0);
  const hits = rows.filter((row) => row.type !== null);
  const moments = await momentsOf(db, {
    marks,
    terms: parsed.clauses.flat(),
    idfByTerm: rows[0]?.idf_by_term ?? {},
    videos: hits
      .filter((row) => row.type === 'video' && row.best_chunk_ids)
      .map((row) => ({ id: row.id, bestChunkIds: row.best_chunk_ids as string[] })),
    speakerIds,
    question: asksQuestion(query.q),
    cues: cueWords(query.q),
  });
  const data = hits.map((row): SearchResult => {
    const result: SearchResult = {
      type: row.type as SearchType,
      id: row.id,
      videoId: row.video_id,
      organizationId: row.organization_id,
      title: row.title,
      snippet: row.snippet,
      score: Math.round(row.score * 10_000) / 10_000,
      createdAt: new Date(row.created_at),
    };
    if (row.type !== 'video') return result;
    const videoMoments = (moments.get(row.id) ?? []).map(({ start, end, speaker, snippet }) => ({
      start,
      end,
      speaker,
      snippet,
    }));
    // A video found by its transcript shows where the words were said rather than its description.
    const snippet = row.text_match || videoMoments.length === 0 ? row.snippet : videoMoments[0]?.snippet;
    return { ...result, snippet: snippet ?? row.snippet, moments: videoMoments };
  });
  return { ...toPage(data, total, query), facets: { types: facets } };
}

function facetsOf(counts: Partial<Record<SearchType, number>>): Record<SearchType, number> {
  return Object.fromEntries(SEARCH_TYPES.map((type) => [type, counts[type] ?? 0])) as Record<
    SearchType,
    number
  >;
}
