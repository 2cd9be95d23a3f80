import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { insertKnowledge, waitForKnowledge } from '../../../test/helpers/knowledge.ts';
import { turnsVtt } from '../../../test/helpers/library.ts';
import { qaAsker, requester } from '../../../test/helpers/requests.ts';
import { videoKnowledge } from '../../db/schema/index.ts';
import { insertVideo } from '../transcripts/test-support.ts';
import { dayWriter } from './answer-timeline.ts';

type Answer = {
  answer: string;
  answered: boolean;
  citations: Array<{ source: number; videoId: string; quote: string; speaker: string | null }>;
};

const DAY = 86_400_000;

/** An item said at `start` by `speaker`. */
const item = (
  kind: 'decision' | 'question' | 'action_item',
  start: number,
  speaker: string,
  text: string,
  more: { answered?: boolean; owner?: string; dueDate?: string } = {},
) => ({ kind, start, end: start + 5, speaker, text, owner: null, dueDate: null, ...more });

describe('POST /ai/qa: the decisions, open questions or action items of the scope', () => {
  const ctx = useTestApp();
  const request = requester(ctx);
  let alice: SignedUpUser;
  let otto: SignedUpUser;
  let sprintId: string;
  let planningId: string;
  let retroId: string;
  let now: Date;

  const ask = qaAsker<Answer>(ctx);

  beforeAll(async () => {
    alice = await signUpUser(ctx().app, { name: 'Alice Martin' });
    otto = await signUpUser(ctx().app, { name: 'Otto' });
    const { db } = ctx().database;
    now = ctx().clock.now();
    const sprint = await insertVideo(ctx(), alice, {
      title: 'Sprint sync',
      recordedAt: new Date(now.getTime() - 2 * DAY),
    });
    const planning = await insertVideo(ctx(), alice, {
      title: 'Quarter planning',
      recordedAt: new Date(now.getTime() - 40 * DAY),
    });
    const retro = await insertVideo(ctx(), alice, {
      title: 'Retro',
      recordedAt: new Date(now.getTime() - DAY),
    });
    const gone = await insertVideo(ctx(), alice, { title: 'Deleted sync', isDeleted: true });
    [sprintId, planningId, retroId] = [sprint.id, planning.id, retro.id];
    await insertKnowledge(db, sprint, {
      items: [
        item('decision', 10, 'Alice Martin', 'Decision: we ship on Friday.'),
        item('decision', 20, 'Alice Martin', 'We decided to drop the beta.'),
        item('question', 30, 'Bob Stone', 'Who signs the contract with the vendor?', { answered: false }),
        item('question', 40, 'Bob Stone', 'Is the venue booked for the offsite?', { answered: true }),
        item('action_item', 50, 'Bob Stone', 'Bob books the room by Monday.', { owner: 'Bob Stone' }),
      ],
    });
    await insertKnowledge(db, planning, {
      items: [item('decision', 5, 'Bob Stone', 'So we go with the blue logo.')],
    });
    await insertKnowledge(db, retro, { items: [] });
    await insertKnowledge(db, gone, {
      items: [item('decision', 5, 'Alice Martin', 'Decision: we delete it.')],
    });
    const ottos = await insertVideo(ctx(), otto, { title: "Otto's sync", recordedAt: now });
    await insertKnowledge(db, ottos, { items: [item('decision', 5, 'Otto', 'Decision: Otto hires.')] });
  });

  it('lists the decisions, latest meeting first, in the order said, each cited, the speaker named at each change', async () => {
    const day = dayWriter([new Date(now.getTime() - 2 * DAY), new Date(now.getTime() - 40 * DAY)]);
    const body = await ask(alice, { question: 'What did we decide?' });
    expect(body).toMatchObject({ answered: true });
    expect(body.answer).toBe(
      'Decisions, latest meeting first: ' +
        `On ${day(new Date(now.getTime() - 2 * DAY))}, in “Sprint sync”: Alice Martin: “Decision: we ship on Friday.” [1]; “We decided to drop the beta.” [2]. ` +
        `On ${day(new Date(now.getTime() - 40 * DAY))}, in “Quarter planning”: Bob Stone: “So we go with the blue logo.” [3].`,
    );
    expect(body.citations.map((citation) => [citation.videoId, citation.quote])).toEqual([
      [sprintId, 'Decision: we ship on Friday.'],
      [sprintId, 'We decided to drop the beta.'],
      [planningId, 'So we go with the blue logo.'],
    ]);
    // Each organization its own.
    expect((await ask(otto, { question: 'Which decisions were made?' })).answer).toMatch(
      /^Decisions, latest meeting first: On .*, in “Otto's sync”: Otto: “Decision: Otto hires\.” \[1\]\.$/,
    );
  });

  it('lists only the questions no one answered, and the action items with their owner', async () => {
    const open = await ask(alice, { question: 'What are the open questions?' });
    expect(open.answer).toMatch(
      /^Questions left open, latest meeting first: On .*, in “Sprint sync”: Bob Stone asked “Who signs the contract with the vendor\?” \[1\]\.$/,
    );
    const tasks = await ask(alice, { question: 'What are the action items?' });
    expect(tasks.answer).toMatch(/in “Sprint sync”: Bob Stone: “Bob books the room by Monday\.” \[1\]\.$/);
  });

  it('keeps to the days the question names, and says so when nothing was held or recorded then', async () => {
    const lastWeek = await ask(alice, { question: 'What decisions were made in the last week?' });
    expect(lastWeek.answer).toMatch(
      /^Decisions in the meetings held in the last week \(.+ – .+\), latest meeting first: /,
    );
    expect(new Set(lastWeek.citations.map((citation) => citation.videoId))).toEqual(new Set([sprintId]));

    const yesterday = await ask(alice, { question: 'What did we decide yesterday?' });
    expect(yesterday).toMatchObject({ answered: true, citations: [] });
    expect(yesterday.answer).toMatch(
      /^No decision was recorded in the meeting held yesterday \([A-Z][a-z]+ \d+\)\.$/,
    );

    const today = await ask(alice, { question: 'Any decisions today?' });
    expect(today.answer).toMatch(/^No meeting here was held today \([A-Z][a-z]+ \d+\)\.$/);
  });

  it('keeps to the scope asked, and leaves to retrieval a list nothing stored holds', async () => {
    const scoped = await ask(alice, { question: 'What did we decide?', videoIds: [planningId] });
    expect(scoped.citations.map((citation) => citation.videoId)).toEqual([planningId]);
    // No action item stored for the planning, and no days named: retrieval answers (no transcript here).
    const none = await ask(alice, { question: 'What are the action items?', videoIds: [planningId] });
    expect(none.answered).toBe(false);
    expect(none.answer).not.toMatch(/^Action items/);
    // A matter named: retrieval's, not a list — asked where a decision is stored, which a list would show.
    const matter = await ask(alice, {
      question: 'What did we decide about the logo?',
      videoIds: [planningId],
    });
    expect(matter.answer).not.toMatch(/^Decisions/);
  });

  it('answers "what is the status of <matter>?" with what names it, latest meeting first, of every kind', async () => {
    const beta = await ask(alice, { question: "What's the status of the beta?" });
    expect(beta.answer).toMatch(
      /^The latest on the beta, latest meeting first: On .+, in “Sprint sync”: Alice Martin: “We decided to drop the beta\.” \[1\]\.$/,
    );
    const contract = await ask(alice, { question: 'Any update on the vendor contract?' });
    expect(contract.answer).toMatch(
      /in “Sprint sync”: Bob Stone asked “Who signs the contract with the vendor\?” \[1\]\.$/,
    );
    const room = await ask(alice, { question: 'Where are we with the room?' });
    expect(room.answer).toMatch(
      /in “Sprint sync”: Action item: Bob Stone: “Bob books the room by Monday\.” \[1\]\.$/,
    );
    // Nothing stored names it: retrieval answers (and finds no transcript here).
    const moon = await ask(alice, { question: 'What is the status of the moon base?' });
    expect(moon.answered).toBe(false);
    // A title naming it does not stand for its meeting's items: the state that stands may be
    // said in a later meeting, in other words.
    const sprint = await ask(alice, { question: "What's the status of the sprint?" });
    expect(sprint.answered).toBe(false);
  });

  it('takes "what happened with <matter>?" to the items said within three minutes after the talk names it whole', async () => {
    const carol = await signUpUser(ctx().app, { name: 'Carol Diaz' });
    // A turn every 20 seconds: the matter is named whole at the start only, then the talk moves on.
    const said = [
      'Now the onboarding checklist. Admins told us the list of steps felt like homework before they could invite anyone.',
      ...Array.from(
        { length: 59 },
        (_, at) =>
          `Item ${at + 1}: we went through the numbers for the quarter, the hiring plan, the office move and the travel budget, and nobody had concerns about any of them.`,
      ),
    ];
    const posted = await request(carol, 'POST', '/videos', {
      organizationId: carol.organizationId,
      title: 'Weekly sync',
      duration: '20:00',
      transcript: turnsVtt(
        said.map((text): [string, string] => ['Carol Diaz', text]),
        20,
      ),
    });
    expect(posted.statusCode, posted.body).toBe(201);
    const video = posted.json();
    const { db } = ctx().database;
    await waitForKnowledge(db, video.id);
    // Neither names "onboarding checklist" whole: one is said while the talk is still on it.
    await insertKnowledge(db, video, {
      items: [
        item('decision', 200, 'Carol Diaz', 'Decision: the checklist stays as it is.'),
        item('decision', 1000, 'Carol Diaz', 'Decision: the release checklist moves to the wiki.'),
      ],
    });
    const result = await ask(carol, { question: 'What happened with the onboarding checklist?' });
    expect(result.answer).toMatch(/“Decision: the checklist stays as it is\.” \[1\]/);
    expect(result.answer).not.toMatch(/release checklist/);
  });

  it('lists the action items or open questions about a matter: those that name it, or of a meeting whose title does', async () => {
    const room = await ask(alice, { question: 'What are the action items for the room?' });
    expect(room.answer).toMatch(
      /^Action items about the room, latest meeting first: On .+, in “Sprint sync”: Bob Stone: “Bob books the room by Monday\.” \[1\]\.$/,
    );
    // "Sprint sync" names the sprint: its tasks are the sprint's, whatever they say.
    const sprint = await ask(alice, { question: 'Next steps for the sprint?' });
    expect(sprint.citations.map((citation) => citation.quote)).toEqual(['Bob books the room by Monday.']);
    const vendor = await ask(alice, { question: 'What are the open questions about the vendor?' });
    expect(vendor.answer).toMatch(/^Questions left open about the vendor, latest meeting first: /);
    // Nothing stored names it: retrieval answers (and finds no transcript here), not an empty list.
    const moon = await ask(alice, { question: 'What are the action items for the moon base?' });
    expect(moon.answered).toBe(false);
    // Another organization's tasks are not listed.
    const ottos = await ask(otto, { question: 'What are the action items for the room?' });
    expect(ottos.answered).toBe(false);
  });

  it('says how many meetings it could not list yet: still being read, or not read', async () => {
    const { db } = ctx().database;
    const setRetro = (status: string) =>
      db.update(videoKnowledge).set({ status }).where(eq(videoKnowledge.videoId, retroId));
    await setRetro('pending');
    try {
      const all = await ask(alice, { question: 'What did we decide?' });
      expect(all.answer).toMatch(
        /“So we go with the blue logo\.” \[3\]\. One meeting is still being read: its decisions are not in this answer yet\.$/,
      );
      const yesterday = await ask(alice, { question: 'What did we decide yesterday?' });
      expect(yesterday.answer).toMatch(
        /^Nothing can be listed yet for the meeting held yesterday \([A-Z][a-z]+ \d+\)\. One meeting is still being read: its decisions are not in this answer yet\.$/,
      );
      await setRetro('failed');
      expect((await ask(alice, { question: 'What are the open questions?' })).answer).toMatch(
        /\[1\]\. One meeting could not be read: its questions left open are not in this answer\.$/,
      );
      expect((await ask(alice, { question: "What's the status of the beta?" })).answer).toMatch(
        /\[1\]\. One meeting could not be read: its decisions, action items and questions are not in this answer\.$/,
      );
      // Another organization's meetings are not counted.
      expect((await ask(otto, { question: 'What did we decide?' })).answer).not.toMatch(/could not be read/);
    } finally {
      await setRetro('ready');
    }
    expect((await ask(alice, { question: 'What did we decide?' })).answer).toMatch(/\[3\]\.$/);
  });

  it('answers in chat as in QA', async () => {
    const response = await request(alice, 'POST', '/chat/conversations', {
      message: 'What are the open questions?',
    });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json().messages[1].content).toMatch(/^Questions left open, latest meeting first: /);
  });
});
