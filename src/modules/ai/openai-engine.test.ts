import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { openAiEnv, startOpenAiStub, stubEmbedding } from '../../../test/helpers/openai-stub.ts';
import type { Config } from '../../config.ts';
import { aiQuestions } from '../../db/schema/index.ts';
import { AppError } from '../../http/errors.ts';
import { NOT_FOUND_ANSWER, type Source } from './engine.ts';
import { createOpenAiEngine } from './openai-engine.ts';

const stub = await startOpenAiStub();
afterAll(() => stub.close());
beforeEach(() => stub.reset());

const promptOf = (body: unknown) => (body as { messages: { role: string; content: string }[] }).messages;

const settings = (overrides: Partial<Config['ai']> = {}): Config['ai'] => ({
  provider: 'openai',
  meterLocal: false,
  baseUrl: `${stub.url}/v1`,
  apiKey: 'test-key',
  model: 'stub-model',
  embeddingModel: undefined,
  timeoutMs: 300,
  ...overrides,
});

const ROADMAP_TEXT =
  'Alice: Welcome everyone, this is the quarterly roadmap review for the platform team.\n' +
  'Bob: Thanks. First item: the organization settings page is running late because of the permissions work.\n' +
  'Alice: Understood. We agreed the launch date stays on the fifteenth of May, no matter what.';
const BATTERY_TEXT =
  'Carol: The battery life of the remote control prototype is still too short for the demo.';

/** A source's turns from its `Speaker: words` lines, its time shared evenly between them. */
const turnsOf = (text: string, firstIndex: number, start: number, end: number) => {
  const lines = text.split('\n');
  const step = (end - start) / lines.length;
  return lines.map((line, at) => {
    const [speaker, ...words] = line.split(': ');
    return {
      index: firstIndex + at,
      start: start + at * step,
      end: start + (at + 1) * step,
      speaker: speaker ?? null,
      text: words.join(': '),
    };
  });
};

const sources: Source[] = [
  {
    number: 1,
    videoId: '00000000-0000-4000-8000-00000000000a',
    videoTitle: 'Roadmap review',
    recordedAt: new Date('2026-01-05T09:00:00Z'),
    firstSegmentIndex: 0,
    lastSegmentIndex: 2,
    bestSegmentIndex: 2,
    startSeconds: 0,
    endSeconds: 31,
    speakerNames: ['Alice', 'Bob'],
    text: ROADMAP_TEXT,
    turns: turnsOf(ROADMAP_TEXT, 0, 0, 31),
  },
  {
    number: 2,
    videoId: '00000000-0000-4000-8000-00000000000b',
    videoTitle: 'Hardware sync',
    recordedAt: new Date('2026-01-12T09:00:00Z'),
    firstSegmentIndex: 3,
    lastSegmentIndex: 3,
    bestSegmentIndex: 3,
    startSeconds: 31,
    endSeconds: 44,
    speakerNames: ['Carol'],
    text: BATTERY_TEXT,
    turns: turnsOf(BATTERY_TEXT, 3, 31, 44),
  },
];
const question = 'What is late, and what about the battery?';

/** Cites [1] and an unknown [7]; the second sentence cites only [7]. */
const REPLY =
  'The settings page is running late because of the permissions work [1][7]. The launch stays in May [7]. ' +
  'The battery life is too short for the demo [2].';
const ANSWER = {
  answer:
    'The settings page is running late because of the permissions work [1]. The launch stays in May. ' +
    'The battery life is too short for the demo [2].',
  answered: true,
  confidence: 0.667,
  citations: [
    {
      source: 1,
      videoId: '00000000-0000-4000-8000-00000000000a',
      videoTitle: 'Roadmap review',
      heldAt: '2026-01-05T09:00:00.000Z',
      start: 0,
      end: 31,
      speaker: 'Bob',
      quote: 'First item: the organization settings page is running late because of the permissions work.',
    },
    {
      source: 2,
      videoId: '00000000-0000-4000-8000-00000000000b',
      videoTitle: 'Hardware sync',
      heldAt: '2026-01-12T09:00:00.000Z',
      start: 31,
      end: 44,
      speaker: 'Carol',
      quote: 'The battery life of the remote control prototype is still too short for the demo.',
    },
  ],
};

const providerFailure = (reason: string) =>
  expect.objectContaining({
    statusCode: 502,
    code: 'AI_PROVIDER_ERROR',
    message: `The AI provider failed: ${reason}`,
  });

