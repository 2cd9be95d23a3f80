import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { requester } from '../../../test/helpers/requests.ts';
import { NOT_FOUND_ANSWER } from './engine.ts';

const ROADMAP = readFileSync(new URL('../search/fixtures/roadmap-review.vtt', import.meta.url), 'utf8');
/** Another meeting of the same organization, which says "launch date" in passing. */
const SHOWROOM = [
  '[00:00:00] Maria: Um, so, the kitchen showroom needs new tiles before the launch date in June.',
  '[00:00:12] Tom: The the cabinets arrive on Tuesday, and the plumber comes on Wednesday.',
  '[00:00:25] Maria: Uh, we pick the grey tiles, because the white ones stain too easily.',
  '[00:00:40] Tom: Then I order the grey tiles today and book the tiler for Friday.',
].join('\n');

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
      citations: Array<{ source: number; videoId: string; speaker: string | null }>;
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

  it('does not know what someone said in a meeting they did not speak in', async () => {
    const maria = await ask('What did Maria say about the launch date?', showroomId);
    expect(maria.answered).toBe(true);
    expect(maria.citations[0]?.speaker).toBe('Maria');
    const absent = await ask('What did Alice say about the launch date?', showroomId);
    expect(absent).toMatchObject({ answered: false, answer: NOT_FOUND_ANSWER, citations: [] });
  });
});
