import { describe, expect, it } from 'vitest';
import type { TranscriptTurn } from '../extraction.ts';
import { analyse } from './document.ts';
import { findItems } from './items.ts';

const meetingDate = new Date('2024-03-06T09:00:00Z');

/** Turns of a few seconds each, from `[speaker, text]` pairs. */
const transcript = (lines: Array<[string | null, string]>): TranscriptTurn[] =>
  lines.map(([speaker, text], index) => ({ index, start: index * 10, end: index * 10 + 8, speaker, text }));

const itemsOf = (lines: Array<[string | null, string]>) => findItems(analyse(transcript(lines)), meetingDate);

/** The one item a sentence makes, said between two people. */
const only = (text: string, speaker = 'Ana') => {
  const items = itemsOf([[speaker, text]]);
  expect(items.length, JSON.stringify(items)).toBeLessThanOrEqual(1);
  return items[0] ?? null;
};

describe('decisions', () => {
  it.each([
    'So we decided to move the launch to the spring.',
    'We have agreed that the case will be made of rubber.',
    'We decided not to hire a second designer this year.',
    "Okay, let's go with the blue logo for the packaging.",
    "So we're going with the cheaper battery supplier then.",
    'The decision is that support stays in the Lisbon office.',
    "Fine, we 'll use the old database for the pilot.",
    "We won't ship the tablet version before the summer.",
    'I think the final answer is the yellow casing with two buttons.',
    'So, decision: search v2 ships behind a feature flag on January 30.',
    'Decision, then: we move transcript processing to the job queue.',
    'For now the decision stands: the checklist stays, and Priya owns the redesign.',
    'Then we postpone full offline mode.',
    'The earlier decision to keep the checklist is on hold until the results are in.',
  ])('%s', (text) => {
    expect(only(text)).toMatchObject({ kind: 'decision', text, owner: null, dueDate: null, answered: null });
  });

  it.each([
    'Did we decide to use the rubber case for the remote?',
    'If we agreed on the price, the rest would be easy.',
    'We should decide which kind of remote control we want.',
    "We haven't decided anything about the colours yet.",
    'Maybe we agreed on that last time, I cannot remember.',
    'We will see how the numbers look in the spring.',
    "Um. But we 'll skip that.",
    'Otherwise we will keep missing this class of problem.',
    'In the first sync we decided to keep the checklist and make it more visible.',
    'This contradicts what we decided last week about the checklist.',
  ])('not: %s', (text) => {
    expect(only(text)?.kind ?? null).not.toBe('decision');
  });

  it('takes the sentence after "the decision changes" as the decision, with the words that announce it', () => {
    const items = itemsOf([
      ['Maya', 'Then the decision changes. Search v2 moves to February 13, for everyone at once.'],
    ]);
    expect(items).toEqual([
      expect.objectContaining({
        kind: 'decision',
        text: 'Then the decision changes. Search v2 moves to February 13, for everyone at once.',
      }),
    ]);
  });
});