describe('the OpenAI-compatible engine', () => {
  const engine = createOpenAiEngine(settings());

  it('keeps only citations of sources given, each quoting the source sentence that says it, verbatim', async () => {
    stub.reply(REPLY);
    expect(await engine.answer({ question, sources })).toStrictEqual(ANSWER);
    for (const citation of ANSWER.citations) {
      expect(sources[citation.source - 1]?.text).toContain(citation.quote);
    }
  });

  it('sends the numbered sources and the question, with the API key as a bearer token', async () => {
    stub.reply(REPLY);
    await engine.answer({ question, sources });
    expect(stub.requests).toHaveLength(1);
    const [request] = stub.requests;
    expect(request).toMatchObject({
      method: 'POST',
      path: '/v1/chat/completions',
      headers: { authorization: 'Bearer test-key' },
      body: { model: 'stub-model' },
    });
    const [system, user] = promptOf(request?.body);
    expect(system?.role).toBe('system');
    expect(system?.content).toContain('NOT_FOUND');
    expect(user).toStrictEqual({
      role: 'user',
      content:
        `Sources:\n\n[1] Roadmap review (held 2026-01-05; 0–31 s, Alice, Bob):\n${ROADMAP_TEXT}\n\n` +
        `[2] Hardware sync (held 2026-01-12; 31–44 s, Carol):\n${BATTERY_TEXT}\n\nQuestion: ${question}`,
    });
  });

  it.each([
    ['NOT_FOUND', 'NOT_FOUND'],
    ['a reply with no marker', 'The settings page is late.'],
    ['a reply citing only sources not given', 'The settings page is late [7].'],
  ])('answers "I don\'t know" for %s', async (_, reply) => {
    stub.reply(reply);
    expect(await engine.answer({ question, sources })).toStrictEqual({
      answer: NOT_FOUND_ANSWER,
      answered: false,
      confidence: 0,
      citations: [],
    });
  });

  it('tells the model which words of the question no recording says, and names them when it does not know', async () => {
    stub.reply(REPLY);
    await engine.answer({ question, sources, unsaid: ['kangaroos'] });
    const [system, user] = promptOf(stub.requests[0]?.body);
    expect(system?.content).toContain(
      'When the question names something no recording mentions (listed after it), say so first.',
    );
    expect(user?.content).toMatch(/\n\nQuestion: .*\nNo recording you can access mentions “kangaroos”\.$/);
    stub.reply('NOT_FOUND');
    expect((await engine.answer({ question, sources, unsaid: ['kangaroos'] })).answer).toBe(
      "I don't know: no recording you can access mentions “kangaroos”.",
    );
  });

  it('asks nothing when there are no sources', async () => {
    expect((await engine.answer({ question, sources: [] })).answered).toBe(false);
    expect(stub.requests).toHaveLength(0);
  });

  it('turns a provider error into a 502 that does not leak the key', async () => {
    stub.fail(500, { error: { message: 'upstream exploded for key test-key', type: 'server_error' } });
    const failure = await engine.answer({ question, sources }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AppError);
    expect(failure).toEqual(providerFailure('HTTP 500'));
    expect((failure as AppError).message).not.toContain('test-key');
    // No retry: a failed question is asked again by the person, not by the engine.
    expect(stub.requests).toHaveLength(1);
  });

  it('gives up after AI_TIMEOUT_MS when the provider never answers', async () => {
    stub.hang();
    await expect(engine.answer({ question, sources })).rejects.toEqual(
      providerFailure('no answer within 300 ms'),
    );
  });

  it('answers 502 for a malformed response and for a provider it cannot reach', async () => {
    stub.fail(200, { id: 'x', object: 'chat.completion' });
    await expect(engine.answer({ question, sources })).rejects.toEqual(providerFailure('malformed response'));

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise((resolve) => closed.close(resolve));
    const unreachable = createOpenAiEngine(settings({ baseUrl: `http://127.0.0.1:${port}/v1` }));
    await expect(unreachable.answer({ question, sources })).rejects.toEqual(
      providerFailure('could not connect'),
    );
  });

  it('streams the tokens in order and ends with the same answer', async () => {
    const reply = 'The settings page is running late [1]. The battery life is too short [2].';
    stub.reply(reply);
    const tokens: string[] = [];
    const streamed = await engine.answerStream({ question, sources }, (token) => tokens.push(token));
    expect(stub.requests[0]?.body).toMatchObject({ stream: true, model: 'stub-model' });
    expect(tokens.length).toBeGreaterThan(5);
    expect(tokens.join('')).toBe(reply);
    expect(streamed).toStrictEqual(await engine.answer({ question, sources }));
    expect(streamed.citations.map((citation) => citation.source)).toStrictEqual([1, 2]);
  });

  it('streams neither NOT_FOUND nor markers of sources not given', async () => {
    stub.reply('NOT_FOUND');
    const silent: string[] = [];
    expect((await engine.answerStream({ question, sources }, (token) => silent.push(token))).answered).toBe(
      false,
    );
    expect(silent).toStrictEqual([]);

    stub.reply(REPLY);
    const tokens: string[] = [];
    expect(await engine.answerStream({ question, sources }, (token) => tokens.push(token))).toStrictEqual(
      ANSWER,
    );
    expect(tokens.join('')).toBe(REPLY.replaceAll('[7]', ''));
  });

  it('fails a stream the same way as an answer', async () => {
    stub.fail(429, { error: { message: 'slow down', type: 'rate_limit' } });
    await expect(engine.answerStream({ question, sources }, () => {})).rejects.toEqual(
      providerFailure('HTTP 429'),
    );
  });

  it('embeds texts in order when an embedding model is set', async () => {
    expect(engine.embed).toBeUndefined();
    const embedding = createOpenAiEngine(settings({ embeddingModel: 'stub-embed' }));
    const texts = ['launch date', 'the battery life is short'];
    expect(await embedding.embed?.(texts)).toStrictEqual(texts.map(stubEmbedding));
    expect(stub.requests).toMatchObject([
      {
        method: 'POST',
        path: '/v1/embeddings',
        headers: { authorization: 'Bearer test-key' },
        body: { model: 'stub-embed', input: texts },
      },
    ]);
  });
});

