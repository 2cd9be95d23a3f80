import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { signUpUser } from '../../../test/helpers/factories.ts';
import { waitForKnowledge } from '../../../test/helpers/knowledge.ts';
import {
  aiUsage,
  knowledgeItems,
  topics,
  videoKnowledge,
  videos,
  videoTopics,
} from '../../db/schema/index.ts';
import { ROADMAP } from '../chat/test-support.ts';
import type { Extraction, KnowledgeExtractor, TranscriptTurn } from './extraction.ts';
import { extractVideoKnowledge, requestMissingKnowledge } from './service.ts';

const ctx = useTestApp({ env: { AI_METER_LOCAL: 'true' } });
const db = () => ctx().database.db;
/** The request the extraction job got for the video's latest transcript, once that job is done. */
const latestRequest = async (videoId: string) => ({
  videoId,
  requestedAt: (await waitForKnowledge(db(), videoId)).requestedAt.toISOString(),
});
const jobContext = () => ({ config: ctx().config, clock: ctx().clock, jobs: ctx().jobs });

/** An extractor that reports what it was given and answers with a fixed extraction. */
function fixedExtractor(extraction: Extraction) {
  const seen: Array<{ title: string; turns: TranscriptTurn[]; meetingDate: Date }> = [];
  const extractor: KnowledgeExtractor = {
    name: 'fixed',
    extract: async (input) => {
      seen.push(input);
      return extraction;
    },
  };
  return { extractor, seen };
}

const batteryTopic = {
  key: 'batteri',
  name: 'battery',
  keywords: ['remote', 'demo'],
  mentions: 3,
  score: 1,
  firstStart: 31,
};

const extraction: Extraction = {
  summary: [
    {
      text: 'We agreed the launch date stays on the fifteenth of May, no matter what.',
      start: 19.5,
      end: 31,
      speaker: 'Alice',
    },
  ],
  chapters: [{ title: 'Launch date', start: 0, end: 65 }],
  items: [
    {
      kind: 'decision',
      text: 'We agreed the launch date stays on the fifteenth of May, no matter what.',
      speaker: 'Alice',
      start: 19.5,
      end: 31,
      owner: null,
      dueDate: null,
      answered: null,
      answer: null,
      subject: 'date fifteenth launch may stay',
    },
  ],
  topics: [batteryTopic],
};

