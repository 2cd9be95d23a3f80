import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useTestApp } from '../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../test/helpers/factories.ts';
import { waitForKnowledge } from '../../test/helpers/knowledge.ts';
import { openAiEnv, startOpenAiStub } from '../../test/helpers/openai-stub.ts';
import { openEventStream } from '../../test/helpers/sse.ts';
import type { App } from '../app.ts';

const roadmap = readFileSync(
  new URL('../modules/search/fixtures/roadmap-review.vtt', import.meta.url),
  'utf8',
);

/** A meeting with its transcript in the caller's organization. */
const postMeeting = (app: App, user: SignedUpUser) =>
  app.inject({
    method: 'POST',
    url: '/videos',
    headers: user.headers,
    payload: {
      organizationId: user.organizationId,
      title: 'Roadmap review',
      duration: '1:05',
      transcript: roadmap,
    },
  });

/** The value of one sample of the exposition text, or undefined when the line is absent. */
function sample(metrics: string, line: string): number | undefined {
  const found = metrics.split('\n').find((candidate) => candidate.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

describe('/metrics beyond HTTP, and who asked on every request log line', () => {
  const lines: Array<Record<string, unknown>> = [];
  const logDestination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const ctx = useTestApp({ env: { LOG_LEVEL: 'info', AI_METER_LOCAL: 'true' }, logDestination });
  const metrics = async () => (await ctx().app.inject({ method: 'GET', url: '/metrics' })).body;
  let alice: SignedUpUser;
  let videoId: string;

  beforeAll(async () => {
    alice = await signUpUser(ctx().app, { name: 'Alice' });
    const created = await postMeeting(ctx().app, alice);
    expect(created.statusCode, created.body).toBe(201);
    videoId = created.json().id;
    await waitForKnowledge(ctx().database.db, videoId);
  });

  it('reports the pool, the job queues, extraction outcomes, credits spent and the mail outbox', async () => {
    const reset = await ctx().app.inject({
      method: 'POST',
      url: '/auth/reset-password',
      payload: { email: alice.email },
    });
    expect(reset.statusCode).toBe(200);
    const text = await metrics();
    expect(sample(text, 'db_pool_connections{state="total"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'db_pool_connections{state="waiting"}')).toBe(0);
    expect(text).toMatch(/^jobs\{queue="[\w.-]+",state="completed"\} [1-9]\d*$/m);
    expect(sample(text, 'knowledge_extractions{status="ready"}')).toBe(1);
    expect(sample(text, 'ai_credits_spent{feature="extraction"}')).toBeGreaterThan(0);
    // The reset mail: in the outbox until its job runs, then kept there as logged (no SMTP server).
    expect(text).toMatch(/^mail_outbox\{status="(pending|logged)"\} 1$/m);
  });

  it('counts the notification streams open on this instance', async () => {
    const baseUrl = await ctx().app.listen({ port: 0, host: '127.0.0.1' });
    expect(sample(await metrics(), 'notification_streams_open')).toBe(0);
    const stream = await openEventStream(`${baseUrl}/notifications/stream`, alice.headers);
    await stream.next();
    expect(sample(await metrics(), 'notification_streams_open')).toBe(1);
    stream.close();
    for (
      let attempt = 0;
      attempt < 50 && sample(await metrics(), 'notification_streams_open') !== 0;
      attempt++
    ) {
      await sleep(50);
    }
    expect(sample(await metrics(), 'notification_streams_open')).toBe(0);
  });

  it('logs the user, the organization the request names and the client address', async () => {
    const listed = await ctx().app.inject({
      method: 'GET',
      url: `/videos?organizationId=${alice.organizationId}`,
      headers: alice.headers,
    });
    expect(listed.statusCode).toBe(200);
    await ctx().app.inject({ method: 'GET', url: '/health' });
    const completed = lines.filter((line) => line.msg === 'request completed');
    expect(completed.find((line) => line.route === '/videos' && line.method === 'GET')).toMatchObject({
      statusCode: 200,
      userId: alice.id,
      organizationId: alice.organizationId,
      ip: '127.0.0.1',
    });
    expect(completed.find((line) => line.method === 'POST' && line.route === '/videos')).toMatchObject({
      statusCode: 201,
      userId: alice.id,
      organizationId: alice.organizationId,
    });
    const anonymous = completed.find((line) => line.route === '/health');
    expect(anonymous).toMatchObject({ statusCode: 200, ip: '127.0.0.1' });
    expect(anonymous).not.toHaveProperty('userId');
    // Never the URL: query strings can carry tokens.
    expect(JSON.stringify(completed)).not.toContain(`organizationId=${alice.organizationId}`);
  });
});

const stub = await startOpenAiStub();
afterAll(() => stub.close());

describe('/metrics: calls to the AI provider', () => {
  beforeEach(() => stub.reset());
  const ctx = useTestApp({ env: openAiEnv(stub) });
  const count = async (outcome: string) =>
    sample(
      (await ctx().app.inject({ method: 'GET', url: '/metrics' })).body,
      `ai_provider_request_duration_seconds_count{operation="chat/completions",outcome="${outcome}"}`,
    ) ?? 0;

  it('times each request by operation and outcome', async () => {
    // The meeting's knowledge extraction calls the provider too, in the background and with
    // retries: each phase must count its question, and no more calls may be counted than the stub
    // was sent. Counted from before the meeting exists, when no call can be in flight: a call the
    // stub received before a phase may be counted during it.
    const chatCalls = () =>
      [...stub.requests, ...stub.jsonRequests].filter((request) => request.path.endsWith('/chat/completions'))
        .length;
    const countedCalls = async () => (await count('ok')) + (await count('http_5xx'));
    const [countedAtStart, callsAtStart] = [await countedCalls(), chatCalls()];
    const alice = await signUpUser(ctx().app);
    const created = await postMeeting(ctx().app, alice);
    expect(created.statusCode).toBe(201);
    const ask = () =>
      ctx().app.inject({
        method: 'POST',
        url: '/ai/qa',
        headers: alice.headers,
        payload: { question: 'When is the launch date?' },
      });
    const counts = async (outcome: string, phase: () => Promise<void>) => {
      const before = await count(outcome);
      await phase();
      expect((await count(outcome)) - before).toBeGreaterThanOrEqual(1);
      expect((await countedCalls()) - countedAtStart).toBeLessThanOrEqual(chatCalls() - callsAtStart);
    };
    await counts('ok', async () => {
      stub.reply('The launch date stays on the fifteenth of May [1].');
      expect((await ask()).statusCode).toBe(201);
    });
    await counts('http_5xx', async () => {
      stub.fail(500, { error: { message: 'boom' } });
      expect((await ask()).statusCode).toBe(502);
    });
  });
});