describe('POST /ai/qa with AI_PROVIDER=openai', () => {
  const ctx = useTestApp({
    env: openAiEnv(stub),
  });
  let alice: SignedUpUser;
  let videoId: string;
  /** When the video was added: with no recording date, when its meeting was held. */
  let videoAddedAt: string;
  const roadmap = readFileSync(new URL('../search/fixtures/roadmap-review.vtt', import.meta.url), 'utf8');
  const ask = (payload: object) =>
    ctx().app.inject({ method: 'POST', url: '/ai/qa', headers: alice.headers, payload });
  const budget = async () =>
    (await ctx().app.inject({ method: 'GET', url: '/ai/budget', headers: alice.headers })).json();

  beforeAll(async () => {
    alice = await signUpUser(ctx().app, { name: 'Alice' });
    const response = await ctx().app.inject({
      method: 'POST',
      url: '/videos',
      headers: alice.headers,
      payload: {
        organizationId: alice.organizationId,
        title: 'Quarterly roadmap review',
        duration: '1:05',
        transcript: roadmap,
      },
    });
    expect(response.statusCode, response.body).toBe(201);
    videoId = response.json().id;
    videoAddedAt = response.json().createdAt;
  });

  it("answers with the model's words and citations tied to the transcript", async () => {
    stub.reply('The launch date stays on the fifteenth of May [1]. Carol owns the battery work [4].');
    const response = await ask({ question: 'When is the launch date?' });
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json();
    expect(body).toMatchObject({
      question: 'When is the launch date?',
      answer: 'The launch date stays on the fifteenth of May [1]. Carol owns the battery work.',
      answered: true,
      confidence: 0.5,
      engine: 'openai',
      organizationId: alice.organizationId,
    });
    expect(body.citations).toStrictEqual([
      {
        source: 1,
        videoId,
        videoTitle: 'Quarterly roadmap review',
        heldAt: videoAddedAt,
        // The source is the stretch retrieval centred on the answering turn, two turns either way.
        start: 0,
        end: 55,
        speaker: 'Alice',
        quote: 'We agreed the launch date stays on the fifteenth of May, no matter what.',
      },
    ]);

    const [request] = stub.requests;
    expect(request?.headers.authorization).toBe('Bearer test-key');
    const prompt = promptOf(request?.body)[1]?.content;
    // Held the day it was added: the video has no recording date.
    expect(prompt).toMatch(
      /\[1\] Quarterly roadmap review \(held \d{4}-\d{2}-\d{2}; 0–55 s, Alice, Bob, Carol\):\nAlice: Welcome everyone/,
    );
    expect(prompt).toContain('Bob: Thanks. First item: the organization settings page is running late');
    expect(prompt).not.toContain('[2]');
    expect(prompt).toMatch(/Question: When is the launch date\?$/);
    expect(await budget()).toMatchObject({ used: 1 });
  });

  it('answers 502 AI_PROVIDER_ERROR when the provider fails, and charges nothing for it', async () => {
    const before = await budget();
    stub.fail(503, { error: { message: 'overloaded', type: 'server_error' } });
    const failed = await ask({ question: 'When is the launch date?' });
    expect(failed.statusCode).toBe(502);
    expect(failed.json()).toStrictEqual({
      success: false,
      error: 'The AI provider failed: HTTP 503',
      code: 'AI_PROVIDER_ERROR',
    });

    stub.hang();
    const timedOut = await ask({ question: 'When is the launch date?' });
    expect(timedOut.statusCode).toBe(502);
    expect(timedOut.json()).toMatchObject({ code: 'AI_PROVIDER_ERROR' });

    expect(await budget()).toStrictEqual(before);
    const [kept] = await ctx()
      .database.db.select({ n: count() })
      .from(aiQuestions)
      .where(eq(aiQuestions.organizationId, alice.organizationId));
    expect(kept?.n).toBe(1);
  });
});
