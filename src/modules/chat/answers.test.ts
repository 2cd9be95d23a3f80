import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { requester } from '../../../test/helpers/requests.ts';
import { aiQuestions } from '../../db/schema/index.ts';
import { notFoundAnswer } from '../ai/engine.ts';

/** Nothing in the test's organization says any of the words of "What is the oxygen supply plan for the Mars colony?". */
const MARS_UNKNOWN = notFoundAnswer(['oxygen', 'supply', 'plan', 'Mars', 'colony']);

import { anyId, isoDate, postVideo, ROADMAP } from './test-support.ts';

/** Another meeting of Alice's, where people also "agreed": a follow-up without its context lands here. */
const HIRING_SYNC = `WEBVTT

00:00:00.000 --> 00:00:10.000
<v Dana>Welcome to the hiring sync. We agreed to open two engineering roles this quarter.

00:00:10.000 --> 00:00:20.000
<v Eve>The office move is set for June; Frank owns the office move.
`;

const userMessage = (content: string) => ({
  id: anyId,
  role: 'user',
  content,
  answered: null,
  confidence: null,
  citations: [],
  createdAt: isoDate,
});

describe('chat answers', () => {
  const ctx = useTestApp();
  const request = requester(ctx);
  let alice: SignedUpUser;
  let otto: SignedUpUser;
  let roadmapId: string;

  beforeAll(async () => {
    alice = await signUpUser(ctx().app, { name: 'Alice' });
    otto = await signUpUser(ctx().app, { name: 'Otto' });
    roadmapId = await postVideo(ctx, alice, { title: 'Quarterly roadmap review', transcript: ROADMAP });
    await postVideo(ctx, alice, { title: 'Hiring sync', transcript: HIRING_SYNC });
    await postVideo(ctx, otto, { title: "Otto's copy", transcript: ROADMAP });
  });

  it("starts a conversation with a first message and answers it from the caller's organization only", async () => {
    const response = await request(alice, 'POST', '/chat/conversations', {
      message: 'When is the launch date?',
    });
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json();
    expect(body).toStrictEqual({
      id: anyId,
      organizationId: alice.organizationId,
      title: 'When is the launch date?',
      messageCount: 2,
      lastMessageAt: body.messages[0].createdAt,
      createdAt: isoDate,
      updatedAt: isoDate,
      messages: [
        userMessage('When is the launch date?'),
        {
          id: anyId,
          role: 'assistant',
          content: expect.stringContaining('fifteenth of May'),
          answered: true,
          confidence: expect.any(Number),
          citations: expect.arrayContaining([
            expect.objectContaining({ videoId: roadmapId, speaker: 'Alice' }),
          ]),
          createdAt: body.messages[0].createdAt,
        },
      ],
    });
    const [, answer] = body.messages;
    for (const citation of answer.citations) {
      expect(citation).toStrictEqual({
        source: expect.any(Number),
        videoId: roadmapId,
        videoTitle: 'Quarterly roadmap review',
        heldAt: isoDate,
        start: expect.any(Number),
        end: expect.any(Number),
        speaker: expect.any(String),
        quote: expect.any(String),
      });
      expect(answer.content).toContain(`[${citation.source}]`);
    }
    const asked = await ctx().database.db.select().from(aiQuestions).where(eq(aiQuestions.userId, alice.id));
    expect(asked).toMatchObject([{ source: 'chat', question: 'When is the launch date?', answered: true }]);
  });

  it('continues a conversation: a follow-up finds the meeting its earlier turns are about', async () => {
    // Asked on its own, the follow-up is about another meeting.
    const alone = (await request(alice, 'POST', '/ai/chat', { message: 'Who agreed on it?' })).json();
    // API.md's shape, {conversationId, message}, with the stored turn's fields beside it.
    expect(alone).toMatchObject({ conversationId: anyId, message: { role: 'assistant' } });
    expect(alone.message).toStrictEqual(alone.assistantMessage);
    expect(alone.assistantMessage.citations[0].videoTitle).toBe('Hiring sync');
    const started = await request(alice, 'POST', '/ai/chat', { message: 'When is the launch date?' });
    expect(started.statusCode, started.body).toBe(201);
    const { conversationId } = started.json();
    const followUp = await request(alice, 'POST', `/chat/conversations/${conversationId}/messages`, {
      content: 'Who agreed on it?',
    });
    expect(followUp.statusCode, followUp.body).toBe(201);
    const turn = followUp.json();
    expect(turn).toStrictEqual({
      conversationId,
      userMessage: userMessage('Who agreed on it?'),
      assistantMessage: expect.objectContaining({ role: 'assistant', answered: true }),
      message: turn.assistantMessage,
    });
    expect(turn.assistantMessage.citations.length).toBeGreaterThan(0);
    expect(turn.assistantMessage.citations[0].videoId).toBe(roadmapId);
    expect(turn.assistantMessage.citations.map((c: { quote: string }) => c.quote).join(' ')).toMatch(
      /launch date/,
    );

    const conversation = (await request(alice, 'GET', `/chat/conversations/${conversationId}`)).json();
    expect(conversation.title).toBe('When is the launch date?');
    expect(conversation.messageCount).toBe(4);
    expect(conversation.messages.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
      ['user', 'When is the launch date?'],
      ['assistant', started.json().assistantMessage.content],
      ['user', 'Who agreed on it?'],
      ['assistant', turn.assistantMessage.content],
    ]);
    expect(conversation.messages.slice(2)).toStrictEqual([turn.userMessage, turn.assistantMessage]);

    const page = await request(alice, 'GET', `/chat/conversations/${conversationId}/messages?page=2&limit=3`);
    expect(page.statusCode).toBe(200);
    expect(page.json()).toStrictEqual({
      data: [turn.assistantMessage],
      pagination: { page: 2, limit: 3, total: 4, totalPages: 2 },
    });
  });

  it('continues a conversation through POST /ai/chat, in its organization', async () => {
    const started = (
      await request(otto, 'POST', '/ai/chat', { message: 'Who owns the battery investigation?' })
    ).json();
    expect(started.assistantMessage.citations.map((c: { videoTitle: string }) => c.videoTitle)).toContain(
      "Otto's copy",
    );
    const next = await request(otto, 'POST', '/ai/chat', {
      message: 'What did marketing want by Friday?',
      conversationId: started.conversationId,
      organizationId: otto.organizationId,
    });
    expect(next.statusCode, next.body).toBe(201);
    expect(next.json()).toStrictEqual({
      conversationId: started.conversationId,
      userMessage: userMessage('What did marketing want by Friday?'),
      assistantMessage: {
        id: anyId,
        role: 'assistant',
        content: expect.stringMatching(/announcement/),
        answered: true,
        confidence: expect.any(Number),
        citations: expect.any(Array),
        createdAt: isoDate,
      },
      message: next.json().assistantMessage,
    });
    const citations = next.json().assistantMessage.citations as Array<{ videoTitle: string }>;
    expect(new Set(citations.map((c) => c.videoTitle))).toEqual(new Set(["Otto's copy"]));
    const listed = (await request(otto, 'GET', '/chat/conversations')).json();
    expect(listed.data).toStrictEqual([
      {
        id: started.conversationId,
        organizationId: otto.organizationId,
        title: 'Who owns the battery investigation?',
        messageCount: 4,
        lastMessageAt: next.json().assistantMessage.createdAt,
        createdAt: isoDate,
        updatedAt: isoDate,
      },
    ]);
  });

  it('stores "I don\'t know" answers as unanswered, and they become knowledge gaps', async () => {
    const response = await request(alice, 'POST', '/ai/chat', {
      message: 'What is the oxygen supply plan for the Mars colony?',
    });
    expect(response.statusCode).toBe(201);
    expect(response.json().assistantMessage).toStrictEqual({
      id: anyId,
      role: 'assistant',
      content: MARS_UNKNOWN,
      answered: false,
      confidence: 0,
      citations: [],
      createdAt: isoDate,
    });
    const gaps = (await request(alice, 'GET', '/ai/gaps?type=unanswered_question&minSeverity=low')).json();
    expect(gaps.data).toStrictEqual([
      {
        id: expect.any(String),
        type: 'unanswered_question',
        title: 'What is the oxygen supply plan for the Mars colony?',
        description: 'Asked 1 time by 1 person; nothing in the library answers it.',
        severity: 'low',
        occurrences: 1,
        evidence: [
          {
            text: 'What is the oxygen supply plan for the Mars colony?',
            videoId: null,
            videoTitle: null,
            start: null,
            end: null,
            speaker: null,
            at: isoDate,
          },
        ],
        firstSeenAt: isoDate,
        lastSeenAt: isoDate,
      },
    ]);
    expect(
      (await request(otto, 'GET', '/ai/gaps?type=unanswered_question&minSeverity=low')).json().data,
    ).toStrictEqual([]);
  });

  it('narrows an answer to the scope named, and refuses videos of another organization', async () => {
    const ottoVideo = (await request(otto, 'GET', `/videos?organizationId=${otto.organizationId}`)).json()
      .data[0].id;
    const refused = await request(alice, 'POST', '/ai/chat', {
      message: 'When is the launch date?',
      videoIds: [ottoVideo],
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().details.map((d: { path: string }) => d.path)).toStrictEqual(['body.videoIds']);
    const scoped = await request(alice, 'POST', '/ai/chat', {
      message: 'When is the launch date?',
      videoIds: [roadmapId],
    });
    expect(scoped.statusCode).toBe(201);
    expect(scoped.json().assistantMessage.answered).toBe(true);
  });
});
