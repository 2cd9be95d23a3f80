import { readFileSync } from 'node:fs';
import { eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { insertKnowledge, waitForKnowledge } from '../../../test/helpers/knowledge.ts';
import { qaAsker, requester } from '../../../test/helpers/requests.ts';
import { knowledgeItems, videoKnowledge } from '../../db/schema/index.ts';

const TRANSCRIPT = readFileSync(new URL('../search/fixtures/roadmap-review.vtt', import.meta.url), 'utf8');

type Answer = {
  answer: string;
  answered: boolean;
  confidence: number;
  citations: Array<{
    source: number;
    videoId: string;
    start: number;
    end: number;
    speaker: string | null;
    quote: string;
  }>;
};

/** The moment a knowledge item or summary sentence stands on. */
const said = (start: number, speaker: string, text: string) => ({ start, end: start + 5, speaker, text });

describe('POST /ai/qa about one meeting as a whole', () => {
  const ctx = useTestApp();
  const request = requester(ctx);
  let alice: SignedUpUser;
  let otto: SignedUpUser;
  const ids: Record<'review' | 'syncJan5' | 'syncJan12' | 'deletedReview', string> = {
    review: '',
    syncJan5: '',
    syncJan12: '',
    deletedReview: '',
  };

  const ask = qaAsker<Answer>(ctx);
  /** A meeting whose extracted knowledge is exactly `knowledge` (the extraction job's own result replaced). */
  const meeting = async (
    user: SignedUpUser,
    title: string,
    recordedAt: string,
    knowledge: Parameters<typeof insertKnowledge>[2],
  ) => {
    const response = await request(user, 'POST', '/videos', {
      organizationId: user.organizationId,
      title,
      recordedAt,
      duration: '1:05',
      transcript: TRANSCRIPT,
    });
    expect(response.statusCode, response.body).toBe(201);
    const id = response.json().id as string;
    const { db } = ctx().database;
    await waitForKnowledge(db, id);
    await db.delete(knowledgeItems).where(eq(knowledgeItems.videoId, id));
    await insertKnowledge(db, { id, organizationId: user.organizationId }, knowledge);
    return id;
  };

  beforeAll(async () => {
    alice = await signUpUser(ctx().app, { name: 'Alice' });
    otto = await signUpUser(ctx().app, { name: 'Otto' });
    ids.review = await meeting(alice, 'Design review: onboarding', '2026-01-08T14:00:00Z', {
      summary: [
        said(10, 'Priya', 'Fourteen of the twenty admins closed the checklist panel.'),
        said(40, 'Maya', 'Decision: the guided setup is approved as a candidate.'),
        said(50, 'Maya', 'I talk to support by January 20.'),
      ],
      items: [
        { kind: 'question', ...said(5, 'Jonas', 'Were these all small teams?'), answered: true },
        { kind: 'decision', ...said(40, 'Maya', 'Decision: the guided setup is approved as a candidate.') },
        { kind: 'decision', ...said(45, 'Maya', 'Then we drop the tooltip.') },
        {
          kind: 'action_item',
          ...said(50, 'Maya', 'I talk to support by January 20.'),
          owner: 'Maya',
          dueDate: '2026-01-20',
        },
        { kind: 'action_item', ...said(55, 'Priya', 'Actions. I write up the findings.'), owner: 'Priya' },
        { kind: 'question', ...said(58, 'Jonas', 'Do we show it to existing workspaces?'), answered: false },
      ],
    });
    ids.syncJan5 = await meeting(alice, 'Weekly sync — January 5', '2026-01-05T09:00:00Z', {
      summary: [said(3, 'Maya', 'Search v2 ships on January 30.')],
      items: [{ kind: 'decision', ...said(3, 'Maya', 'Search v2 ships on January 30.') }],
    });
    ids.syncJan12 = await meeting(alice, 'Weekly sync — January 12', '2026-01-12T09:00:00Z', {
      summary: [said(7, 'Maya', 'Search v2 moves to February 13.')],
      items: Array.from({ length: 7 }, (_, at) => ({
        kind: 'action_item' as const,
        ...said(20 + at, 'Daniel', `Task number ${at + 1} is mine.`),
        owner: 'Daniel',
      })),
    });
    ids.deletedReview = await meeting(alice, 'Design review: pricing (deleted)', '2026-01-20T09:00:00Z', {
      summary: [said(3, 'Maya', 'Prices go up.')],
    });
    expect((await request(alice, 'DELETE', `/videos/${ids.deletedReview}`)).statusCode).toBe(200);
  });

  it('answers "what happened at <meeting>" from its knowledge, in the order said, each part cited', async () => {
    const body = await ask(alice, { question: 'What happened at the design review?' });
    expect(body).toMatchObject({ answered: true, confidence: 1 });
    expect(body.answer).toBe(
      '“Design review: onboarding” (January 8): Priya said: Fourteen of the twenty admins closed the checklist panel. [1] ' +
        'Maya said: Decision: the guided setup is approved as a candidate. [2] Then they dropped the tooltip. [3] ' +
        'Action items: Maya, by January 20: “I talk to support by January 20.” [4]; Priya: “I write up the findings.” [5]. ' +
        'Left open: “Do we show it to existing workspaces?” [6].',
    );
    expect(body.citations.map((citation) => [citation.source, citation.start, citation.speaker])).toEqual([
      [1, 10, 'Priya'],
      [2, 40, 'Maya'],
      [3, 45, 'Maya'],
      [4, 50, 'Maya'],
      [5, 55, 'Priya'],
      [6, 58, 'Jonas'],
    ]);
    for (const citation of body.citations) expect(citation.videoId).toBe(ids.review);
    // Quotes are the knowledge's words, verbatim (the answer drops the "Actions." label, the quote keeps it).
    expect(body.citations[4]?.quote).toBe('Actions. I write up the findings.');
  });

  it('answers the decisions or the action items alone when those are asked for', async () => {
    const decisions = await ask(alice, { question: 'What was decided in the design review?' });
    expect(decisions.answer).toBe(
      'In “Design review: onboarding” (January 8): Maya said: Decision: the guided setup is approved as a candidate. [1] Then they dropped the tooltip. [2]',
    );
    expect(decisions.citations.map((citation) => citation.start)).toEqual([40, 45]);

    const tasks = await ask(alice, { question: 'What are the action items from the January 12 sync?' });
    expect(tasks.answer).toMatch(
      /^Action items from “Weekly sync — January 12” \(January 12\): Daniel: “Task number 1/,
    );
    expect(tasks.answer).toMatch(/“Task number 5 is mine\.” \[5\]; and 2 more\.$/);
    expect(tasks.citations).toHaveLength(5);

    const none = await ask(alice, { question: 'What are the action items from the January 5 sync?' });
    expect(none).toMatchObject({
      answered: true,
      answer: 'No action item was recorded in “Weekly sync — January 5” (January 5).',
      citations: [],
    });
  });

  it('picks the latest of several meetings so named, or the first when asked, and says which', async () => {
    const latest = await ask(alice, { question: 'What happened at the weekly sync?' });
    expect(latest.answer).toMatch(
      /^“Weekly sync — January 12” \(January 12; the latest of 2 meetings so named\): Maya said: Search v2 moves to February 13\. \[1\]/,
    );
    const last = await ask(alice, { question: 'Summarize the last weekly sync' });
    expect(last.answer).toMatch(/^“Weekly sync — January 12” \(January 12\): /);
    const first = await ask(alice, { question: 'What decisions were made at the first weekly sync?' });
    expect(first.answer).toBe(
      'In “Weekly sync — January 5” (January 5): Maya said: Search v2 ships on January 30. [1]',
    );
    expect(first.citations[0]?.videoId).toBe(ids.syncJan5);
  });

  it('reads a day in the question as the day the meeting was held, or the day its title says', async () => {
    const held = await ask(alice, { question: 'What happened at the design review on January 8?' });
    expect(held.answer).toMatch(/^“Design review: onboarding” \(January 8\): /);
    const titled = await ask(alice, { question: 'What was decided at the sync of January 5?' });
    expect(titled.answer).toMatch(/^In “Weekly sync — January 5” \(January 5\): /);
    // No design review was held on January 9, and none says so: retrieval answers.
    const otherDay = await ask(alice, { question: 'What happened at the design review on January 9?' });
    expect(otherDay.answer).not.toMatch(/^“/);
  });

  it('answers who attended from who speaks in its transcript, most talk first, knowledge ready or not', async () => {
    const body = await ask(alice, { question: 'Who attended the design review?' });
    expect(body.answer).toBe(
      'In “Design review: onboarding” (January 8), 3 people spoke, most talk first: ' +
        'Alice (3 turns, 45 % of the talk) [1]; Bob (2 turns, 35 % of the talk) [2]; Carol (1 turn, 20 % of the talk) [3].',
    );
    // Each cited at the first thing they said.
    expect(body.citations.map((citation) => [citation.videoId, citation.start, citation.speaker])).toEqual([
      [ids.review, 0, 'Alice'],
      [ids.review, 8, 'Bob'],
      [ids.review, 31, 'Carol'],
    ]);
    expect(body.citations[2]?.quote).toBe(
      'The battery life of the remote control prototype is still too short for the demo.',
    );
    const { db } = ctx().database;
    await db.update(videoKnowledge).set({ status: 'failed' }).where(eq(videoKnowledge.videoId, ids.syncJan5));
    try {
      const first = await ask(alice, { question: 'Who was in the first weekly sync?' });
      expect(first.answer).toMatch(
        /^In “Weekly sync — January 5” \(January 5\), 3 people spoke, most talk first: Alice /,
      );
    } finally {
      await db
        .update(videoKnowledge)
        .set({ status: 'ready' })
        .where(eq(videoKnowledge.videoId, ids.syncJan5));
    }
    // Otto's organization has no design review.
    const ottos = await ask(otto, { question: 'Who attended the design review?' });
    expect(ottos.answer).not.toMatch(/Design review/);
  });

  it('reads "this meeting" as the one meeting asked about, and not across many', async () => {
    const scoped = await ask(alice, { question: 'Summarize this meeting.', videoIds: [ids.syncJan5] });
    expect(scoped.answer).toMatch(/^“Weekly sync — January 5” \(January 5\): /);
    // Over the whole organization "this meeting" names none: retrieval answers, from what was said.
    const wide = await ask(alice, { question: 'Summarize this meeting.' });
    expect(wide.answer).not.toMatch(/^“/);
  });

  it('leaves a meeting whose knowledge is not ready, and questions about what was said, to retrieval', async () => {
    const { db } = ctx().database;
    await db.update(videoKnowledge).set({ status: 'failed' }).where(eq(videoKnowledge.videoId, ids.syncJan5));
    try {
      const body = await ask(alice, { question: 'Summarize the January 5 sync' });
      expect(body.answer).not.toMatch(/^“/);
    } finally {
      await db
        .update(videoKnowledge)
        .set({ status: 'ready' })
        .where(eq(videoKnowledge.videoId, ids.syncJan5));
    }
    const topic = await ask(alice, { question: 'What was said about the battery in the design review?' });
    expect(topic.answer).not.toMatch(/^“/);
  });

  it("never answers from another organization's or a deleted meeting", async () => {
    // Otto's organization has no design review: his question is answered (or not) from his own library.
    const body = await ask(otto, { question: 'What happened at the design review?' });
    for (const citation of body.citations) expect(Object.values(ids)).not.toContain(citation.videoId);
    expect(body.answer).not.toMatch(/Design review/);
    // Alice's deleted "Design review: pricing" is not a meeting so named.
    const pricing = await ask(alice, { question: 'What happened at the pricing design review?' });
    expect(pricing.answer).not.toMatch(/Prices go up|pricing \(deleted\)/);
    const { rows } = await ctx().database.db.execute<{ n: number }>(
      sql`select count(*)::int as n from ai_questions where question = 'What happened at the design review?'`,
    );
    expect(rows[0]?.n).toBe(2);
  });
});
