import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { signUpUser } from '../../../test/helpers/factories.ts';
import { insertKnowledge, waitForKnowledge } from '../../../test/helpers/knowledge.ts';
import { videos } from '../../db/schema/index.ts';
import { ROADMAP } from '../chat/test-support.ts';

const ctx = useTestApp();

describe('GET /videos/{id}/knowledge', () => {
  const get = (id: string, headers: Record<string, string> = {}) =>
    ctx().app.inject({ method: 'GET', url: `/videos/${id}/knowledge`, headers });

  async function meeting(user: Awaited<ReturnType<typeof signUpUser>>, fields: object = {}) {
    const response = await ctx().app.inject({
      method: 'POST',
      url: '/videos',
      headers: user.headers,
      payload: { organizationId: user.organizationId, title: 'Roadmap review', duration: '1:05', ...fields },
    });
    expect(response.statusCode, response.body).toBe(201);
    return response.json() as { id: string; organizationId: string };
  }

  it('shows the extracted summary, chapters, items by kind and topics, in time order', async () => {
    const user = await signUpUser(ctx().app);
    const video = await meeting(user, { transcript: ROADMAP });
    await waitForKnowledge(ctx().database.db, video.id);
    const { itemIds, topicIds } = await insertKnowledge(ctx().database.db, video, {
      summary: [{ text: 'We agreed the launch date stays.', start: 19.5, end: 31, speaker: 'Alice' }],
      chapters: [{ title: 'Launch date', start: 0, end: 65 }],
      items: [
        {
          kind: 'action_item',
          text: 'Carol owns the battery investigation.',
          start: 55,
          end: 65,
          owner: 'Carol',
          speaker: 'Alice',
        },
        {
          kind: 'decision',
          text: 'We agreed the launch date stays.',
          start: 19.5,
          end: 31,
          speaker: 'Alice',
        },
        {
          kind: 'question',
          text: 'Is the budget approved?',
          start: 40,
          end: 44,
          answered: true,
          answer: { text: 'The budget was approved.', start: 44, end: 55, speaker: 'Bob' },
        },
      ],
      topics: [{ name: 'launch date', key: 'date launch', mentions: 2, score: 1, firstStart: 19.5 }],
    });
    const response = await get(video.id, user.headers);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({
      videoId: video.id,
      status: 'ready',
      summary: [{ text: 'We agreed the launch date stays.', start: 19.5, end: 31, speaker: 'Alice' }],
      chapters: [{ title: 'Launch date', start: 0, end: 65 }],
    });
    // The extraction's own topics and items are there too, beside the arranged ones.
    expect(body.topics).toContainEqual({
      id: topicIds[0],
      name: 'launch date',
      mentions: 2,
      score: 1,
      firstStart: 19.5,
    });
    expect(body.decisions.map((item: { id: string }) => item.id)).toContain(itemIds[1]);
    expect(body.actionItems.find((item: { id: string }) => item.id === itemIds[0])).toMatchObject({
      kind: 'action_item',
      owner: 'Carol',
      dueDate: null,
    });
    expect(body.questions.find((item: { id: string }) => item.id === itemIds[2])).toMatchObject({
      answered: true,
      answer: { speaker: 'Bob', start: 44 },
    });
    const starts = body.decisions.map((item: { start: number }) => item.start);
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
  });

  it('answers status none for a video without a transcript', async () => {
    const user = await signUpUser(ctx().app);
    const video = await meeting(user);
    const response = await get(video.id, user.headers);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toStrictEqual({
      videoId: video.id,
      status: 'none',
      engine: null,
      extractedAt: null,
      summary: [],
      chapters: [],
      decisions: [],
      actionItems: [],
      questions: [],
      topics: [],
    });
  });

  it('is read like the transcript: 404 to outsiders and anonymous callers of a private video, 401 for a bad token, open when public', async () => {
    const owner = await signUpUser(ctx().app);
    const outsider = await signUpUser(ctx().app);
    const video = await meeting(owner, { transcript: ROADMAP });
    expect((await get(video.id, outsider.headers)).statusCode).toBe(404);
    expect((await get(video.id)).statusCode).toBe(404);
    expect((await get(video.id, { authorization: 'Bearer nope' })).statusCode).toBe(401);
    expect((await get('0193a0b4-7c1d-7e2f-8a3b-4c5d6e7f8091', owner.headers)).statusCode).toBe(404);
    expect((await get('not-a-uuid', owner.headers)).statusCode).toBe(404);

    await ctx().database.db.update(videos).set({ isPublic: true }).where(eq(videos.id, video.id));
    expect((await get(video.id)).statusCode).toBe(200);
    await ctx().database.db.update(videos).set({ isDeleted: true }).where(eq(videos.id, video.id));
    expect((await get(video.id, owner.headers)).statusCode).toBe(404);
  });
});
