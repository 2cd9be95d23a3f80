import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { turnsVtt } from '../../../test/helpers/library.ts';
import { requester } from '../../../test/helpers/requests.ts';
import { NOT_FOUND_ANSWER } from './engine.ts';
import { answersFromScope } from './qa.ts';

const ROADMAP = readFileSync(new URL('../search/fixtures/roadmap-review.vtt', import.meta.url), 'utf8');
/** Another meeting of the same organization, which says "launch date" in passing. */
const SHOWROOM = [
  '[00:00:00] Maria: Um, so, the kitchen showroom needs new tiles before the launch date in June.',
  '[00:00:12] Tom: The the cabinets arrive on Tuesday, and the plumber comes on Wednesday.',
  '[00:00:25] Maria: Uh, we pick the grey tiles, because the white ones stain too easily.',
  '[00:00:40] Tom: Then I order the grey tiles today and book the tiler for Friday.',
].join('\n');

/** Thirty turns, twenty seconds each: the agenda first, the talk, the closing tasks last. */
const PLANNING = turnsVtt(
  [
    ['Maria', 'Morning. Today we go through the hiring plan, the office move and the budget for the spring.'],
    ...Array.from({ length: 25 }, (_, at): [string, string] => [
      at % 2 ? 'Tom' : 'Maria',
      `Point ${at + 1} of the review: the numbers for line ${at + 1} look as planned, nothing to change there.`,
    ]),
    ['Tom', 'So, to close: Lena sends the notes to everyone tonight.'],
    ['Maria', 'And I book the room for the offsite in March.'],
    ['Tom', 'We meet again on Monday at ten.'],
    ['Maria', 'Good, see you Monday.'],
  ],
  20,
);

/**
 * Whether a narrowed scope answers: it must suit the question about as well as the organization's
 * best meeting does, and hold the people the question names (see answersFromScope in qa.ts).
 */
describe('POST /ai/qa scoped to one meeting of several', () => {
  const ctx = useTestApp();
  const request = requester(ctx);
  let alice: SignedUpUser;
  let roadmapId: string;
  let showroomId: string;

  const post = async (title: string, transcript: string) => {
    const response = await request(alice, 'POST', '/videos', {
      organizationId: alice.organizationId,
      title,
      duration: '1:05',
      transcript,
    });
    expect(response.statusCode, response.body).toBe(201);
    return response.json().id as string;
  };
  const ask = async (question: string, videoId: string) => {
    const response = await request(alice, 'POST', '/ai/qa', { question, videoIds: [videoId] });
    expect(response.statusCode, response.body).toBe(201);
    return response.json() as {
      answer: string;
      answered: boolean;
      citations: Array<{ source: number; videoId: string; speaker: string | null; start: number }>;
    };
  };

  beforeAll(async () => {
    alice = await signUpUser(ctx().app, { name: 'Alice' });
    roadmapId = await post('Quarterly roadmap review', ROADMAP);
    showroomId = await post('Showroom renovation', SHOWROOM);
  });

  it('answers from the meeting the question is about, saying who said it, without "uh" and restarts', async () => {
    const result = await ask('Which tiles did we pick for the showroom, and why?', showroomId);
    expect(result.answered).toBe(true);
    // Reported as said, naming each change of speaker; the citation quotes the transcript as it was said.
    expect(result.answer).toMatch(
      /^Maria said they picked the grey tiles, because the white ones stain too easily\. Tom said then they ordered the grey tiles/,
    );
    expect(result.citations[0]).toMatchObject({
      speaker: 'Maria',
      quote: 'Uh, we pick the grey tiles, because the white ones stain too easily.',
    });
    expect(result.answer).not.toMatch(/\b(uh|um)\b|\bthe the\b/i);
    expect(result.citations.every((citation) => citation.videoId === showroomId)).toBe(true);
  });

  it('numbers its sources in reading order, one citation per marker', async () => {
    const result = await ask('What happens with the tiles, the cabinets and the plumber?', showroomId);
    expect(result.answered).toBe(true);
    const markers = [...result.answer.matchAll(/\[(\d+)\]/g)].map((match) => Number(match[1]));
    expect(markers).toEqual(markers.map((_, at) => at + 1));
    expect(result.citations.map((citation) => citation.source)).toEqual(markers);
  });

  it('does not know when another meeting of the organization suits the question far better', async () => {
    const question = 'Which page runs late because of the permissions work, and what about the launch?';
    const own = await ask(question, roadmapId);
    expect(own.answered).toBe(true);
    const elsewhere = await ask(question, showroomId);
    expect(elsewhere).toMatchObject({ answered: false, answer: NOT_FOUND_ANSWER, citations: [] });
  });

  it('answers a question about the end or the start of its one meeting from that part, whatever its words', async () => {
    const planningId = await post('Spring planning', PLANNING);
    const wrapUp = await ask('Summarize the wrap up of the meeting.', planningId);
    expect(wrapUp.answered).toBe(true);
    // "wrap up" is said nowhere: it says where in the meeting, not what about.
    expect(wrapUp.answer).not.toMatch(/mentions/);
    expect(wrapUp.answer).toMatch(/To close: Lena sends the notes to everyone tonight\. \[\d\]/);
    // The last fifth of its thirty turns, twenty seconds each.
    for (const citation of wrapUp.citations) expect(citation.start).toBeGreaterThanOrEqual(460);
    const start = await ask('How did the meeting start?', planningId);
    expect(start.answered).toBe(true);
    // Told from its first words (the greeting dropped), not from where "meeting" or "start" is said.
    expect(start.answer).toMatch(/^Maria said: Today they went through the hiring plan/);
    for (const citation of start.citations) expect(citation.start).toBeLessThanOrEqual(120);
  });

  it('does not know what someone said in a meeting they did not speak in', async () => {
    const maria = await ask('What did Maria say about the launch date?', showroomId);
    expect(maria.answered).toBe(true);
    expect(maria.citations[0]?.speaker).toBe('Maria');
    const absent = await ask('What did Alice say about the launch date?', showroomId);
    expect(absent).toMatchObject({ answered: false, answer: NOT_FOUND_ANSWER, citations: [] });
  });
});

describe('answersFromScope', () => {
  const judged = (likelihoodGap: number, contentWords: number, standing = 1) => ({
    standing,
    likelihoodGap,
    contentWords,
    namesAbsentSpeakers: false,
  });

  it("weighs the likelihood gap by the question's length: a long question gathers a larger gap from its own meeting", () => {
    // QMSum: "Summarize the personal presentations on the appearance design, the speak recognition
    // system and the ideal materials of the remote control", asked of its own meeting (11 content
    // words); another team's meeting of the same brief says those words more often.
    expect(answersFromScope(1, judged(-10.25, 11, 0.74))).toBe(true);
    // The same gap over two words is a meeting that is not about them.
    expect(answersFromScope(1, judged(-10.25, 2, 0.74))).toBe(false);
    expect(answersFromScope(1, judged(0, 2))).toBe(true);
  });

  it('needs the best stretch to say enough of the question, and the scope to stand near the best', () => {
    expect(answersFromScope(0.05, judged(0, 3))).toBe(false);
    expect(answersFromScope(1, judged(0, 3, 0.2))).toBe(false);
    expect(answersFromScope(0.5, judged(-1, 3, 0.6))).toBe(true);
  });
});
