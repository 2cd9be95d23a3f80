import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { waitForKnowledge } from '../../../test/helpers/knowledge.ts';
import { openAiEnv, startOpenAiStub } from '../../../test/helpers/openai-stub.ts';
import { requester } from '../../../test/helpers/requests.ts';
import type { Config } from '../../config.ts';
import { aiUsage, knowledgeItems, topics, videos, videoTopics } from '../../db/schema/index.ts';
import { ROADMAP } from '../chat/test-support.ts';
import type { TranscriptTurn } from './extraction.ts';
import { subjectOf } from './nlp/text.ts';
import { createOpenAiExtractor } from './openai-extractor.ts';

const stub = await startOpenAiStub();
afterAll(() => stub.close());
beforeEach(() => stub.reset());

const settings: Config['ai'] = {
  provider: 'openai',
  meterLocal: false,
  baseUrl: `${stub.url}/v1`,
  apiKey: 'test-key',
  model: 'stub-model',
  embeddingModel: undefined,
  timeoutMs: 300,
};

type Message = { role: string; content: string };
const messagesOf = (index: number) =>
  (stub.jsonRequests[index]?.body as { messages: Message[] } | undefined)?.messages ?? [];

const turn = (index: number, speaker: string, start: number, end: number, text: string): TranscriptTurn => ({
  index,
  speaker,
  start,
  end,
  text,
});

/** A Tuesday: "by Friday" is the 17th. */
const meetingDate = new Date('2024-05-14T10:00:00Z');
const turns = [
  turn(0, 'Alice', 0, 10, 'Welcome everyone. Today we plan the launch of the remote control.'),
  turn(
    1,
    'Bob',
    10,
    25,
    'We decided to drop the rubber case because it costs too much. The remote control stays plastic.',
  ),
  turn(
    2,
    'Alice',
    25,
    40,
    "Okay. Maria will send the revised budget by Friday. I'll book the trade fair booth.",
  ),
  turn(3, 'Carol', 40, 52, 'Who is paying for the trade fair booth this year?'),
  turn(4, 'Bob', 52, 60, 'Marketing pays for the trade fair booth from its own budget.'),
];
const input = { title: 'Product sync', turns, meetingDate };

const reply = (fields: object) =>
  JSON.stringify({
    summary: [],
    chapters: [],
    decisions: [],
    actionItems: [],
    questions: [],
    topics: [],
    ...fields,
  });

const VALID = reply({
  summary: [
    { turn: 2, text: 'The team dropped the rubber case.' },
    { turn: 3, text: 'Maria sends the revised budget this week.' },
  ],
  chapters: [
    { title: 'Design', startTurn: 1 },
    { title: 'Trade fair', startTurn: 4 },
  ],
  decisions: [{ turn: 2, quote: 'we decided to drop the  rubber case' }],
  actionItems: [
    { turn: 3, quote: 'Maria will send the revised budget by Friday.', owner: 'Maria', due: 'by Friday' },
    { turn: 3, quote: "I'll book the trade fair booth", owner: 'alice', due: null },
  ],
  questions: [{ turn: 4, quote: 'Who is paying for the trade fair booth this year?', answeredByTurn: 5 }],
  topics: [
    { name: 'Trade fair booth', keywords: ['Marketing', 'budget', 'sponsorship'] },
    { name: 'Remote controls', keywords: ['plastic'] },
  ],
});

