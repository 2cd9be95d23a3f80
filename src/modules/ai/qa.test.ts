import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { isoDate } from '../../../test/helpers/assertions.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { insertKnowledge, waitForKnowledge } from '../../../test/helpers/knowledge.ts';
import { requester } from '../../../test/helpers/requests.ts';
import { NO_RECORDINGS_ANSWER } from './engine.ts';

const ROADMAP = readFileSync(new URL('../search/fixtures/roadmap-review.vtt', import.meta.url), 'utf8');

describe('POST /ai/qa and GET /ai/gaps', () => {
  const ctx = useTestApp({ env: { AI_MONTHLY_CREDITS: '12', AI_METER_LOCAL: 'true' } });
  let alice: SignedUpUser;
  let otto: SignedUpUser;
  let roadmapId: string;

  const request = requester(ctx);
  const postVideo = async (user: SignedUpUser, payload: Record<string, unknown>) => {
    const response = await request(user, 'POST', '/videos', {
      organizationId: user.organizationId,
      duration: '1:05',
      ...payload,
    });
    expect(response.statusCode, response.body).toBe(201);
    return response.json().id as string;
  };
  const ask = (user: SignedUpUser, payload: Record<string, unknown>) =>
    request(user, 'POST', '/ai/qa', payload);

  beforeAll(async () => {
    alice = await signUpUser(ctx().app, { name: 'Alice' });
    otto = await signUpUser(ctx().app, { name: 'Otto' });
    roadmapId = await postVideo(alice, { title: 'Quarterly roadmap review', transcript: ROADMAP });
    // The same meeting in another organization, and a deleted copy in Alice's.
    await postVideo(otto, { title: "Otto's copy", transcript: ROADMAP });
    const deleted = await postVideo(alice, { title: 'Deleted copy', transcript: ROADMAP });
    // Extraction charges its credits in the background: settled before anything counts them.
    for (const id of [roadmapId, deleted]) await waitForKnowledge(ctx().database.db, id);
    expect((await request(alice, 'DELETE', `/videos/${deleted}`)).statusCode).toBe(200);
  });

  it("answers from the caller's recordings, citing the second each claim was said, verbatim", async () => {
    const response = await ask(alice, { question: 'When is the launch date?' });
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json();
    expect(body).toMatchObject({
      id: expect.any(String),
      question: 'When is the launch date?',
      answered: true,
      engine: 'local',
      organizationId: alice.organizationId,
      createdAt: isoDate,
    });
    expect(body.answer).toMatch(/fifteenth of May/);
    expect(body.citations.length).toBeGreaterThan(0);
    for (const citation of body.citations) {
      expect(citation.videoId).toBe(roadmapId);
      expect(body.answer).toContain(`[${citation.source}]`);
      // The quote is in the transcript, and its times fall within the segment that holds it.
      const { rows } = await ctx().database.db.execute<{ n: number }>(sql`
        select count(*)::int as n from transcript_segments
        where video_id = ${citation.videoId} and position(${citation.quote} in text) > 0
          and start_seconds <= ${citation.start} and end_seconds >= ${citation.end}`);
      expect(rows[0]?.n, citation.quote).toBe(1);
    }
    expect(body.citations[0]).toMatchObject({
      speaker: 'Alice',
      start: expect.any(Number),
      end: expect.any(Number),
    });
  });

  it('says it does not know when nothing answers, and the question becomes a knowledge gap', async () => {
    const first = await ask(alice, { question: 'What is the oxygen supply plan for the Mars colony?' });
    expect(first.statusCode).toBe(201);
    // Nothing says any of its words: the "I don't know" says which.
    expect(first.json()).toMatchObject({
      answered: false,
      answer:
        "I don't know: no recording you can access mentions “oxygen”, “supply”, “plan”, “Mars”, or “colony”.",
      citations: [],
    });
    await ask(otto, { question: 'What is the oxygen supply plan for the Mars colony?' });
    const again = await ask(alice, { question: 'Mars colony: oxygen supply plan?' });
    expect(again.json().answered).toBe(false);

    const gaps = await request(alice, 'GET', '/ai/gaps?type=unanswered_question&minSeverity=low');
    expect(gaps.statusCode).toBe(200);
    expect(gaps.json().data).toStrictEqual([
      {
        id: expect.any(String),
        type: 'unanswered_question',
        title: 'Mars colony: oxygen supply plan?',
        description: 'Asked 2 times by 1 person; nothing in the library answers it.',
        severity: 'medium',
        occurrences: 2,
        evidence: [
          expect.objectContaining({ text: 'Mars colony: oxygen supply plan?', videoId: null, at: isoDate }),
          expect.objectContaining({
            text: 'What is the oxygen supply plan for the Mars colony?',
            videoId: null,
          }),
        ],
        firstSeenAt: isoDate,
        lastSeenAt: isoDate,
      },
    ]);
    // Otto's question is his organization's gap, not Alice's.
    expect(
      (await request(otto, 'GET', '/ai/gaps?type=unanswered_question&minSeverity=low')).json().data,
    ).toHaveLength(1);
  });

  it('says first which words of the question no recording mentions, before what is said of the rest', async () => {
    const response = await ask(alice, { question: 'What is the budget for kangaroos?' });
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json();
    expect(body.answered).toBe(true);
    expect(body.answer).toMatch(
      /^No recording you can access mentions “kangaroos”\. Bob said: Marketing wants a draft .*budget was approved/,
    );
    const said = await ask(alice, { question: 'What is the budget for the announcement?' });
    expect(said.json().answer).toMatch(/^Bob said: Marketing wants a draft .*budget was approved/);
  });

  it('says so when there is nothing to answer from, rather than "I don\'t know"', async () => {
    const newcomer = await signUpUser(ctx().app, { name: 'Nina Newcomer' });
    const response = await ask(newcomer, { question: 'When is the launch date?' });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json()).toMatchObject({ answered: false, answer: NO_RECORDINGS_ANSWER, citations: [] });
  });

  it("never cites another organization's or a deleted video", async () => {
    const body = (await ask(otto, { question: 'Who owns the battery investigation?' })).json();
    expect(body.answered).toBe(true);
    expect(new Set(body.citations.map((c: { videoTitle: string }) => c.videoTitle))).toEqual(
      new Set(["Otto's copy"]),
    );
    const mine = (await ask(alice, { question: 'Who owns the battery investigation?' })).json();
    expect(mine.citations.every((c: { videoId: string }) => c.videoId === roadmapId)).toBe(true);
  });

  it('refuses invalid questions and scopes with 400, and anonymous callers with 401', async () => {
    const short = await ask(alice, { question: 'hm' });
    expect(short.statusCode).toBe(400);
    expect(short.json().details.map((d: { path: string }) => d.path)).toEqual(['body.question']);
    const foreign = await ask(alice, {
      question: 'When is the launch date?',
      organizationId: otto.organizationId,
    });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json()).toStrictEqual({
      success: false,
      error: 'You are not a member of this organization',
      code: 'NOT_A_MEMBER',
    });
    // Another organization's channel, series or collection narrows nothing: it is refused.
    const ottoChannel = await request(otto, 'POST', '/channels', {
      organizationId: otto.organizationId,
      name: 'Otto',
    });
    const narrowed = await ask(alice, {
      question: 'When is the launch date?',
      channelId: ottoChannel.json().id,
    });
    expect(narrowed.statusCode).toBe(400);
    expect(narrowed.json().details).toStrictEqual([
      { path: 'body.channelId', message: 'is not a channel of the organization' },
    ]);
    const ottoVideo = (await request(otto, 'GET', `/videos?organizationId=${otto.organizationId}`)).json()
      .data[0].id;
    const notMine = await ask(alice, { question: 'When is the launch date?', videoIds: [ottoVideo] });
    expect(notMine.statusCode).toBe(400);
    expect(notMine.json().details[0].path).toBe('body.videoIds');
    expect((await request(null, 'POST', '/ai/qa', { question: 'When is the launch date?' })).statusCode).toBe(
      401,
    );
    expect((await request(null, 'GET', '/ai/gaps')).statusCode).toBe(401);
  });

  it('charges one credit per answered request and refuses with 429 once the month is spent', async () => {
    const budget = async () => (await request(alice, 'GET', '/ai/budget')).json();
    const before = await budget();
    // Invalid requests above cost nothing: only Alice's successful questions (6) and the extraction
    // of her two meetings (2 × 2) were charged.
    expect(before.used).toBe(10);
    for (let left = before.remaining; left > 0; left--) {
      expect((await ask(alice, { question: 'When is the launch date?' })).statusCode).toBe(201);
    }
    const refused = await ask(alice, { question: 'When is the launch date?' });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ success: false, code: 'AI_BUDGET_EXCEEDED' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await budget()).used).toBe(12);
  });
  it('suggests follow-up questions the cited meetings answered, none when nothing answered', async () => {
    const db = ctx().database.db;
    const carol = await signUpUser(ctx().app, { name: 'Carol' });
    const meetingId = await postVideo(carol, { title: 'Roadmap review', transcript: ROADMAP });
    await waitForKnowledge(db, meetingId);
    await insertKnowledge(
      db,
      { id: meetingId, organizationId: carol.organizationId },
      {
        items: [
          {
            kind: 'question',
            text: 'When is the launch date again?',
            subject: 'date launch',
            answered: true,
          },
          {
            kind: 'question',
            text: 'Carol, who owns the battery investigation?',
            subject: 'batteri investig own',
            answered: true,
            start: 31,
          },
          {
            kind: 'question',
            text: 'Open question: is the launch party booked?',
            subject: 'launch parti book',
            answered: true,
            start: 900,
          },
          {
            kind: 'question',
            text: 'How long would that take to drain?',
            subject: 'drain take long',
            answered: true,
            start: 30,
          },
          {
            kind: 'question',
            text: 'And the launch slides, are they shared?',
            subject: 'launch slide share',
            answered: true,
            start: 950,
          },
          {
            kind: 'question',
            text: 'What about the holiday rota?',
            subject: 'holiday rota',
            answered: true,
            start: 900,
          },
          {
            kind: 'question',
            text: 'Did marketing get the budget?',
            subject: 'budget get market',
            answered: false,
          },
        ],
      },
    );
    const body = (await ask(carol, { question: 'When is the launch date?' })).json();
    expect(body.citations[0]).toMatchObject({ videoId: meetingId, start: 19.5 });
    // Sharing a word first, however far; then raised near a cited moment, asked as the reader would.
    // The same question again is no follow-up; an unanswered one leads nowhere; nor does one raised
    // far from what the answer cites that shares none of its words (the holiday rota), nor one that
    // points at what it does not name ("How long would that take to drain?").
    expect(body.followUpQuestions).toStrictEqual([
      'Is the launch party booked?',
      'The launch slides, are they shared?',
      'Who owns the battery investigation?',
    ]);
    // Another organization's meetings suggest nothing here.
    expect(
      (await ask(otto, { question: 'When is the launch date?' })).json().followUpQuestions,
    ).not.toContain('Who owns the battery investigation?');
    const unanswered = (await ask(carol, { question: 'How many penguins live on the moon?' })).json();
    expect(unanswered.followUpQuestions).toStrictEqual([]);
  });
});
