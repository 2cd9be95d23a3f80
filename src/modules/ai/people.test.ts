import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { insertKnowledge, meetingAdder } from '../../../test/helpers/knowledge.ts';
import { qaAsker } from '../../../test/helpers/requests.ts';
import { knowledgeItems } from '../../db/schema/index.ts';
import { notFoundAnswer } from './engine.ts';
import { taskOwnerAsked } from './people.ts';

type Answer = {
  answer: string;
  answered: boolean;
  citations: Array<{ source: number; videoId: string; start: number; speaker: string | null; quote: string }>;
};

describe('taskOwnerAsked', () => {
  it('reads the person whose tasks a question asks for, and no matter written in lower case', () => {
    expect(taskOwnerAsked('What did Daniel commit to?')).toBe('Daniel');
    expect(taskOwnerAsked('What does Tom own?')).toBe('Tom');
    expect(taskOwnerAsked('What are the open action items for Tom Becker?')).toBe('Tom Becker');
    expect(taskOwnerAsked('Next steps for Priya?')).toBe('Priya');
    expect(taskOwnerAsked('What are the next steps for the job queue?')).toBeNull();
    expect(taskOwnerAsked('What did we decide about Tom?')).toBeNull();
  });
});

describe('POST /ai/qa: "who is <name>?", "what did <name> say?"', () => {
  const ctx = useTestApp();
  let alice: SignedUpUser;
  let otto: SignedUpUser;
  let kickoffId: string;
  let reviewId: string;

  const askAs = qaAsker<Answer>(ctx);
  const ask = (user: SignedUpUser, question: string) => askAs(user, { question });
  const addMeeting = meetingAdder(ctx);
  // Without the knowledge extraction found: each test stores what it reads.
  const meeting = async (...args: Parameters<typeof addMeeting>) => {
    const id = await addMeeting(...args);
    await ctx().database.db.delete(knowledgeItems).where(eq(knowledgeItems.videoId, id));
    return id;
  };

  beforeAll(async () => {
    alice = await signUpUser(ctx().app, { name: 'Alice Martin' });
    otto = await signUpUser(ctx().app, { name: 'Otto' });
    kickoffId = await meeting(alice, 'Kickoff', '2026-01-05T09:00:00Z', [
      ['Alice Martin', 'Welcome to the kickoff of the billing project.'],
      ['Bob Stone', 'Thanks. I lead the payments team and I will own the invoices.'],
      ['Bob Stone', 'I send the invoice mockups by Friday.'],
    ]);
    reviewId = await meeting(alice, 'Design review', '2026-01-12T09:00:00Z', [
      ['Alice Wong', 'The mockups look good to me.'],
      ['Alice Martin', 'Agreed, let us ship them.'],
    ]);
    await insertKnowledge(
      ctx().database.db,
      { id: kickoffId, organizationId: alice.organizationId },
      {
        items: [
          {
            kind: 'action_item',
            start: 20,
            end: 29,
            speaker: 'Bob Stone',
            owner: 'Bob Stone',
            dueDate: '2026-01-09',
            text: 'I send the invoice mockups by Friday.',
          },
        ],
      },
    );
    await insertKnowledge(
      ctx().database.db,
      { id: reviewId, organizationId: alice.organizationId },
      {
        items: [
          {
            kind: 'decision',
            start: 10,
            end: 19,
            speaker: 'Alice Martin',
            text: 'Agreed, let us ship them.',
          },
          { kind: 'decision', start: 0, end: 9, speaker: 'Alice Wong', text: 'The mockups look good to me.' },
        ],
      },
    );
    await meeting(otto, "Otto's sync", '2026-01-20T09:00:00Z', [
      ['Bob Stone', 'Otto’s Bob, on another team.'],
    ]);
  });

  it('says where a speaker named by a first name no one else has speaks, and the tasks they own, each cited', async () => {
    const body = await ask(alice, 'Who is Bob?');
    expect(body).toMatchObject({ answered: true });
    // Bob's two segments in a row are one turn, as speaker analytics counts turns.
    expect(body.answer).toBe(
      'Bob Stone speaks in one meeting here: “Kickoff” (January 5; 1 turn) [1]. ' +
        'Action items they own, soonest due first: by January 9: “I send the invoice mockups by Friday.” [2].',
    );
    expect(body.citations.map((citation) => [citation.videoId, citation.start, citation.quote])).toEqual([
      [kickoffId, 10, 'Thanks. I lead the payments team and I will own the invoices.'],
      [kickoffId, 20, 'I send the invoice mockups by Friday.'],
    ]);
  });

  it('reads a whole name, lists meetings latest first, and leaves a first name two speakers share to retrieval', async () => {
    const body = await ask(alice, "Who's Alice Martin?");
    expect(body.answer).toBe(
      'Alice Martin speaks in 2 meetings here, latest first: “Design review” (January 12; 1 turn) [1]; “Kickoff” (January 5; 1 turn) [2].',
    );
    expect(body.citations.map((citation) => citation.videoId)).toEqual([reviewId, kickoffId]);
    expect((await ask(alice, 'Who is Alice?')).answer).not.toMatch(/speaks in/);
    expect((await ask(alice, 'Who is Zed?')).answer).not.toMatch(/speaks in/);
  });

  it('lists the action items a person named owns: "what did Bob commit to?"', async () => {
    const bob = await ask(alice, 'What did Bob commit to?');
    expect(bob.answer).toBe(
      "Bob Stone's action items, soonest due first: by January 9: “I send the invoice mockups by Friday.” (“Kickoff”, January 5) [1].",
    );
    expect(bob.citations.map((citation) => [citation.videoId, citation.start])).toEqual([[kickoffId, 20]]);
    expect((await ask(alice, "What are Bob's tasks?")).answer).toMatch(/^Bob Stone's action items/);
    expect((await ask(alice, 'What is Alice Martin working on?')).answer).toBe(
      'No action item in these meetings names Alice Martin as its owner.',
    );
    expect((await ask(alice, 'What did Zed commit to?')).answer).not.toMatch(/action item/);
  });

  it('lists the decisions a person named stated: "what did Alice Martin decide?"', async () => {
    const body = await ask(alice, 'What did Alice Martin decide?');
    expect(body.answer).toBe(
      'Decisions Alice Martin stated, latest meeting first: On January 12, in “Design review”: Alice Martin: “Agreed, let us ship them.” [1].',
    );
    expect(body.citations.map((citation) => [citation.videoId, citation.start])).toEqual([[reviewId, 10]]);
    expect((await ask(alice, 'What decisions did Alice Martin make?')).answer).toBe(body.answer);
    expect((await ask(alice, 'What did Bob decide?')).answer).toBe(
      'No decision Bob Stone stated was recorded in these meetings.',
    );
    // A first name two speakers share, or no one's, is retrieval's.
    expect((await ask(alice, 'What did Alice decide?')).answer).not.toMatch(/^Decisions /);
    expect((await ask(alice, 'What did Zed decide?')).answer).not.toMatch(/^Decisions |^No decision/);
    // Otto's organization has a Bob too, and no decision of Alice's.
    expect((await ask(otto, 'What did Alice Martin decide?')).answer).not.toMatch(/Agreed, let us ship them/);
  });

  it('answers "what did Bob say?" with what Bob said, longest turns first chosen, in the order said and cited', async () => {
    const bob = await ask(alice, 'What did Bob say?');
    expect(bob).toMatchObject({ answered: true });
    expect(bob.answer).toBe(
      'On January 5, in “Kickoff”, Bob Stone said they lead the payments team and they would own the invoices. [1] ' +
        'They would send the invoice mockups by Friday. [2]',
    );
    expect(
      bob.citations.map((citation) => [citation.videoId, citation.start, citation.speaker, citation.quote]),
    ).toEqual([
      [kickoffId, 10, 'Bob Stone', 'Thanks. I lead the payments team and I will own the invoices.'],
      [kickoffId, 20, 'Bob Stone', 'I send the invoice mockups by Friday.'],
    ]);
    // Latest meeting first; a name no speaker has, or two share, or a subject asked about: retrieval's.
    expect((await ask(alice, 'What did Alice Martin think?')).answer).toMatch(
      /^On January 12, in “Design review”, Alice Martin said .* On January 5, in “Kickoff”, Alice Martin said: Welcome to the kickoff/,
    );
    expect((await ask(alice, 'What did Zed say?')).answer).toBe(notFoundAnswer(['Zed']));
    expect((await ask(alice, 'What did Alice say?')).answer).not.toMatch(
      /^On January 12, in “Design review”/,
    );
    expect((await ask(alice, 'What did Bob say about the invoices?')).answer).not.toMatch(
      /^On January 5, in/,
    );
  });

  it("keeps to the asker's organization", async () => {
    const body = await ask(otto, 'Who is Bob Stone?');
    expect(body.answer).toBe("Bob Stone speaks in one meeting here: “Otto's sync” (January 20; 1 turn) [1].");
    // Alice's Bob owns a task; Otto's Bob does not.
    expect((await ask(otto, 'What did Bob commit to?')).answer).toBe(
      'No action item in these meetings names Bob Stone as its owner.',
    );
    expect((await ask(otto, 'What did Bob say?')).answer).toBe(
      "On January 20, in “Otto's sync”, Bob Stone said: Otto’s Bob, on another team. [1]",
    );
  });
});
