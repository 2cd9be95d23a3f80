import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { insertKnowledge } from '../../../test/helpers/knowledge.ts';
import { qaAsker } from '../../../test/helpers/requests.ts';
import { insertVideo } from '../transcripts/test-support.ts';

type Answer = {
  answer: string;
  answered: boolean;
  citations: Array<{ source: number; videoId: string; quote: string; speaker: string | null; start: number }>;
};

/** A question said at `start`, answered (or not) by `reply`. */
const question = (
  start: number,
  speaker: string,
  text: string,
  reply?: { speaker: string; text: string },
) => ({
  kind: 'question' as const,
  start,
  end: start + 5,
  speaker,
  text,
  answered: reply !== undefined,
  answer: reply ? { ...reply, start: start + 10, end: start + 20 } : null,
});

describe('POST /ai/qa: a question asked and answered in a meeting before', () => {
  const ctx = useTestApp();
  let alice: SignedUpUser;
  let otto: SignedUpUser;
  let syncId: string;
  let planningId: string;

  const ask = qaAsker<Answer>(ctx);

  beforeAll(async () => {
    alice = await signUpUser(ctx().app, { name: 'Alice Martin' });
    otto = await signUpUser(ctx().app, { name: 'Otto' });
    const { db } = ctx().database;
    const sync = await insertVideo(ctx(), alice, {
      title: 'Weekly sync',
      recordedAt: new Date('2026-01-05T09:00:00Z'),
    });
    const planning = await insertVideo(ctx(), alice, {
      title: 'Planning',
      recordedAt: new Date('2026-01-12T09:00:00Z'),
    });
    [syncId, planningId] = [sync.id, planning.id];
    await insertKnowledge(db, sync, {
      items: [
        question(30, 'Maya Chen', 'How long does a reindex take for a big customer?', {
          speaker: 'Daniel Okafor',
          text: 'For Northwind, roughly four hours.',
        }),
        question(60, 'Tom Becker', 'Do we need a maintenance window for the reindex?'),
        question(
          90,
          'Lena Fischer',
          'Should we use a kinetic battery in the remote control for the spring launch event?',
          { speaker: 'Maya Chen', text: 'Yes, for the premium model only.' },
        ),
        question(150, 'Lena Fischer', 'How are things going with the rollout at Northwind?', {
          speaker: 'Sam Whitfield',
          text: 'Mostly well.',
        }),
        question(120, 'Lena Fischer', 'What is your opinion on the kinetic battery?', {
          speaker: 'Maya Chen',
          text: 'I like it, but it is dear.',
        }),
      ],
    });
    await insertKnowledge(db, planning, {
      items: [
        question(10, 'Daniel Okafor', 'So how long does the reindex take now?', {
          speaker: 'Tom Becker',
          text: 'Under three hours since the batching change.',
        }),
        question(40, 'Lena Fischer', 'And how long does the reindex take for small workspaces?', {
          speaker: 'Tom Becker',
          text: 'Minutes.',
        }),
      ],
    });
    const ottos = await insertVideo(ctx(), otto, { title: "Otto's sync" });
    await insertKnowledge(db, ottos, {
      items: [
        question(10, 'Otto', 'How long does a reindex take?', { speaker: 'Olga', text: 'Ten minutes.' }),
      ],
    });
  });

  it('quotes each exchange, latest meeting first, the question and its answer each cited', async () => {
    const body = await ask(alice, { question: 'How long does a reindex take?' });
    expect(body).toMatchObject({ answered: true });
    expect(body.answer).toBe(
      'This was asked 3 times in 2 meetings, latest first. ' +
        'On January 12, in “Planning”, Daniel Okafor asked “So how long does the reindex take now?” [1] ' +
        'Tom Becker answered: “Under three hours since the batching change.” [2] ' +
        'On January 12, in “Planning”, Lena Fischer asked “And how long does the reindex take for small workspaces?” [3] ' +
        'Tom Becker answered: “Minutes.” [4] ' +
        'On January 5, in “Weekly sync”, Maya Chen asked “How long does a reindex take for a big customer?” [5] ' +
        'Daniel Okafor answered: “For Northwind, roughly four hours.” [6]',
    );
    expect(body.citations.map((citation) => [citation.videoId, citation.start, citation.speaker])).toEqual([
      [planningId, 10, 'Daniel Okafor'],
      [planningId, 20, 'Tom Becker'],
      [planningId, 40, 'Lena Fischer'],
      [planningId, 50, 'Tom Becker'],
      [syncId, 30, 'Maya Chen'],
      [syncId, 40, 'Daniel Okafor'],
    ]);
    // Twice in the one meeting asked about.
    const planned = await ask(alice, { question: 'How long does a reindex take?', videoIds: [planningId] });
    expect(planned.answer).toMatch(/^This was asked 2 times in a meeting\. On January 12, in “Planning”, /);
    // Within the scope asked, only its meeting's exchange.
    const scoped = await ask(alice, { question: 'How long does a reindex take?', videoIds: [syncId] });
    expect(scoped.answer).toMatch(/^This was asked in a meeting\. On January 5, in “Weekly sync”, /);
    // Each organization its own.
    expect((await ask(otto, { question: 'How long does a reindex take?' })).answer).toMatch(
      /Otto asked “How long does a reindex take\?” \[1\] Olga answered: “Ten minutes\.” \[2\]$/,
    );
  });

  it('leaves to retrieval a question never answered, asked more widely, open, or about what was said', async () => {
    // Stored, but no reply answered it.
    const open = await ask(alice, { question: 'Do we need a maintenance window for the reindex?' });
    expect(open.answer).not.toMatch(/^This was asked/);
    // The stored question says much more than this one (3 of its 8 words).
    const battery = await ask(alice, { question: 'Which kinetic battery do we use?' });
    expect(battery.answer).not.toMatch(/^This was asked/);
    // A word the stored questions do not say.
    const customer = await ask(alice, { question: 'How long does a reindex take for Acme?' });
    expect(customer.answer).not.toMatch(/^This was asked/);
    // What the team said is the talk, not an exchange.
    const talk = await ask(alice, { question: 'What is the opinion on the kinetic battery?' });
    expect(talk.answer).not.toMatch(/^This was asked/);
    // An open question is answered by all that was said about it, not by its first reply.
    const going = await ask(alice, { question: 'How are things going with Northwind?' });
    expect(going.answer).not.toMatch(/^This was asked/);
  });
});
