import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { requester } from '../../../test/helpers/requests.ts';
import { notFoundAnswer } from '../ai/engine.ts';

/** Nothing in the test's organization says any of the words of "What is the oxygen supply plan for the Mars colony?". */
const MARS_UNKNOWN = notFoundAnswer(['oxygen', 'supply', 'plan', 'Mars', 'colony']);

import { anyId, isoDate, parseEvents, postVideo, ROADMAP } from './test-support.ts';

const streaming = { accept: 'text/event-stream' };

describe('chat answers as server-sent events (local engine)', () => {
  const ctx = useTestApp();
  const request = requester(ctx);
  let alice: SignedUpUser;
  let roadmapId: string;

  beforeAll(async () => {
    alice = await signUpUser(ctx().app, { name: 'Alice' });
    roadmapId = await postVideo(ctx, alice, { title: 'Quarterly roadmap review', transcript: ROADMAP });
  });

  it('streams the answer word by word, then its citations, then the stored turn', async () => {
    const response = await request(
      alice,
      'POST',
      '/ai/chat',
      { message: 'When is the launch date?' },
      streaming,
    );
    expect(response.statusCode, response.body).toBe(201);
    expect(response.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-cache, no-transform');
    const events = parseEvents(response.body);
    const tokens = events.filter((event) => event.event === 'token');
    const citations = events.filter((event) => event.event === 'citation');
    const done = events.at(-1);
    expect(events.map((event) => event.event)).toStrictEqual([
      ...tokens.map(() => 'token'),
      ...citations.map(() => 'citation'),
      'done',
    ]);
    expect(tokens.length).toBeGreaterThan(5);
    const answer = tokens.map((event) => (event.data as { text: string }).text).join('');
    expect(answer).toMatch(/fifteenth of May/);

    const turn = done?.data as {
      conversationId: string;
      userMessage: unknown;
      assistantMessage: unknown;
      message: unknown;
    };
    expect(turn).toStrictEqual({
      conversationId: anyId,
      userMessage: {
        id: anyId,
        role: 'user',
        content: 'When is the launch date?',
        answered: null,
        confidence: null,
        citations: [],
        createdAt: isoDate,
      },
      assistantMessage: {
        id: anyId,
        role: 'assistant',
        content: answer,
        answered: true,
        confidence: expect.any(Number),
        citations: citations.map((event) => event.data),
        createdAt: isoDate,
      },
      message: turn.assistantMessage,
    });
    expect(citations.length).toBeGreaterThan(0);
    for (const citation of citations) expect(citation.data).toMatchObject({ videoId: roadmapId });

    // `done` carries what was stored.
    const stored = (await request(alice, 'GET', `/chat/conversations/${turn.conversationId}`)).json();
    expect(stored.messages).toStrictEqual([turn.userMessage, turn.assistantMessage]);
  });

  it('streams follow-ups in a conversation, and "I don\'t know" with no citations', async () => {
    const created = (await request(alice, 'POST', '/chat/conversations', { title: 'Space' })).json();
    const response = await request(
      alice,
      'POST',
      `/chat/conversations/${created.id}/messages`,
      { content: 'What is the oxygen supply plan for the Mars colony?' },
      streaming,
    );
    expect(response.statusCode).toBe(201);
    const events = parseEvents(response.body);
    const tokens = events.filter((event) => event.event === 'token');
    expect(tokens.map((event) => (event.data as { text: string }).text).join('')).toBe(MARS_UNKNOWN);
    expect(events.at(-1)).toStrictEqual({
      event: 'done',
      data: {
        conversationId: created.id,
        userMessage: expect.objectContaining({
          content: 'What is the oxygen supply plan for the Mars colony?',
        }),
        assistantMessage: expect.objectContaining({
          content: MARS_UNKNOWN,
          answered: false,
          citations: [],
        }),
        message: expect.objectContaining({ content: MARS_UNKNOWN }),
      },
    });
    expect(events.filter((event) => event.event === 'citation')).toStrictEqual([]);
  });

  it('answers refusals found before streaming as JSON errors', async () => {
    const invalid = await request(alice, 'POST', '/ai/chat', { message: '' }, streaming);
    expect(invalid.statusCode).toBe(400);
    expect(invalid.headers['content-type']).toMatch(/^application\/json/);
    const other = await signUpUser(ctx().app, { name: 'Otto' });
    const foreign = (await request(other, 'POST', '/chat/conversations', {})).json();
    const hidden = await request(
      alice,
      'POST',
      `/chat/conversations/${foreign.id}/messages`,
      { content: 'When is the launch date?' },
      streaming,
    );
    expect(hidden.statusCode).toBe(404);
    expect(hidden.json()).toStrictEqual({
      success: false,
      error: 'Conversation not found',
      code: 'NOT_FOUND',
    });
  });
});