describe('action items', () => {
  it.each<[string, string, string | null, string, string | null]>([
    ['Tom', "I'll send the slides to everyone by Friday.", 'Tom', 'Tom', '2024-03-08'],
    ['Tom', "I 'll follow up with the supplier about the cases.", 'Tom', 'Tom', null],
    ['Tom', "I'm going to look into the battery problem tomorrow.", 'Tom', 'Tom', '2024-03-07'],
    ['Ana', 'Maria will draft the contract next week.', 'Maria', 'Ana', '2024-03-13'],
    ['Ana', 'Action item: Jonas to check the invoices.', 'Jonas', 'Ana', null],
    ['Ana', "Let's make sure Priya sends the minutes to the client.", 'Priya', 'Ana', null],
    ['Ana', 'Someone needs to book the meeting room by Thursday.', null, 'Ana', '2024-03-07'],
    ['Ana', 'I can prepare the budget by the end of the month.', 'Ana', 'Ana', '2024-03-31'],
    ['Maya', 'Daniel prepares the night batch job by March 23.', 'Daniel', 'Maya', '2024-03-23'],
    ['Maya', 'I update the roadmap by Friday.', 'Maya', 'Maya', '2024-03-08'],
    // Particles read on the verb as said ("sets up", "gets back to").
    ['Maya', 'Tom sets up alerting on the batch by March 26.', 'Tom', 'Maya', '2024-03-26'],
    ['Lena', 'Maya gets back to Sam on single sign-on by March 13.', 'Maya', 'Lena', '2024-03-13'],
    // Verbs that are tasks when a day is named with them.
    ['Maya', 'Daniel owns the search release behind the flag for March 30.', 'Daniel', 'Maya', '2024-03-30'],
    [
      'Maya',
      "Daniel also separates the indexer's connection pool by March 16.",
      'Daniel',
      'Maya',
      '2024-03-16',
    ],
    ['Aisha', 'Tom adds the queue depth panels by March 14.', 'Tom', 'Aisha', '2024-03-14'],
    ['Priya', 'I propose the experiment at the sync on March 22.', 'Priya', 'Priya', '2024-03-22'],
    [
      'Priya',
      'I will present the findings at the design review on Thursday.',
      'Priya',
      'Priya',
      '2024-03-07',
    ],
    ['Tom', 'I will add that to the on-call guide.', 'Tom', 'Tom', null],
    ['Tom', 'That is mine, due March 21.', 'Tom', 'Tom', '2024-03-21'],
  ])('%s: %s', (speaker, text, owner, said, dueDate) => {
    expect(only(text, speaker)).toMatchObject({ kind: 'action_item', text, owner, speaker: said, dueDate });
  });

  it('reads a task taken on by pointing at it ("That is mine") with the sentence before, which says what', () => {
    const [alert] = itemsOf([
      ['Tom', 'Two: a lock panel and an alert on long locks. That is mine, due March 21.'],
    ]);
    expect(alert).toMatchObject({
      kind: 'action_item',
      owner: 'Tom',
      dueDate: '2024-03-21',
      text: 'Two: a lock panel and an alert on long locks. That is mine, due March 21.',
    });
    const [check] = itemsOf([
      ['Tom', 'One: a check in CI that fails otherwise. Daniel owns it, due March 23.'],
    ]);
    expect(check).toMatchObject({
      owner: 'Daniel',
      text: 'One: a check in CI that fails otherwise. Daniel owns it, due March 23.',
    });
  });

  it('gives a request to the person called by name, or to whoever takes it on', () => {
    expect(
      itemsOf([['Ana', 'Tom, could you email the agency about the posters?']]).map((item) => [
        item.kind,
        item.owner,
      ]),
    ).toEqual([['action_item', 'Tom']]);
    const taken = itemsOf([
      ['Ana', 'Can you send me the survey results before the next meeting?'],
      ['Ben', 'Sure, no problem.'],
    ]);
    expect(taken.map((item) => [item.kind, item.owner])).toEqual([['action_item', 'Ben']]);
  });

  it('reads the due date from the reply that takes a request on', () => {
    const items = itemsOf([
      ['Tom', 'Aisha, can you write that into the release checklist?'],
      ['Aisha', 'Yes, by March 19.'],
    ]);
    expect(items.map((item) => [item.kind, item.owner, item.dueDate])).toEqual([
      ['action_item', 'Aisha', '2024-03-19'],
    ]);
  });

  it("names the owner by the speaker's full label when one speaker has that name", () => {
    const items = itemsOf([
      ['Maria Lopez', 'Thanks for the numbers, they look fine to me.'],
      ['Ana', 'Maria will send the final numbers by Friday.'],
    ]);
    expect(items.map((item) => item.owner)).toEqual(['Maria Lopez']);
  });

  it('takes what follows "Actions:" in a turn as tasks, a day named or not', () => {
    const items = itemsOf([
      [
        'Lena',
        'Let me summarise. Actions: Maya gets back to Sam on SAML by March 13. I send the notes of this call when it is out.',
      ],
      ['Lena', 'I send you a link to the recording.'],
    ]);
    expect(items.map(({ kind, owner, dueDate }) => [kind, owner, dueDate])).toEqual([
      ['action_item', 'Maya', '2024-03-13'],
      ['action_item', 'Lena', null],
    ]);
  });

  it.each([
    "I'll show you the drawings now.",
    "I'll be quick, we have ten minutes left.",
    "I'll try to draw an elephant on the board.",
    "I'll just add one thing about the budget.",
    'I propose we move on to the budget.',
    'Daniel owns the release for now.',
    "I'm going to present the agenda now.",
    // The day of the meeting itself: a talk verb done in the meeting.
    'I present two petitions this morning.',
    'I will be Sebastian the project manager today.',
    'I can send it if you want.',
    'It will take two weeks to build the prototype.',
    'Could you explain the second slide again?',
    'We need to think about the price very carefully.',
    'If you have to send it, use the shared folder.',
    'So Hynek will try to push for combining different things?',
  ])('not: %s', (text) => {
    expect(only(text, 'Tom')?.kind ?? null).not.toBe('action_item');
  });
});