describe('the openai extractor', () => {
  it('keeps verbatim items timed inside their turn, with owners, due dates and subjects', async () => {
    stub.replyJson(VALID);
    const extraction = await createOpenAiExtractor(settings).extract(input);

    expect(extraction.items).toStrictEqual([
      {
        kind: 'decision',
        text: 'We decided to drop the rubber case',
        speaker: 'Bob',
        start: 10,
        end: 20.588,
        owner: null,
        dueDate: null,
        answered: null,
        answer: null,
        subject: subjectOf('We decided to drop the rubber case'),
      },
      {
        kind: 'action_item',
        text: 'Maria will send the revised budget by Friday.',
        speaker: 'Alice',
        start: 25,
        end: 34,
        owner: 'Maria',
        dueDate: '2024-05-17',
        answered: null,
        answer: null,
        subject: subjectOf('Maria will send the revised budget by Friday.'),
      },
      {
        kind: 'action_item',
        text: "I'll book the trade fair booth",
        speaker: 'Alice',
        start: 34,
        end: 40,
        owner: 'Alice',
        dueDate: null,
        answered: null,
        answer: null,
        subject: subjectOf("I'll book the trade fair booth"),
      },
      {
        kind: 'question',
        text: 'Who is paying for the trade fair booth this year?',
        speaker: 'Carol',
        start: 40,
        end: 52,
        owner: null,
        dueDate: null,
        answered: true,
        answer: {
          text: 'Marketing pays for the trade fair booth from its own budget.',
          start: 52,
          end: 60,
          speaker: 'Bob',
        },
        subject: subjectOf('Who is paying for the trade fair booth this year?'),
      },
    ]);
    expect(extraction.items[0]?.subject).toContain('rubber');
    expect(extraction.summary).toStrictEqual([
      { text: 'The team dropped the rubber case.', start: 10, end: 25, speaker: 'Bob' },
      { text: 'Maria sends the revised budget this week.', start: 25, end: 40, speaker: 'Alice' },
    ]);
    expect(extraction.chapters).toStrictEqual([
      { title: 'Design', start: 0, end: 40 },
      { title: 'Trade fair', start: 40, end: 60 },
    ]);
    expect(extraction.topics).toStrictEqual([
      {
        key: 'trade fair booth',
        name: 'trade fair booth',
        keywords: ['Marketing', 'budget'],
        mentions: 3,
        score: 1,
        firstStart: 34,
      },
      {
        key: 'remot control',
        name: 'remote control',
        keywords: ['plastic'],
        mentions: 2,
        score: 0.667,
        firstStart: 0,
      },
    ]);
  });

  it('drops invented quotes, unknown turns, owners nobody names, earlier answers and unsaid dates', async () => {
    stub.replyJson(
      reply({
        summary: [
          { turn: 42, text: 'The meeting approved a titanium case.' },
          { turn: 1, text: 'Alice opened the meeting.' },
        ],
        chapters: [
          { title: 'Opening', startTurn: 1 },
          { title: 'Ghost chapter', startTurn: 99 },
        ],
        decisions: [
          { turn: 2, quote: 'We decided to switch to a titanium case' },
          { turn: 42, quote: 'We decided to drop the rubber case' },
          { turn: 2, quote: 'Maria will send the revised budget by Friday.' },
          { turn: 2, quote: 'We' },
        ],
        actionItems: [
          { turn: 3, quote: "I'll book the trade fair booth", owner: 'Zed', due: 'next Monday' },
          { turn: 3, quote: 'Maria will send the revised budget', owner: 'We', due: '2024-06-30' },
        ],
        questions: [
          { turn: 4, quote: 'Who is paying for the trade fair booth this year?', answeredByTurn: 3 },
        ],
        topics: [{ name: 'Blockchain strategy', keywords: ['crypto'] }],
      }),
    );
    const extraction = await createOpenAiExtractor(settings).extract(input);

    expect(extraction.items).toMatchObject([
      { kind: 'action_item', text: 'Maria will send the revised budget', owner: null, dueDate: null },
      { kind: 'action_item', text: "I'll book the trade fair booth", owner: null, dueDate: null },
      { kind: 'question', answered: false, answer: null },
    ]);
    expect(extraction.items).toHaveLength(3);
    expect(extraction.summary).toStrictEqual([
      { text: 'Alice opened the meeting.', start: 0, end: 10, speaker: 'Alice' },
    ]);
    expect(extraction.chapters).toStrictEqual([{ title: 'Opening', start: 0, end: 60 }]);
    expect(extraction.topics).toStrictEqual([]);
  });

  it('sends the numbered turns and asks for JSON only', async () => {
    stub.replyJson(VALID);
    await createOpenAiExtractor(settings).extract(input);

    expect(stub.jsonRequests).toHaveLength(1);
    const [request] = stub.jsonRequests;
    expect(request).toMatchObject({
      path: '/v1/chat/completions',
      headers: { authorization: 'Bearer test-key' },
      body: { model: 'stub-model', response_format: { type: 'json_object' } },
    });
    const [system, user] = messagesOf(0);
    expect(system?.role).toBe('system');
    expect(system?.content).toMatch(/Reply with one JSON object and nothing else/);
    expect(user?.content).toContain('Meeting: Product sync\nDate: 2024-05-14');
    expect(user?.content).toContain(
      '[1] Alice (00:00:00): Welcome everyone. Today we plan the launch of the remote control.\n' +
        '[2] Bob (00:00:10): We decided to drop the rubber case',
    );
    expect(user?.content).toContain('[5] Bob (00:00:52): Marketing pays for the trade fair booth');
    expect(stub.requests).toHaveLength(0);
  });

  it('splits a long transcript into windows of whole turns and merges what they find', async () => {
    stub.replyJson(
      reply({
        summary: [{ turn: 2, text: 'The rubber case is dropped.' }],
        chapters: [{ title: 'Design', startTurn: 1 }],
        decisions: [{ turn: 2, quote: 'We decided to drop the rubber case' }],
        topics: [{ name: 'remote control', keywords: ['launch'] }],
      }),
      reply({
        actionItems: [{ turn: 3, quote: "I'll book the trade fair booth", owner: 'Alice', due: null }],
        // Its answer is in the next window, which this request never showed.
        questions: [
          { turn: 4, quote: 'Who is paying for the trade fair booth this year?', answeredByTurn: 5 },
        ],
      }),
      reply({
        summary: [{ turn: 5, text: 'Marketing pays for the booth.' }],
        chapters: [{ title: 'Money', startTurn: 5 }],
        topics: [{ name: 'Remote controls', keywords: ['plastic'] }],
      }),
      JSON.stringify({
        summary: [
          { turn: 2, text: 'The team dropped the rubber case.' },
          { turn: 3, text: 'Nobody summarised this turn.' },
          { turn: 5, text: 'Marketing pays for the trade fair.' },
        ],
      }),
    );
    const extraction = await createOpenAiExtractor(settings, { windowWords: 30 }).extract(input);

    expect(stub.jsonRequests).toHaveLength(4);
    const users = [0, 1, 2, 3].map((index) => messagesOf(index)[1]?.content ?? '');
    expect(users[0]).toContain('part 1 of 3 of the transcript (turns 1–2)');
    expect(users[0]).toMatch(/\[1\] Alice.*\n\[2\] Bob/);
    expect(users[0]).not.toContain('[3]');
    expect(users[1]).toContain('part 2 of 3');
    expect(users[1]).toMatch(/\[3\] Alice.*\n\[4\] Carol/);
    expect(users[1]).not.toContain('[5]');
    expect(users[2]).toMatch(/part 3 of 3.*\n\nTranscript:\n\[5\] Bob/);
    expect(messagesOf(3)[0]?.content).toMatch(/summary of a meeting from the summaries of its parts/);
    expect(users[3]).toContain('[2] The rubber case is dropped.\n[5] Marketing pays for the booth.');

    expect(extraction.items.map((item) => [item.kind, item.text, item.answered])).toStrictEqual([
      ['decision', 'We decided to drop the rubber case', null],
      ['action_item', "I'll book the trade fair booth", null],
      ['question', 'Who is paying for the trade fair booth this year?', false],
    ]);
    expect(extraction.chapters).toStrictEqual([
      { title: 'Design', start: 0, end: 52 },
      { title: 'Money', start: 52, end: 60 },
    ]);
    expect(extraction.summary).toStrictEqual([
      { text: 'The team dropped the rubber case.', start: 10, end: 25, speaker: 'Bob' },
      { text: 'Marketing pays for the trade fair.', start: 52, end: 60, speaker: 'Bob' },
    ]);
    expect(extraction.topics).toStrictEqual([
      {
        key: 'remot control',
        name: 'remote control',
        keywords: ['launch', 'plastic'],
        mentions: 2,
        score: 1,
        firstStart: 0,
      },
    ]);
  });

  it('throws a clear error when the provider fails, times out or does not answer in JSON', async () => {
    const extractor = createOpenAiExtractor(settings);
    stub.fail(503, { error: { message: 'overloaded', type: 'server_error' } });
    await expect(extractor.extract(input)).rejects.toThrow('The AI provider failed: HTTP 503');

    stub.reset();
    stub.hang();
    await expect(extractor.extract(input)).rejects.toThrow('The AI provider failed: no answer within 300 ms');

    stub.reset();
    stub.replyJson('Sure! Here are the decisions: none.');
    await expect(extractor.extract(input)).rejects.toThrow(
      'The AI provider failed: the reply was not the JSON asked for, even after a reminder (not JSON)',
    );
    expect(stub.jsonRequests).toHaveLength(2);
    expect(messagesOf(1).slice(2)).toStrictEqual([
      { role: 'assistant', content: 'Sure! Here are the decisions: none.' },
      {
        role: 'user',
        content:
          'That reply was not the JSON object asked for (not JSON). Reply again with that JSON object only.',
      },
    ]);

    stub.reset();
    stub.replyJson('{"decisions": [{"turn": "two", "quote": "We decided"}]}');
    await expect(extractor.extract(input)).rejects.toThrow(/even after a reminder \(decisions\.0\.turn: /);
  });

  it('takes the reply that follows the reminder', async () => {
    stub.replyJson('{"summary": [', VALID);
    const extraction = await createOpenAiExtractor(settings).extract(input);
    expect(stub.jsonRequests).toHaveLength(2);
    expect(extraction.items).toHaveLength(4);
  });

  it('asks nothing of a transcript without words', async () => {
    const extraction = await createOpenAiExtractor(settings).extract({
      ...input,
      turns: [turn(0, 'Alice', 0, 4, '  ')],
    });
    expect(extraction).toStrictEqual({
      summary: [],
      chapters: [{ title: 'Product sync', start: 0, end: 4 }],
      items: [],
      topics: [],
    });
    expect(stub.jsonRequests).toHaveLength(0);
  });
});

describe('knowledge extraction with AI_PROVIDER=openai', () => {
  const ctx = useTestApp({
    env: openAiEnv(stub),
  });
  const request = requester(ctx);
  const db = () => ctx().database.db;
  let alice: SignedUpUser;

  beforeAll(async () => {
    alice = await signUpUser(ctx().app, { name: 'Alice' });
  });

  const postRoadmap = async () => {
    const response = await request(alice, 'POST', '/videos', {
      organizationId: alice.organizationId,
      title: 'Quarterly roadmap review',
      duration: '1:05',
      recordedAt: '2024-05-14T10:00:00.000Z',
      transcript: ROADMAP,
    });
    expect(response.statusCode, response.body).toBe(201);
    return response.json().id as string;
  };
  const extractionCredits = async () => {
    const [row] = await db()
      .select({ credits: aiUsage.credits })
      .from(aiUsage)
      .where(and(eq(aiUsage.organizationId, alice.organizationId), eq(aiUsage.feature, 'extraction')));
    return row?.credits ?? 0;
  };

  it('stores what the model found in a posted transcript', async () => {
    stub.replyJson(
      reply({
        summary: [{ turn: 3, text: 'The launch date holds at May 15.' }],
        chapters: [{ title: 'Roadmap', startTurn: 1 }],
        decisions: [{ turn: 3, quote: 'We agreed the launch date stays on the fifteenth of May' }],
        actionItems: [
          {
            turn: 5,
            quote: 'Marketing wants a draft of the announcement by Friday',
            owner: null,
            due: 'by Friday',
          },
          { turn: 6, quote: 'Carol owns the battery investigation.', owner: 'Carol', due: null },
        ],
        topics: [{ name: 'battery', keywords: ['prototype', 'demo'] }],
      }),
    );
    const videoId = await postRoadmap();
    const knowledge = await waitForKnowledge(db(), videoId);

    expect(knowledge).toMatchObject({
      status: 'ready',
      engine: 'openai',
      error: null,
      summary: [{ text: 'The launch date holds at May 15.', start: 19.5, end: 31, speaker: 'Alice' }],
      chapters: [{ title: 'Roadmap', start: 0, end: 65 }],
    });
    const items = await db()
      .select()
      .from(knowledgeItems)
      .where(eq(knowledgeItems.videoId, videoId))
      .orderBy(knowledgeItems.start);
    expect(
      items.map(({ kind, text, speaker, start, end, owner, dueDate }) => ({
        kind,
        text,
        speaker,
        start,
        end,
        owner,
        dueDate,
      })),
    ).toStrictEqual([
      {
        kind: 'decision',
        text: 'We agreed the launch date stays on the fifteenth of May',
        speaker: 'Alice',
        start: 19.5,
        end: 31,
        owner: null,
        dueDate: null,
      },
      {
        kind: 'action_item',
        text: 'Marketing wants a draft of the announcement by Friday',
        speaker: 'Bob',
        start: 44,
        end: 55,
        owner: null,
        dueDate: '2024-05-17',
      },
      {
        kind: 'action_item',
        text: 'Carol owns the battery investigation.',
        speaker: 'Alice',
        start: 59.444,
        end: 65,
        owner: 'Carol',
        dueDate: null,
      },
    ]);
    const stored = await db()
      .select({
        key: topics.key,
        name: topics.name,
        keywords: topics.keywords,
        mentions: videoTopics.mentions,
      })
      .from(videoTopics)
      .innerJoin(topics, eq(topics.id, videoTopics.topicId))
      .where(eq(videoTopics.videoId, videoId));
    expect(stored).toStrictEqual([
      { key: 'batteri', name: 'battery', keywords: ['prototype', 'demo'], mentions: 2 },
    ]);
    const [video] = await db()
      .select({ aiSummary: videos.aiSummary })
      .from(videos)
      .where(eq(videos.id, videoId));
    expect(video?.aiSummary).toBe('The launch date holds at May 15.');
    expect(await extractionCredits()).toBe(2);
  });

  it('marks the video failed and stores nothing when the provider fails', async () => {
    const creditsBefore = await extractionCredits();
    stub.fail(503);
    const videoId = await postRoadmap();
    const knowledge = await waitForKnowledge(db(), videoId);

    expect(knowledge).toMatchObject({
      status: 'failed',
      error: 'The AI provider failed: HTTP 503',
      summary: [],
      chapters: [],
      extractedAt: null,
    });
    expect(await db().select().from(knowledgeItems).where(eq(knowledgeItems.videoId, videoId))).toHaveLength(
      0,
    );
    expect(await db().select().from(videoTopics).where(eq(videoTopics.videoId, videoId))).toHaveLength(0);
    expect(await extractionCredits()).toBe(creditsBefore);
    expect(stub.jsonRequests.length).toBeGreaterThanOrEqual(1);
  });
});
