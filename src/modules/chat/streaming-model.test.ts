import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { openAiEnv, startOpenAiStub } from '../../../test/helpers/openai-stub.ts';
import { requester } from '../../../test/helpers/requests.ts';
import { chatMessages } from '../../db/schema/index.ts';
import { parseEvents, postVideo, ROADMAP } from './test-support.ts';

const stub = await startOpenAiStub();
afterAll(() => stub.close());
beforeEach(() => stub.reset());

const streaming = { accept: 'text/event-stream' };
const REPLY = 'The launch date stays on the fifteenth of May [1].';

describe('chat answers as server-sent events (a model that streams)', () => {
  const ctx = useTestApp({
    env: openAiEnv(stub),
  });
  const request = requester(ctx);
  let alice: SignedUpUser;
  let roadmapId: string;

  beforeAll(async () => {
    alice = await signUpUser(ctx().app, { name: 'Alice' });
    roadmapId = await postVideo(ctx, alice, { title: 'Quarterly roadmap review', transcript: ROADMAP });
  });

  it("passes the model's tokens through as they come, then citations and the stored turn", async () => {
    stub.reply(REPLY);
    const response = await request(
      alice,
      'POST',
      '/ai/chat',
      { message: 'When is the launch date?' },
      streaming,
    );
    expect(response.statusCode, response.body).toBe(201);
    expect(stub.requests.at(-1)?.body).toMatchObject({ stream: true });
    const events = parseEvents(response.body);
    const tokens = events.filter((event) => event.event === 'token').map((event) => event.data);
    // The model's own pieces (each word with the space before it), not a re-split of the answer.
    expect(tokens).toStrictEqual(REPLY.match(/\s*\S+/g)?.map((text) => ({ text })));
    const citations = events.filter((event) => event.event === 'citation').map((event) => event.data);
    expect(citations).toMatchObject([{ source: 1, videoId: roadmapId }]);
    const done = events.at(-1);
    expect(done?.event).toBe('done');
    expect(done?.data).toMatchObject({
      userMessage: { role: 'user', content: 'When is the launch date?' },
      assistantMessage: { role: 'assistant', content: REPLY, answered: true, citations },
    });
  });

  it('answers a provider failure before the first token as a JSON error, storing nothing', async () => {
    const before = await ctx().database.db.$count(chatMessages);
    stub.fail(500);
    const response = await request(
      alice,
      'POST',
      '/ai/chat',
      { message: 'When is the launch date?' },
      streaming,
    );
    expect(response.statusCode).toBe(502);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.json()).toMatchObject({ success: false, code: 'AI_PROVIDER_ERROR' });
    expect(await ctx().database.db.$count(chatMessages)).toBe(before);
  });
});
