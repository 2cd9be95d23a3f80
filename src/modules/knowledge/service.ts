import { and, eq, exists, isNull, notExists, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db, Tx } from '../../db/client.ts';
import {
  type KnowledgeQuote,
  knowledgeItems,
  topics,
  transcriptSegments,
  videoKnowledge,
  videos,
  videoTopics,
} from '../../db/schema/index.ts';
import { AppError } from '../../http/errors.ts';
import type { JobDefinition } from '../../jobs/queue.ts';
import { type BudgetContext, chargeCredits, creditsFor, requireCredits } from '../ai/budget.ts';
import { queueIntegrationEvent } from '../integrations/events.ts';
import { transcriptSegmentsOf } from '../transcripts/segments.ts';
import { meetingDate } from '../videos/meetings.ts';
import type { Extraction, ItemKind, KnowledgeExtractor } from './extraction.ts';

export const KNOWLEDGE_EXTRACTION_JOB = 'knowledge.extract';
const SWEEP_BATCH = 100;

type ExtractionRequest = { videoId: string; requestedAt: string };

/** What a summary reads as one paragraph: the video's `aiSummary`. */
const summaryText = (summary: KnowledgeQuote[]) => summary.map((sentence) => sentence.text).join(' ');

/**
 * Asks for the video's knowledge to be (re)extracted, in the transaction that changed its
 * transcript: the job exists only if the change commits. A removed transcript takes its knowledge
 * with it at once.
 */
export async function requestKnowledgeExtraction(
  tx: Tx,
  context: { clock: AppContext['clock']; jobs: Pick<AppContext['jobs'], 'send'> },
  video: { id: string; organizationId: string; hasTranscript: boolean },
) {
  if (!video.hasTranscript) {
    await forgetKnowledge(tx, video.id);
    return;
  }
  const requestedAt = context.clock.now();
  await tx
    .insert(videoKnowledge)
    .values({ videoId: video.id, organizationId: video.organizationId, status: 'pending', requestedAt })
    .onConflictDoUpdate({
      target: videoKnowledge.videoId,
      set: { status: 'pending', requestedAt, error: null, updatedAt: requestedAt },
    });
  const request: ExtractionRequest = { videoId: video.id, requestedAt: requestedAt.toISOString() };
  await context.jobs.send(KNOWLEDGE_EXTRACTION_JOB, request, { tx });
}

async function forgetKnowledge(tx: Tx, videoId: string) {
  const [previous] = await tx
    .select({ summary: videoKnowledge.summary })
    .from(videoKnowledge)
    .where(eq(videoKnowledge.videoId, videoId));
  await tx.delete(knowledgeItems).where(eq(knowledgeItems.videoId, videoId));
  await tx.delete(videoTopics).where(eq(videoTopics.videoId, videoId));
  await tx.delete(videoKnowledge).where(eq(videoKnowledge.videoId, videoId));
  if (previous) await clearExtractedSummary(tx, videoId, summaryText(previous.summary));
}

/** The video's `aiSummary` is the extraction's unless someone wrote their own. */
async function clearExtractedSummary(tx: Tx, videoId: string, extracted: string) {
  await tx
    .update(videos)
    .set({ aiSummary: null })
    .where(and(eq(videos.id, videoId), eq(videos.aiSummary, extracted)));
}

/**
 * The job: reads the transcript, extracts its knowledge and stores it in one transaction, charging
 * the organization's extraction credits. An organization out of credits gets `over_budget` (a
 * later transcript change asks again); a result asked for before a newer request is dropped.
 */
export async function extractVideoKnowledge(
  db: Db,
  context: BudgetContext,
  extractor: KnowledgeExtractor,
  request: ExtractionRequest,
): Promise<void> {
  const [video] = await db
    .select({
      id: videos.id,
      organizationId: videos.organizationId,
      title: videos.title,
      isDeleted: videos.isDeleted,
      meetingDate,
    })
    .from(videos)
    .where(eq(videos.id, request.videoId));
  if (!video || video.isDeleted) return;
  const requestedAt = new Date(request.requestedAt);
  const credits = { organizationId: video.organizationId, credits: creditsFor(context.config, 'extraction') };
  try {
    await requireCredits(db, context, credits);
  } catch (error) {
    if (!isOverBudget(error)) throw error;
    await markStatus(db, context, { videoId: video.id, requestedAt }, 'over_budget', null);
    return;
  }
  const turns = await transcriptSegmentsOf(db, video.id);
  let extraction: Extraction;
  try {
    extraction = await extractor.extract({ title: video.title, turns, meetingDate: video.meetingDate });
  } catch (error) {
    await markStatus(db, context, { videoId: video.id, requestedAt }, 'failed', (error as Error).message);
    throw error;
  }
  try {
    await storeKnowledge(db, context, { video, requestedAt, extraction, engine: extractor.name, credits });
  } catch (error) {
    // Other operations spent the last credits while this one extracted: the charge refused it.
    if (!isOverBudget(error)) throw error;
    await markStatus(db, context, { videoId: video.id, requestedAt }, 'over_budget', null);
  }
}

