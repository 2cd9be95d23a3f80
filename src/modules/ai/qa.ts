import { sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import { aiQuestions } from '../../db/schema/index.ts';
import { recordActivity } from '../activity/service.ts';
import type { AuthUser } from '../auth/sessions.ts';
import { embedQuery } from '../search/embeddings.ts';
import { type RetrievalScope, videoScopeConditions } from '../search/retrieval.ts';
import { retrieveStretches, type ScopeJudgement } from '../search/stretch-retrieval.ts';
import { askedBefore } from './asked-before.ts';
import { chargeCredits, creditsFor, requireCredits } from './budget.ts';
import {
  type AnswerEngine,
  type EngineAnswer,
  NO_RECORDINGS_ANSWER,
  notFound,
  numberedByAppearance,
} from './engine.ts';
import { followUpQuestions } from './follow-ups.ts';
import { changesAfter, knowledgeList, matterStatus } from './knowledge-lists.ts';
import { meetingOverview } from './meeting-overview.ts';
import { ownTasks } from './own-tasks.ts';
import { personDecisions, personTasks, whoIs } from './people.ts';
import { personSaid } from './person-said.ts';
import type { AnswerView, QaInput } from './schemas.ts';
import { resolveAiScope } from './scope.ts';
import { whoTookSides } from './stances.ts';

/** Stretches of transcript given to the engine per question. */
const SOURCES = 5;
/**
 * When the question is answered from the scope (see retrieveStretches), with the words of the
 * question all there is to go on: the best stretch says at least `MIN_COVERAGE` of what the
 * question is about; the question names no one who is absent from the scope; and the scope stands
 * close enough to the meeting of the organization the question suits best — its best passage
 * holds at least `MIN_STANDING` of what the organization's best holds, and its likelihood gap
 * (natural log, over the square root of the content words it sums: a long question's gap grows
 * with its words even in its own meeting) plus `STANDING_WEIGHT` times that standing reaches
 * `MIN_EVIDENCE`. (In a small organization the likelihoods of its few meetings differ little; the
 * standing still tells.) Set on QMSum (docs/ai-quality.md), trading questions answered from their
 * own meeting against the same questions asked of an unrelated one.
 */
const MIN_COVERAGE = 0.1;
const MIN_STANDING = 0.25;
const STANDING_WEIGHT = 1;
const MIN_EVIDENCE = -2.75;

/** Whether the question's words say the scope answers it (see MIN_EVIDENCE); absent speakers are checked apart. */
export const answersFromScope = (coverage: number, judgement: ScopeJudgement) =>
  coverage >= MIN_COVERAGE &&
  judgement.standing >= MIN_STANDING &&
  judgement.likelihoodGap / Math.sqrt(Math.max(1, judgement.contentWords)) +
    STANDING_WEIGHT * judgement.standing >=
    MIN_EVIDENCE;

/**
 * The question's stemmed words, sorted and without stop words: "What did we decide on pricing?"
 * and "pricing: what was decided" group as one question in knowledge gaps.
 */
const normalized = (question: string) =>
  sql`coalesce(array_to_string(array(select lexeme from unnest(tsvector_to_array(to_tsvector('english', ${question}))) as lexeme order by lexeme), ' '), '')`;

/**
 * A question about the asker's own tasks (own-tasks.ts), asking for the decisions, open questions
 * or action items of the scope (knowledge-lists.ts), who a speaker is (people.ts), or about one
 * meeting as a whole (meeting-overview.ts) is answered from stored knowledge and transcripts. Otherwise: retrieval over the scope, then the engine answers from those stretches only, citing each claim,
 * its sources numbered in the order the answer cites them. When the words of the question are
 * all there is to go on (no embedding model), a scope whose best stretch says too little of what
 * the question is about answers "I don't know" without asking the engine. `earlier` — the
 * person's previous questions in a conversation — joins the retrieval query, so that a follow-up
 * ("and who owns it?") finds the stretches its conversation is about.
 */
export async function answerQuestion(
  context: AppContext,
  engine: AnswerEngine,
  input: {
    question: string;
    scope: RetrievalScope;
    /** Who asks, when a person does: "my action items" are theirs. */
    asker?: { id: string; name: string };
    earlier?: string[];
  },
): Promise<EngineAnswer> {
  // A person's tasks before the lists about a matter: "action items for Tom" are those Tom owns,
  // not those that say "Tom".
  const fromKnowledge =
    (input.asker && (await ownTasks(context.db, input.question, input.asker, input.scope))) ||
    (await personTasks(context.db, input.question, input.scope)) ||
    (await personDecisions(context.db, input.question, input.scope)) ||
    (await whoTookSides(context.db, input.question, input.scope)) ||
    (await knowledgeList(context.db, input.question, input.scope, context.clock.now())) ||
    (await matterStatus(context.db, input.question, input.scope)) ||
    (await changesAfter(context.db, input.question, input.scope)) ||
    (await whoIs(context.db, input.question, input.scope)) ||
    (await personSaid(context.db, input.question, input.scope)) ||
    (await meetingOverview(context.db, input.question, input.scope)) ||
    (await askedBefore(context.db, input.question, input.scope));
  if (fromKnowledge) return fromKnowledge;
  const earlier = (input.earlier ?? []).slice(-2);
  const retrievalQuery = [...earlier, input.question].join(' ');
  const queryEmbedding = await embedQuery(context, retrievalQuery);
  const found = await retrieveStretches(context.db, retrievalQuery, input.scope, {
    limit: SOURCES,
    queryEmbedding,
    judgeScope: true,
    // The question's own words only: an earlier question's were named when it was answered.
    asked: input.question,
  });
  const { stretches, coverage, judgement, unsaid, part } = found;
  if (stretches.length === 0) {
    return (await holdsTranscripts(context, input.scope))
      ? notFound(unsaid)
      : { ...notFound(), answer: NO_RECORDINGS_ANSWER };
  }
  if (
    !judgement ||
    judgement.namesAbsentSpeakers ||
    // A question about a part of its meeting is answered from that part, whatever its words say.
    (!queryEmbedding && !part && !answersFromScope(coverage, judgement))
  ) {
    return notFound(unsaid, Math.round(coverage * 1000) / 1000);
  }
  const result = await engine.answer({
    question: input.question,
    earlier,
    unsaid,
    ...(part ? { part } : {}),
    sources: stretches.map(({ score: _score, ...stretch }, position) => ({
      number: position + 1,
      ...stretch,
    })),
  });
  return result.answered ? numberedByAppearance(result) : result;
}

/** Whether anything in the scope has a transcript to answer from. */
async function holdsTranscripts(context: AppContext, scope: RetrievalScope) {
  const { rows } = await context.db.execute<{ holds: boolean }>(sql`
    select exists (
      select 1 from videos v
      where ${videoScopeConditions(scope)} and exists (select 1 from transcript_segments s where s.video_id = v.id)
    ) as holds`);
  return rows[0]?.holds ?? false;
}

/**
 * Keeps an answered (or unanswerable) question — knowledge gaps are made of the ones nothing
 * answered — and charges its credits, in the caller's transaction: a failure charges nothing.
 */
export async function keepQuestion(
  tx: Tx,
  context: AppContext,
  input: {
    organizationId: string;
    userId: string;
    source: 'qa' | 'chat';
    question: string;
    result: EngineAnswer;
  },
) {
  const { organizationId, result } = input;
  const [row] = await tx
    .insert(aiQuestions)
    .values({
      organizationId,
      userId: input.userId,
      source: input.source,
      question: input.question,
      normalizedQuestion: normalized(input.question),
      answer: result.answer,
      answered: result.answered,
      confidence: result.confidence,
      citations: result.citations,
      createdAt: context.clock.now(),
    })
    .returning({ id: aiQuestions.id, createdAt: aiQuestions.createdAt });
  if (!row) throw new Error('ai_questions insert returned nothing');
  await chargeCredits(tx, context, {
    organizationId,
    feature: input.source,
    credits: creditsFor(context.config, input.source),
  });
  await recordActivity(tx, {
    organizationId,
    actorId: input.userId,
    action: 'ai.question_asked',
    targetType: 'ai_question',
    targetId: row.id,
    metadata: { source: input.source, answered: result.answered, citations: result.citations.length },
  });
  return row;
}

/** `POST /ai/qa`: one question, answered from what the caller may read in the organization. */
export async function askQuestion(
  context: AppContext,
  engine: AnswerEngine,
  user: AuthUser,
  input: QaInput,
): Promise<AnswerView> {
  const scope = await resolveAiScope(context.db, user, input);
  const { organizationId } = scope;
  await requireCredits(context.db, context, { organizationId, credits: creditsFor(context.config, 'qa') });
  const result = await answerQuestion(context, engine, { question: input.question, scope, asker: user });
  const followUps = await followUpQuestions(
    context.db,
    input.question,
    result.citations.map(({ videoId, start }) => ({ videoId, start })),
  );
  return context.db.transaction(async (tx) => {
    const row = await keepQuestion(tx, context, {
      organizationId,
      userId: user.id,
      source: 'qa',
      question: input.question,
      result,
    });
    return {
      id: row.id,
      question: input.question,
      ...result,
      followUpQuestions: followUps,
      engine: engine.name,
      organizationId,
      createdAt: row.createdAt,
    };
  });
}
