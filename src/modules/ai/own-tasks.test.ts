import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { insertKnowledge } from '../../../test/helpers/knowledge.ts';
import { qaAsker, requester } from '../../../test/helpers/requests.ts';
import { memberships, speakers, videos } from '../../db/schema/index.ts';
import { insertVideo } from '../transcripts/test-support.ts';
import { asksForOwnTasks } from './own-tasks.ts';

type Answer = {
  answer: string;
  answered: boolean;
  citations: Array<{ source: number; videoId: string; quote: string }>;
};

/** An action item said at `start` in a meeting, owned by `owner`. */
const task = (start: number, owner: string, text: string, dueDate: string | null = null) => ({
  kind: 'action_item' as const,
  start,
  end: start + 5,
  speaker: owner,
  owner,
  text,
  dueDate,
});

describe('POST /ai/qa: "what are my action items?"', () => {
  const ctx = useTestApp();
  const request = requester(ctx);
  let alice: SignedUpUser;
  let bob: SignedUpUser;
  let otto: SignedUpUser;
  let syncId: string;
  let reviewId: string;

  const ask = qaAsker<Answer>(ctx);

  beforeAll(async () => {
    alice = await signUpUser(ctx().app, { name: 'Alice Martin' });
    bob = await signUpUser(ctx().app, { name: 'Bob Stone' });
    otto = await signUpUser(ctx().app, { name: 'Otto' });
    const { db } = ctx().database;
    // Bob joins Alice's organization, so that the two share its meetings.
    await db
      .insert(memberships)
      .values({ organizationId: alice.organizationId, userId: bob.id, role: 'member' });
    const sync = await insertVideo(ctx(), alice, {
      title: 'Weekly sync',
      recordedAt: new Date('2026-01-12T09:00:00Z'),
    });
    const review = await insertVideo(ctx(), alice, {
      title: 'Design review',
      recordedAt: new Date('2026-01-08T14:00:00Z'),
    });
    const gone = await insertVideo(ctx(), alice, { title: 'Deleted sync', isDeleted: true });
    syncId = sync.id;
    reviewId = review.id;
    await insertKnowledge(db, sync, {
      items: [
        task(10, 'Alice Martin', 'Actions. I send the notes by January 20.', '2026-01-20'),
        task(20, 'Bob Stone', 'Bob books the room by January 14.', '2026-01-14'),
        task(30, 'alice martin ', 'And I check the budget.'),
      ],
    });
    await insertKnowledge(db, review, {
      items: [task(5, 'Alice Martin', 'I draft the brief by January 15.', '2026-01-15')],
    });
    await insertKnowledge(db, gone, { items: [task(5, 'Alice Martin', 'I clean the old sync up.')] });
    // A speaker linked to Alice's account, under another name.
    await db.insert(speakers).values({
      organizationId: alice.organizationId,
      name: 'AM',
      normalizedName: 'am',
      userId: alice.id,
    });
    await insertKnowledge(db, sync, {
      items: [task(40, 'AM', 'I file the expenses by January 16.', '2026-01-16')],
    });
    // Otto's organization has an Alice Martin's task too: not Alice's to see.
    const ottos = await insertVideo(ctx(), otto, { title: "Otto's sync" });
    await insertKnowledge(db, ottos, { items: [task(5, 'Alice Martin', 'I review Otto’s plan.')] });
    expect(await db.$count(videos)).toBe(4);
  });

  it('reads the ways people ask for their own tasks, and not questions about tasks', () => {
    for (const question of [
      'What are my action items?',
      'What are my open action items?',
      'Any open tasks of mine?',
      'Which tasks are assigned to me?',
      'What do I need to do?',
      'What am I on the hook for?',
      'What did I commit to?',
    ])
      expect(asksForOwnTasks(question), question).toBe(true);
    for (const question of [
      'What are the action items from the review?',
      'Who owns the budget check?',
      'What did my team decide about the tasks for the launch?',
    ])
      expect(asksForOwnTasks(question), question).toBe(false);
  });

  it("lists the asker's tasks in the scope, soonest due first, each cited, under any name linked to them", async () => {
    const body = await ask(alice, { question: 'What are my action items?' });
    expect(body.answered).toBe(true);
    expect(body.answer).toBe(
      'Your action items (Alice Martin), soonest due first: ' +
        'by January 15: “I draft the brief by January 15.” (“Design review”, January 8) [1]; ' +
        'by January 16: “I file the expenses by January 16.” (“Weekly sync”, January 12) [2]; ' +
        'by January 20: “I send the notes by January 20.” (“Weekly sync”, January 12) [3]; ' +
        'no due date: “I check the budget.” (“Weekly sync”, January 12) [4].',
    );
    expect(body.citations.map((citation) => citation.videoId)).toEqual([reviewId, syncId, syncId, syncId]);
    expect(body.citations[2]?.quote).toBe('Actions. I send the notes by January 20.');
    // Scoped to one meeting, only its tasks.
    const scoped = await ask(alice, { question: 'What are my tasks?', videoIds: [reviewId] });
    expect(scoped.citations.map((citation) => citation.videoId)).toEqual([reviewId]);
  });

  it('says so when nothing names the asker, and answers each person with their own', async () => {
    expect(
      (await ask(bob, { question: 'What are my action items?', organizationId: alice.organizationId }))
        .answer,
    ).toBe(
      'Your action items (Bob Stone), soonest due first: by January 14: “Bob books the room by January 14.” (“Weekly sync”, January 12) [1].',
    );
    expect(await ask(otto, { question: 'What do I need to do?' })).toMatchObject({
      answer: 'No action item in these meetings names you (Otto) as its owner.',
      answered: true,
      citations: [],
    });
  });

  it('answers in chat as in QA', async () => {
    const response = await request(alice, 'POST', '/chat/conversations', { message: 'What do I owe?' });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json().messages[1].content).toMatch(
      /^Your action items \(Alice Martin\), soonest due first: /,
    );
  });
});
