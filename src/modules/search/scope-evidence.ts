import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { namedSpeakers, type SpeakerName } from './question-terms.ts';
import { type RetrievalScope, scopeConditions, videoScopeConditions } from './retrieval.ts';

/**
 * Whether a narrowed scope (some meetings, a channel, a series, a collection) is where a
 * question is answered, or whether the organization discusses it elsewhere: the evidence QA
 * weighs before answering from the scope (see answersFromScope in ai/qa.ts). From the index
 * alone; a scope that is the whole organization stands at the top by definition.
 */

const narrowed = (scope: RetrievalScope) =>
  Boolean(scope.videoIds || scope.channelId || scope.seriesId || scope.collectionId);

/**
 * Dirichlet smoothing of a meeting's passage counts toward the organization's, in passages: a
 * meeting of a few dozen passages weighs about as much as what it says.
 */
const LIKELIHOOD_SMOOTHING = 10;

export type ScopeEvidence = {
  /** See ScopeJudgement.standing. */
  standing: number;
  /** See ScopeJudgement.likelihoodGap. */
  likelihoodGap: number;
};

/**
 * How the scope compares with the whole organization for the question's content words, from the
 * indexes alone — one pass over the passages holding them, and each meeting's passage counts
 * (video-terms.ts):
 * - standing: each passage scores the summed idf of the content words it holds, and the standing is
 *   the scope's best over the organization's best;
 * - likelihoodGap: each meeting's query likelihood (the question's content words drawn from its
 *   passages, Dirichlet-smoothed toward the organization's, over the organization's own rate) and
 *   the gap between the scope's best meeting and the organization's best (0 when the scope holds
 *   it): how much less likely the question is to be about the scope than about the meeting it
 *   suits best.
 */
export async function scopeEvidence(
  db: Db,
  scope: RetrievalScope,
  content: string[],
  weight: (lexeme: string) => number,
): Promise<ScopeEvidence> {
  const level: ScopeEvidence = { standing: 1, likelihoodGap: 0 };
  if (!narrowed(scope) || content.length === 0) return level;
  const [{ rows }, total] = await Promise.all([
    db.execute<{
      videoId: string;
      inScope: boolean;
      passages: number;
      held: Record<string, number> | null;
      bestPassage: number | null;
    }>(sql`
    with words as (
      select lexeme, quote_literal(lexeme)::tsquery as query, idf
      from unnest(${sql.param(content)}::text[], ${sql.param(content.map(weight))}::float8[]) as w(lexeme, idf)
    ),
    held as materialized (
      select c.id, c.video_id, w.lexeme, w.idf
      from words w
      join transcript_chunks c on c.search @@ w.query
      where c.organization_id = any(${sql.param(scope.organizationIds)}::uuid[])
    ),
    best_passages as (
      select video_id, max(score) as score from (
        select video_id, sum(idf) filter (where idf > 0) as score from held group by id, video_id
      ) passages
      group by video_id
    ),
    -- Each meeting's passages holding each word, from its counts (video-terms.ts), not the postings.
    counted as (
      select t.video_id, json_object_agg(t.lexeme, t.passages) as held
      from words w join video_terms t on t.organization_id = any(${sql.param(scope.organizationIds)}::uuid[])
        and t.lexeme = w.lexeme and t.passages > 0
      group by t.video_id
    ),
    candidates as (
      select v.id, ${videoScopeConditions(scope)} as in_scope
      from videos v
      where v.organization_id = any(${sql.param(scope.organizationIds)}::uuid[]) and not v.is_deleted
        and (v.id in (select video_id from counted) or (${videoScopeConditions(scope)}))
    )
    select k.id as "videoId", k.in_scope as "inScope", coalesce(totals.passages, 0) as passages,
      counted.held, best_passages.score as "bestPassage"
    from candidates k
    left join video_term_totals totals on totals.video_id = k.id
    left join counted on counted.video_id = k.id
    left join best_passages on best_passages.video_id = k.id`),
    organizationPassages(db, scope.organizationIds),
  ]);
  if (rows.length === 0 || total === 0) return level;
  // The organization's rate of each word: the share of its passages that hold it.
  const rate = new Map(
    content.map((lexeme) => [
      lexeme,
      Math.max(
        0.5,
        rows.reduce((sum, row) => sum + (row.held?.[lexeme] ?? 0), 0),
      ) / total,
    ]),
  );
  const likelihood = (row: (typeof rows)[number]) =>
    content.reduce((sum, lexeme) => {
      const p = rate.get(lexeme) as number;
      const held = Number(row.held?.[lexeme] ?? 0);
      return (
        sum +
        Math.log((held + LIKELIHOOD_SMOOTHING * p) / (row.passages + LIKELIHOOD_SMOOTHING)) -
        Math.log(p)
      );
    }, 0);
  const meetings = rows.filter((row) => row.passages > 0);
  const best = (rowsOf: typeof rows, score: (row: (typeof rows)[number]) => number) =>
    Math.max(Number.NEGATIVE_INFINITY, ...rowsOf.map(score));
  const inScope = meetings.filter((row) => row.inScope);
  const organizationPassage = best(meetings, (row) => Number(row.bestPassage ?? 0));
  return {
    standing:
      organizationPassage > 0
        ? Math.max(
            0,
            best(inScope, (row) => Number(row.bestPassage ?? 0)),
          ) / organizationPassage
        : 1,
    likelihoodGap:
      inScope.length === 0
        ? Number.NEGATIVE_INFINITY
        : best(inScope, likelihood) - best(meetings, likelihood),
  };
}

/** How many passages the organizations' transcripts have (of videos not deleted), from each video's totals. */
async function organizationPassages(db: Db, organizationIds: string[]) {
  const { rows } = await db.execute<{ n: number }>(sql`
    select coalesce(sum(t.passages), 0)::int as n from video_term_totals t join videos v on v.id = t.video_id
    where t.organization_id = any(${sql.param(organizationIds)}::uuid[]) and not v.is_deleted`);
  return rows[0]?.n ?? 0;
}

/**
 * Whether the question asks about people of the organization (by name or role) none of whom
 * speaks in the scope: "What did the Professor think…" of a meeting without a professor.
 */
export async function namesAbsentSpeakers(
  db: Db,
  scope: RetrievalScope,
  question: string,
  lexemes: string[],
) {
  if (!narrowed(scope)) return false;
  const { rows: people } = await db.execute<SpeakerName & { id: string }>(sql`
    select id, name, tsvector_to_array(to_tsvector('english', name)) as lexemes
    from speakers where organization_id = any(${sql.param(scope.organizationIds)}::uuid[])`);
  const named = namedSpeakers(question, new Set(lexemes), people);
  if (named.length === 0) return false;
  const { rows } = await db.execute<{ speaks: boolean }>(sql`
    select exists (
      select 1 from transcript_chunks c join videos v on v.id = c.video_id
      where ${scopeConditions(scope)} and c.speaker_ids && ${sql.param(named.map((person) => person.id))}::uuid[]
    ) as speaks`);
  return !(rows[0]?.speaks ?? false);
}
