import { beforeAll, describe, expect, it } from 'vitest';
import type { QmsumQuestion } from '../../../scripts/seed/qmsum.ts';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { turnsVtt } from '../../../test/helpers/library.ts';
import { postQmsumMeetings } from '../../../test/helpers/qmsum.ts';
import { makeVideo } from '../videos/test-support.ts';
import { retrieveStretches } from './stretch-retrieval.ts';
import { loadTurns } from './transcript-turns.ts';

const NOTHING = { stretches: [], coverage: 0, judgement: null, unsaid: [] };

describe('retrieveStretches', () => {
  const ctx = useTestApp();
  let owner: SignedUpUser;
  let outsider: SignedUpUser;
  const loaded: Array<{ name: string; videoId: string; questions: QmsumQuestion[] }> = [];

  beforeAll(async () => {
    owner = await signUpUser(ctx().app, { name: 'Olga Owner' });
    outsider = await signUpUser(ctx().app, { name: 'Otto Outsider' });
    loaded.push(...(await postQmsumMeetings(ctx().app, owner)));
  });

  const inside = (question: QmsumQuestion, index: number) =>
    question.segmentRanges.some(([first, last]) => index >= first && index <= last);

  it('centres one of its first five stretches in the span QMSum marks, for most questions', async () => {
    let questions = 0;
    let hits = 0;
    for (const meeting of loaded) {
      for (const question of meeting.questions) {
        questions++;
        const { stretches } = await retrieveStretches(ctx().database.db, question.query, {
          organizationIds: [owner.organizationId],
          videoIds: [meeting.videoId],
        });
        expect(stretches.length).toBeLessThanOrEqual(5);
        if (stretches.some((stretch) => inside(question, stretch.bestSegmentIndex))) hits++;
      }
    }
    expect(questions).toBe(24);
    // When this was written: 23 of 24. The bar leaves room for ties, not for a worse ranking.
    expect(hits).toBeGreaterThanOrEqual(21);
  });

  it('returns stretches of a few turns around their best, apart from each other, with their text', async () => {
    const [product] = loaded;
    const { stretches, coverage } = await retrieveStretches(
      ctx().database.db,
      'What did the group think of drawing a panther?',
      { organizationIds: [owner.organizationId], videoIds: [product?.videoId as string] },
    );
    expect(stretches.length).toBeGreaterThan(0);
    expect(coverage).toBe(1);
    const [best] = stretches;
    expect(best).toMatchObject({ videoId: product?.videoId, videoTitle: 'IS1004a' });
    expect(best?.text).toMatch(/panther/i);
    for (const stretch of stretches) {
      expect(stretch.firstSegmentIndex).toBeLessThanOrEqual(stretch.bestSegmentIndex);
      expect(stretch.lastSegmentIndex).toBeGreaterThanOrEqual(stretch.bestSegmentIndex);
      expect(stretch.lastSegmentIndex - stretch.firstSegmentIndex).toBeLessThanOrEqual(4);
      expect(stretch.turns.map((turn) => turn.index)).toEqual(
        Array.from(
          { length: stretch.lastSegmentIndex - stretch.firstSegmentIndex + 1 },
          (_, at) => stretch.firstSegmentIndex + at,
        ),
      );
      expect(stretch.startSeconds).toBe(stretch.turns[0]?.start);
      expect(stretch.endSeconds).toBe(stretch.turns.at(-1)?.end);
    }
    const centres = stretches.map((stretch) => stretch.bestSegmentIndex).sort((a, b) => a - b);
    for (let at = 1; at < centres.length; at++)
      expect((centres[at] as number) - (centres[at - 1] as number)).toBeGreaterThan(2);
  });

  it('narrows a larger scope through the best passages, and never leaves the organizations given', async () => {
    const question = 'What did the Professor think about Danish and German models?';
    const all = await retrieveStretches(ctx().database.db, question, {
      organizationIds: [owner.organizationId],
    });
    expect(all.stretches.length).toBeGreaterThan(0);
    expect(all.stretches[0]?.videoTitle).toBe('Bro008');
    const foreign = await retrieveStretches(ctx().database.db, question, {
      organizationIds: [outsider.organizationId],
    });
    // Nothing in the other organization says any of its words.
    expect(foreign).toStrictEqual({ ...NOTHING, unsaid: ['Professor', 'Danish', 'German', 'models'] });
  });

  it('names the words of a question that nothing in the organization says, as typed and in order', async () => {
    const scope = { organizationIds: [owner.organizationId] };
    const retrieve = (question: string) => retrieveStretches(ctx().database.db, question, scope);
    const kangaroos = await retrieve('What did the group discuss about kangaroos and the panther?');
    expect(kangaroos.stretches[0]?.text).toMatch(/panther/i);
    expect(kangaroos.unsaid).toEqual(['kangaroos']);
    expect((await retrieve('Wombats, or kangaroos?')).unsaid).toEqual(['Wombats', 'kangaroos']);
    // A hyphenated word is said when its parts are.
    expect((await retrieve('What about the panther-drawing? And kangaroo-drawing?')).unsaid).toEqual([
      'kangaroo-drawing',
    ]);
    // A meeting's title says what its transcript may not; how a question is asked is never unsaid.
    expect((await retrieve('Summarize the discussion of the panther in IS1004a.')).unsaid).toEqual([]);
    // "How frequently", "how many" ask for a degree or an amount: only what it is of is named.
    expect(
      (await retrieve('How frequently did the panther draw kangaroos, and how carefully?')).unsaid,
    ).toEqual(['kangaroos']);
  });

  it('says how little of a question an unrelated scope covers, how much less it suits it, and whom it lacks', async () => {
    const [product, research] = loaded;
    const question = 'What did the Professor think about Danish and German models?';
    const scope = (video: typeof product) => ({
      organizationIds: [owner.organizationId],
      videoIds: [video?.videoId as string],
    });
    const judged = (video: typeof product) =>
      retrieveStretches(ctx().database.db, question, scope(video), { judgeScope: true });
    const own = await judged(research);
    const unrelated = await judged(product);
    expect(own.coverage).toBeGreaterThan(0.6);
    expect(own.judgement).toEqual({
      standing: 1,
      likelihoodGap: 0,
      contentWords: 3,
      namesAbsentSpeakers: false,
    });
    expect(unrelated.coverage).toBeLessThan(0.3);
    expect(unrelated.judgement?.standing).toBeLessThan(0.5);
    // The research meeting suits the question far better, and no professor speaks in the other.
    expect(unrelated.judgement?.likelihoodGap).toBeLessThan(-4);
    expect(unrelated.judgement?.namesAbsentSpeakers).toBe(true);
    // Without judgeScope, the same retrieval reads nothing about the organization beyond the scope.
    expect((await retrieveStretches(ctx().database.db, question, scope(product))).judgement).toBeNull();
  });

  it('finds nothing for a question of stop words only, or an empty scope', async () => {
    const scope = { organizationIds: [owner.organizationId] };
    expect(await retrieveStretches(ctx().database.db, 'what was it that they did', scope)).toStrictEqual(
      NOTHING,
    );
    expect(await retrieveStretches(ctx().database.db, 'panther', { ...scope, videoIds: [] })).toStrictEqual(
      NOTHING,
    );
  });

  it('centres the first stretch where the matter a question names after "about" is said', async () => {
    const said: Array<[string, string]> = Array.from({ length: 50 }, (_, at) => [
      at % 2 ? 'Ben' : 'Ann',
      `Point ${at + 1}: nothing to add there.`,
    ]);
    said[5] = ['Ann', 'The kestrel camera, and the kestrel nest.'];
    said[40] = ['Ben', 'The osprey camera goes up on Monday, before the season starts.'];
    const created = await makeVideo(ctx(), owner, owner.organizationId, {
      title: 'Birds',
      duration: '8:20',
      transcript: turnsVtt(said),
    });
    const scope = { organizationIds: [owner.organizationId], videoIds: [created.id as string] };
    const first = async (question: string) =>
      (await retrieveStretches(ctx().database.db, question, scope)).stretches[0]?.bestSegmentIndex;
    // As words, the turn saying "kestrel" twice leads; asked about the osprey, the osprey's turn does.
    expect(await first('What did we say of the osprey and the kestrel?')).toBe(5);
    expect(await first('What did we say about the osprey when talking about the kestrel?')).toBe(40);
  });

  it("counts each turn's words from its stored vector: stemmed words once, a prefix over the words as written", async () => {
    const transcript = [
      'WEBVTT',
      '00:00:00.000 --> 00:00:05.000\n<v Ann>Schools and school meals.',
      '00:00:05.000 --> 00:00:10.000\n<v Ben>Meals matter; the meal plan too.',
      '00:00:10.000 --> 00:00:15.000\n<v Ann>Oatmeal, then the meal-deal.',
    ].join('\n\n');
    const created = await makeVideo(ctx(), owner, owner.organizationId, {
      title: 'Lunch',
      duration: '0:15',
      transcript,
    });
    const videoId = created.id as string;
    const ranges = [{ videoId, first: 0, last: 2 }];
    const { turns } = await loadTurns(ctx().database.db, ['school', 'meal'], ranges, { prefixes: ['mea'] });
    // The stemmed half of a vector and its words as written share lexemes ("school", "meal"):
    // counted together, "school" would be 3 and the prefix would count "meal" stemmed too.
    expect(turns.map((turn) => Object.fromEntries(turn.terms))).toStrictEqual([
      { school: 2, meal: 1, mea: 1 },
      { meal: 2, mea: 2 },
      // A prefix starts a word: "Oatmeal" holds no word starting "mea"; "meal-deal" holds one.
      { meal: 1, mea: 1 },
    ]);
  });
});