const isOverBudget = (error: unknown) => error instanceof AppError && error.statusCode === 429;

/** Stores an extraction and charges it in one transaction, unless a newer request superseded it. */
async function storeKnowledge(
  db: Db,
  context: BudgetContext,
  input: {
    video: { id: string; organizationId: string; title: string };
    requestedAt: Date;
    extraction: Extraction;
    engine: string;
    credits: { organizationId: string; credits: number };
  },
) {
  const { video, requestedAt, extraction, credits } = input;
  await db.transaction(async (tx) => {
    // The video row first, as a transcript change locks it (then its knowledge row): the same
    // order, so that a job storing while the transcript changes waits instead of deadlocking.
    await tx.select({ id: videos.id }).from(videos).where(eq(videos.id, video.id)).for('update');
    const [current] = await tx
      .select({ requestedAt: videoKnowledge.requestedAt, summary: videoKnowledge.summary })
      .from(videoKnowledge)
      .where(eq(videoKnowledge.videoId, video.id))
      .for('update');
    // The transcript changed (or went) since this job was asked for: the newer job decides.
    if (!current || current.requestedAt.getTime() !== requestedAt.getTime()) return;
    await storeExtraction(tx, video, extraction);
    const now = context.clock.now();
    await tx
      .update(videoKnowledge)
      .set({
        status: 'ready',
        summary: extraction.summary,
        chapters: extraction.chapters,
        engine: input.engine,
        error: null,
        extractedAt: now,
        updatedAt: now,
      })
      .where(eq(videoKnowledge.videoId, video.id));
    const previousSummary = summaryText(current.summary);
    await tx
      .update(videos)
      .set({ aiSummary: summaryText(extraction.summary) || null })
      .where(
        and(
          eq(videos.id, video.id),
          previousSummary
            ? sql`coalesce(${videos.aiSummary}, ${previousSummary}) = ${previousSummary}`
            : isNull(videos.aiSummary),
        ),
      );
    await chargeCredits(tx, context, { ...credits, feature: 'extraction' });
    const count = (kind: ItemKind) => extraction.items.filter((item) => item.kind === kind).length;
    await queueIntegrationEvent(tx, {
      organizationId: video.organizationId,
      type: 'knowledge.extracted',
      data: {
        object: 'video',
        id: video.id,
        videoId: video.id,
        title: video.title,
        organizationId: video.organizationId,
        // The service did it, not a person.
        actorId: null,
        decisions: count('decision'),
        actionItems: count('action_item'),
        questions: count('question'),
        engine: input.engine,
      },
    });
  });
}

/** Records how a request ended, unless a newer request for the video took its place. */
async function markStatus(
  db: Db,
  context: BudgetContext,
  request: { videoId: string; requestedAt: Date },
  status: 'failed' | 'over_budget',
  error: string | null,
) {
  await db
    .update(videoKnowledge)
    .set({ status, error, updatedAt: context.clock.now() })
    .where(
      and(eq(videoKnowledge.videoId, request.videoId), eq(videoKnowledge.requestedAt, request.requestedAt)),
    );
}