async function postVideo(user: Awaited<ReturnType<typeof signUpUser>>, title = 'Roadmap review') {
  const response = await ctx().app.inject({
    method: 'POST',
    url: '/videos',
    headers: user.headers,
    payload: { organizationId: user.organizationId, title, duration: '1:05', transcript: ROADMAP },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as { id: string; organizationId: string };
}

describe('knowledge extraction on ingest', () => {
  it('extracts a stored transcript in the background, charges extraction credits and fills the summary', async () => {
    const user = await signUpUser(ctx().app);
    const video = await postVideo(user);
    const knowledge = await waitForKnowledge(db(), video.id);
    expect(knowledge).toMatchObject({ status: 'ready', engine: 'local', error: null });
    expect(knowledge.extractedAt).toBeInstanceOf(Date);
    const [usage] = await db().select().from(aiUsage).where(eq(aiUsage.organizationId, user.organizationId));
    expect(usage).toMatchObject({ feature: 'extraction', credits: 2, operations: 1 });
    const [row] = await db()
      .select({ aiSummary: videos.aiSummary })
      .from(videos)
      .where(eq(videos.id, video.id));
    const summary = knowledge.summary.map((sentence) => sentence.text).join(' ');
    expect(row?.aiSummary).toBe(summary || null);
  });

  it('stores items and topics, merges topics by key across meetings and replaces a video’s knowledge on re-extraction', async () => {
    const user = await signUpUser(ctx().app);
    const first = await postVideo(user, 'Roadmap review 1');
    const second = await postVideo(user, 'Roadmap review 2');
    await waitForKnowledge(db(), first.id);
    await waitForKnowledge(db(), second.id);
    const { extractor, seen } = fixedExtractor(extraction);
    for (const video of [first, second]) {
      await extractVideoKnowledge(db(), jobContext(), extractor, await latestRequest(video.id));
    }
    expect(seen[0]?.title).toBe('Roadmap review 1');
    expect(seen[0]?.turns[2]).toMatchObject({ start: 19.5, end: 31, speaker: 'Alice' });
    expect(seen[0]?.meetingDate).toBeInstanceOf(Date);

    const stored = await db().select().from(knowledgeItems).where(eq(knowledgeItems.videoId, first.id));
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({
      kind: 'decision',
      speaker: 'Alice',
      start: 19.5,
      organizationId: user.organizationId,
    });
    const orgTopics = await db().select().from(topics).where(eq(topics.organizationId, user.organizationId));
    const battery = orgTopics.filter((topic) => topic.key === 'batteri');
    expect(battery).toHaveLength(1);
    const links = await db()
      .select()
      .from(videoTopics)
      .where(eq(videoTopics.topicId, battery[0]?.id as string));
    expect(links.map((link) => link.videoId).sort()).toEqual([first.id, second.id].sort());
    const [knowledge] = await db().select().from(videoKnowledge).where(eq(videoKnowledge.videoId, first.id));
    expect(knowledge).toMatchObject({ status: 'ready', engine: 'fixed', chapters: extraction.chapters });

    // The same video extracted again: its items are replaced, not added to.
    await extractVideoKnowledge(
      db(),
      jobContext(),
      fixedExtractor({ ...extraction, items: [] }).extractor,
      await latestRequest(first.id),
    );
    expect(await db().select().from(knowledgeItems).where(eq(knowledgeItems.videoId, first.id))).toHaveLength(
      0,
    );
  });

  it('drops the result of a job asked for before the latest transcript change', async () => {
    const user = await signUpUser(ctx().app);
    const video = await postVideo(user);
    await waitForKnowledge(db(), video.id);
    const { extractor } = fixedExtractor(extraction);
    await extractVideoKnowledge(db(), jobContext(), extractor, {
      videoId: video.id,
      requestedAt: new Date(Date.now() - 60_000).toISOString(),
    });
    const [knowledge] = await db().select().from(videoKnowledge).where(eq(videoKnowledge.videoId, video.id));
    expect(knowledge?.engine).toBe('local');
    const items = await db().select().from(knowledgeItems).where(eq(knowledgeItems.videoId, video.id));
    expect(items.some((item) => item.subject === 'date fifteenth launch may stay')).toBe(false);
  });

  it('re-extracts when the transcript changes and forgets knowledge when it is removed', async () => {
    const user = await signUpUser(ctx().app);
    const video = await postVideo(user);
    const before = await waitForKnowledge(db(), video.id);
    const replaced = await ctx().app.inject({
      method: 'PUT',
      url: `/videos/${video.id}/transcript`,
      headers: user.headers,
      payload: {
        text: 'Dana: We decided to move the offsite to Lisbon. Erin: I will book the venue by Friday.',
      },
    });
    expect(replaced.statusCode, replaced.body).toBe(200);
    const after = await waitForKnowledge(db(), video.id);
    expect(after.requestedAt.getTime()).toBeGreaterThan(before.requestedAt.getTime());
    expect(after.status).toBe('ready');

    const removed = await ctx().app.inject({
      method: 'PUT',
      url: `/videos/${video.id}/transcript`,
      headers: user.headers,
      payload: { text: null },
    });
    expect(removed.statusCode, removed.body).toBe(200);
    expect(await db().select().from(videoKnowledge).where(eq(videoKnowledge.videoId, video.id))).toHaveLength(
      0,
    );
    expect(await db().select().from(knowledgeItems).where(eq(knowledgeItems.videoId, video.id))).toHaveLength(
      0,
    );
    expect(await db().select().from(videoTopics).where(eq(videoTopics.videoId, video.id))).toHaveLength(0);
  });

  it('marks a video over_budget, charging nothing, when the organization has no credits left', async () => {
    const user = await signUpUser(ctx().app);
    const period = new Date().toISOString().slice(0, 7);
    await db().insert(aiUsage).values({
      organizationId: user.organizationId,
      period,
      feature: 'qa',
      credits: ctx().config.aiMonthlyCredits,
      operations: 1,
    });
    const video = await postVideo(user);
    const knowledge = await waitForKnowledge(db(), video.id);
    expect(knowledge.status).toBe('over_budget');
    const usage = await db().select().from(aiUsage).where(eq(aiUsage.organizationId, user.organizationId));
    expect(usage.map((row) => row.feature)).toEqual(['qa']);
  });

  it('stores nothing and marks over_budget when the credits ran out while it extracted', async () => {
    const user = await signUpUser(ctx().app);
    const video = await postVideo(user);
    const request = await latestRequest(video.id);
    await db().delete(knowledgeItems).where(eq(knowledgeItems.videoId, video.id));
    const spender: KnowledgeExtractor = {
      name: 'spender',
      extract: async () => {
        // Another operation spends what is left meanwhile.
        await db()
          .insert(aiUsage)
          .values({
            organizationId: user.organizationId,
            period: new Date().toISOString().slice(0, 7),
            feature: 'qa',
            credits: ctx().config.aiMonthlyCredits,
            operations: 1,
          });
        return extraction;
      },
    };
    await extractVideoKnowledge(db(), jobContext(), spender, request);
    const [knowledge] = await db().select().from(videoKnowledge).where(eq(videoKnowledge.videoId, video.id));
    expect(knowledge).toMatchObject({ status: 'over_budget', engine: 'local' });
    expect(await db().select().from(knowledgeItems).where(eq(knowledgeItems.videoId, video.id))).toHaveLength(
      0,
    );
  });

  it('asks for the knowledge of videos that have a transcript and none yet', async () => {
    const user = await signUpUser(ctx().app);
    const video = await postVideo(user);
    await waitForKnowledge(db(), video.id);
    await db().delete(videoKnowledge).where(eq(videoKnowledge.videoId, video.id));
    const requested = await requestMissingKnowledge(db(), jobContext());
    expect(requested).toBeGreaterThanOrEqual(1);
    expect((await waitForKnowledge(db(), video.id)).status).toBe('ready');
    expect(await requestMissingKnowledge(db(), jobContext())).toBe(0);
  });

  it('renames a speaker in the organization’s knowledge', async () => {
    const user = await signUpUser(ctx().app);
    const video = await postVideo(user);
    await extractVideoKnowledge(
      db(),
      jobContext(),
      fixedExtractor(extraction).extractor,
      await latestRequest(video.id),
    );
    const speakers = await ctx().app.inject({
      method: 'GET',
      url: `/speakers?organizationId=${user.organizationId}`,
      headers: user.headers,
    });
    const alice = speakers.json().data.find((speaker: { name: string }) => speaker.name === 'Alice');
    const renamed = await ctx().app.inject({
      method: 'PATCH',
      url: `/speakers/${alice.id}`,
      headers: user.headers,
      payload: { name: 'Alice Martin' },
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    const [item] = await db().select().from(knowledgeItems).where(eq(knowledgeItems.videoId, video.id));
    expect(item?.speaker).toBe('Alice Martin');
    const [knowledge] = await db().select().from(videoKnowledge).where(eq(videoKnowledge.videoId, video.id));
    expect(knowledge?.summary[0]?.speaker).toBe('Alice Martin');
  });
});
