import { and, eq } from 'drizzle-orm';
import { expect } from 'vitest';
import type { Db } from '../../src/db/client.ts';
import {
  type Chapter,
  type KnowledgeQuote,
  knowledgeItems,
  topics,
  videoKnowledge,
  videoTopics,
} from '../../src/db/schema/index.ts';
import { clockDuration } from '../../src/lib/duration.ts';
import type { TestApp } from './app.ts';
import type { SignedUpUser } from './factories.ts';
import { turnsVtt } from './library.ts';
import { requester } from './requests.ts';

type ItemFields = Partial<typeof knowledgeItems.$inferInsert> & {
  kind: 'decision' | 'action_item' | 'question';
  text: string;
};
type TopicFields = {
  name: string;
  key?: string;
  keywords?: string[];
  mentions?: number;
  score?: number;
  firstStart?: number;
};

/**
 * Stores knowledge for a video as the extraction job would, without running it: for tests of the
 * features that read knowledge (gaps, conflicts, summaries, insights). Topics are merged by key
 * within the organization, as the job merges them. Returns the ids it made.
 */
export async function insertKnowledge(
  db: Db,
  video: { id: string; organizationId: string },
  knowledge: {
    items?: ItemFields[];
    topics?: TopicFields[];
    summary?: KnowledgeQuote[];
    chapters?: Chapter[];
  },
): Promise<{ itemIds: string[]; topicIds: string[] }> {
  const { organizationId } = video;
  await db
    .insert(videoKnowledge)
    .values({
      videoId: video.id,
      organizationId,
      status: 'ready',
      summary: knowledge.summary ?? [],
      chapters: knowledge.chapters ?? [],
      engine: 'local',
      requestedAt: new Date(),
      extractedAt: new Date(),
    })
    .onConflictDoUpdate({
      target: videoKnowledge.videoId,
      set: { status: 'ready', summary: knowledge.summary ?? [], chapters: knowledge.chapters ?? [] },
    });
  const itemIds: string[] = [];
  for (const item of knowledge.items ?? []) {
    const [row] = await db
      .insert(knowledgeItems)
      .values({ start: 0, end: 5, speaker: null, subject: '', ...item, organizationId, videoId: video.id })
      .returning({ id: knowledgeItems.id });
    if (row) itemIds.push(row.id);
  }
  const topicIds: string[] = [];
  for (const topic of knowledge.topics ?? []) {
    const key = topic.key ?? topic.name.toLowerCase();
    await db
      .insert(topics)
      .values({ organizationId, name: topic.name, key, keywords: topic.keywords ?? [] })
      .onConflictDoNothing();
    const [row] = await db
      .select({ id: topics.id })
      .from(topics)
      .where(and(eq(topics.organizationId, organizationId), eq(topics.key, key)));
    if (!row) throw new Error(`topic ${key} not stored`);
    await db.insert(videoTopics).values({
      topicId: row.id,
      videoId: video.id,
      organizationId,
      mentions: topic.mentions ?? 3,
      score: topic.score ?? 1,
      firstStart: topic.firstStart ?? 0,
    });
    topicIds.push(row.id);
  }
  return { itemIds, topicIds };
}

/** Waits for the extraction job to finish with the video (any status but pending); returns its row. */
export async function waitForKnowledge(db: Db, videoId: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await db.select().from(videoKnowledge).where(eq(videoKnowledge.videoId, videoId));
    if (row && row.status !== 'pending') return row;
    if (Date.now() > deadline) throw new Error(`no knowledge for video ${videoId} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Adds meetings through `POST /videos` as a user — a title, the day it was held and its
 * `[speaker, text]` turns, ten seconds each — and waits for their knowledge: the id of each.
 */
export const meetingAdder = (ctx: () => TestApp) => {
  const request = requester(ctx);
  return async (user: SignedUpUser, title: string, recordedAt: string, turns: Array<[string, string]>) => {
    const response = await request(user, 'POST', '/videos', {
      organizationId: user.organizationId,
      title,
      recordedAt,
      // Whole minutes of six turns each.
      duration: clockDuration(Math.max(1, Math.ceil(turns.length / 6)) * 60),
      transcript: turnsVtt(turns),
    });
    expect(response.statusCode, response.body).toBe(201);
    const id = response.json().id as string;
    await waitForKnowledge(ctx().database.db, id);
    return id;
  };
};