describe('questions', () => {
  it('is answered by a later turn of someone else that speaks to it', () => {
    const items = itemsOf([
      ['Ana', 'How long does the rechargeable battery last on one charge?'],
      ['Ana', 'I ask because of the reviews.'],
      ['Ben', 'Okay.'],
      ['Ben', 'The battery lasts about three months with normal use.'],
    ]);
    expect(items).toEqual([
      expect.objectContaining({
        kind: 'question',
        answered: true,
        answer: {
          text: 'The battery lasts about three months with normal use.',
          start: 30,
          end: 38,
          speaker: 'Ben',
        },
      }),
    ]);
  });

  it('takes a yes or no with more to say as an answer, and nothing else', () => {
    const answered = itemsOf([
      ['Ana', 'Is the new office open on Saturdays this month?'],
      ['Ben', 'Yes, from ten until four, with a guard at the door.'],
    ]);
    expect(answered[0]).toMatchObject({ answered: true, answer: { speaker: 'Ben' } });
    const unanswered = itemsOf([
      ['Ana', 'Do the trade fair organisers provide electricity at the booth?'],
      ['Ben', 'Yeah.'],
      ['Cleo', 'The flyers should mention the price and the colours.'],
      ['Ana', 'I think so.'],
    ]);
    expect(unanswered).toEqual([
      expect.objectContaining({ kind: 'question', answered: false, answer: null }),
    ]);
  });

  it('takes the very next turn of someone else as the answer when it says something, in its own words', () => {
    const [item] = itemsOf([
      ['Lena', 'How are things going with the rollout at Northwind?'],
      ['Sam', 'Mostly well. We now have about three hundred people in the workspace.'],
    ]);
    expect(item).toMatchObject({
      answered: true,
      answer: {
        text: 'Mostly well. We now have about three hundred people in the workspace.',
        speaker: 'Sam',
      },
    });
    // A reply two turns on, in other words, may be about anything.
    const [later] = itemsOf([
      ['Lena', 'How are things going with the rollout at Northwind?'],
      ['Sam', 'Hmm.'],
      ['Ola', 'The coffee machine on the third floor is broken again.'],
    ]);
    expect(later).toMatchObject({ answered: false, answer: null });
  });

  it.each([
    'Good question and I do not know yet. Let us put it in the experiment plan.',
    'Only new ones for now, but let us keep that open.',
    'I like the idea, but it is a bigger project. Let us log it as an open question.',
    'Good question. I believe yes, but I will confirm with the rollout team.',
    'Let us decide that next week, once we see the first rollout results.',
  ])('leaves a question open when the reply does: %s', (reply) => {
    const [item] = itemsOf([
      ['Tom', 'What happens to workspaces created during the rollout if we pick the losing variant?'],
      ['Maya', reply],
      ['Dan', 'Yes, the rollout workspaces switch to the winning variant the next day.'],
    ]);
    expect(item).toMatchObject({ kind: 'question', answered: false, answer: null });
  });

  it.each([
    "It's a good price for a booth, right?",
    'Eleven buttons is a lot for a remote these days, you know?',
    "We've covered the student fees already, haven't we?",
    'Shall we move on to the trade fair now?',
    'Are there any other questions from members?',
    'You have one in mind?',
    'Ready?',
  ])('not: %s', (text) => {
    expect(only(text)).toBeNull();
  });
});

describe('items of long run-on turns', () => {
  it('keeps the clauses around the cue, verbatim, timed inside the sentence', () => {
    const ramble =
      'so yeah we looked at all of the numbers from the survey and the market study and there was a lot in there about colours, ' +
      'about shapes, about the feel of the thing in the hand, and in the end we decided to go with the rubber case in dark grey, ' +
      'which the factory says they can do for the same price as plastic, and which people liked in every single test we ran over the summer and autumn';
    const [item] = itemsOf([['Ana', ramble]]);
    expect(item?.kind).toBe('decision');
    expect(ramble).toContain(item?.text);
    expect(item?.text).toContain('we decided to go with the rubber case');
    expect(item?.text.split(' ').length).toBeLessThanOrEqual(40);
    expect(item?.start).toBeGreaterThan(0);
    expect(item?.end).toBeLessThan(8);
  });
});