/** Replaces the video's items and topic links; topics are merged into the organization's by key. */
async function storeExtraction(
  tx: Tx,
  video: { id: string; organizationId: string },
  extraction: Extraction,
) {
  const { organizationId } = video;
  await tx.delete(knowledgeItems).where(eq(knowledgeItems.videoId, video.id));
  await tx.delete(videoTopics).where(eq(videoTopics.videoId, video.id));
  if (extraction.items.length > 0) {
    await tx
      .insert(knowledgeItems)
      .values(extraction.items.map((item) => ({ ...item, organizationId, videoId: video.id })));
  }
  if (extraction.topics.length === 0) return;
  // In key order, so that two meetings of one organization stored at once lock topics in the same order.
  const extracted = [...extraction.topics].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const stored = await tx
    .insert(topics)
    .values(
      extracted.map((topic) => ({
        organizationId,
        name: topic.name,
        key: topic.key,
        keywords: topic.keywords,
      })),
    )
    .onConflictDoUpdate({
      target: [topics.organizationId, topics.key],
      // Keywords of the latest meeting first, then the earlier ones not repeated: at most 12.
      set: {
        keywords: sql`(select coalesce(array_agg(word order by position), '{}') from (
          select word, min(position) as position
          from unnest(excluded.keywords || ${topics.keywords}) with ordinality as k(word, position)
          group by word order by min(position) limit 12) as merged)`,
        updatedAt: sql`now()`,
      },
    })
    .returning({ id: topics.id, key: topics.key });
  const idOf = new Map(stored.map((row) => [row.key, row.id]));
  await tx.insert(videoTopics).values(
    extracted.map((topic) => ({
      topicId: idOf.get(topic.key) as string,
      videoId: video.id,
      organizationId,
      mentions: topic.mentions,
      score: topic.score,
      firstStart: topic.firstStart,
    })),
  );
}

/**
 * Videos with a transcript and no knowledge yet — stored before extraction existed, or whose job
 * was lost — are asked for, a batch at a time.
 */
export async function requestMissingKnowledge(
  db: Db,
  context: { clock: AppContext['clock']; jobs: Pick<AppContext['jobs'], 'send'> },
) {
  return db.transaction(async (tx) => {
    const missing = await tx
      .select({ id: videos.id, organizationId: videos.organizationId })
      .from(videos)
      .where(
        and(
          eq(videos.isDeleted, false),
          exists(
            tx
              .select({ one: sql`1` })
              .from(transcriptSegments)
              .where(eq(transcriptSegments.videoId, videos.id)),
          ),
          notExists(
            tx.select({ one: sql`1` }).from(videoKnowledge).where(eq(videoKnowledge.videoId, videos.id)),
          ),
        ),
      )
      .limit(SWEEP_BATCH);
    for (const video of missing)
      await requestKnowledgeExtraction(tx, context, { ...video, hasTranscript: true });
    return missing.length;
  });
}

/** The extraction job and the sweep that backfills videos without knowledge. */
export function knowledgeJobs(
  context: Pick<BudgetContext, 'config' | 'clock'> & { extractor: () => KnowledgeExtractor },
): JobDefinition[] {
  return [
    {
      name: KNOWLEDGE_EXTRACTION_JOB,
      queue: { retryLimit: 2, retryDelay: 30, retryBackoff: true },
      // A library loaded at once queues many extractions: take them in batches, back to back.
      batchSize: 5,
      handler: (data, { db, jobs }) =>
        extractVideoKnowledge(db, { ...context, jobs }, context.extractor(), data as ExtractionRequest),
    },
    {
      name: 'knowledge.sweep',
      cron: '*/5 * * * *',
      handler: async (_data, { db, jobs, logger }) => {
        const requested = await requestMissingKnowledge(db, { clock: context.clock, jobs });
        if (requested > 0) logger.info({ requested }, 'knowledge extraction requested for videos without it');
      },
    },
  ];
}

/**
 * Knowledge keeps speakers' names as text (items are quotes of a moment): a renamed speaker's new
 * name replaces the old one in the organization's items, answers and summaries.
 */
export async function renameSpeakerInKnowledge(tx: Tx, organizationId: string, from: string, to: string) {
  const inOrganization = eq(knowledgeItems.organizationId, organizationId);
  await tx
    .update(knowledgeItems)
    .set({ speaker: to })
    .where(and(inOrganization, eq(knowledgeItems.speaker, from)));
  await tx
    .update(knowledgeItems)
    .set({ owner: to })
    .where(and(inOrganization, eq(knowledgeItems.owner, from)));
  await tx
    .update(knowledgeItems)
    .set({ answer: sql`jsonb_set(${knowledgeItems.answer}, '{speaker}', to_jsonb(${to}::text))` })
    .where(and(inOrganization, sql`${knowledgeItems.answer}->>'speaker' = ${from}`));
  await tx
    .update(videoKnowledge)
    .set({
      summary: sql`(select jsonb_agg(case when quote->>'speaker' = ${from}
          then jsonb_set(quote, '{speaker}', to_jsonb(${to}::text)) else quote end order by position)
        from jsonb_array_elements(${videoKnowledge.summary}) with ordinality as q(quote, position))`,
    })
    .where(
      and(
        eq(videoKnowledge.organizationId, organizationId),
        sql`${videoKnowledge.summary} @> ${JSON.stringify([{ speaker: from }])}::jsonb`,
      ),
    );
}
