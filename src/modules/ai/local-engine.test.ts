import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { type QmsumQuestion, qmsumQuestions, qmsumTranscript } from '../../../scripts/seed/qmsum.ts';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { QMSUM_MEETINGS, qmsumFixture } from '../../../test/helpers/qmsum.ts';
import { retrieveChunks } from '../search/retrieval.ts';
import { type Citation, NOT_FOUND_ANSWER, type Source } from './engine.ts';
import { createLocalEngine } from './local-engine.ts';

describe('local answer engine', () => {
  const ctx = useTestApp();
  let owner: SignedUpUser;
  const loaded: Array<{ name: string; videoId: string; questions: QmsumQuestion[] }> = [];
  const engine = () => createLocalEngine(ctx().database.db);

  /** What the AI routes give the engine: the passages retrieval finds, numbered from 1. */
  const sourcesFor = async (question: string, videoIds: string[]): Promise<Source[]> => {
    const found = await retrieveChunks(
      ctx().database.db,
      question,
      { organizationIds: [owner.organizationId], videoIds },
      { limit: 5 },
    );
    return found.map(({ score: _score, index: _index, ...passage }, at) => ({ number: at + 1, ...passage }));
  };

  /** The segments of the cited video whose text holds the quote verbatim and whose time holds the citation's. */
  const segmentsHolding = async (citation: Citation) => {
    const { rows } = await ctx().database.db.execute<{ index: number }>(sql`
      select index from transcript_segments
      where video_id = ${citation.videoId} and strpos(text, ${citation.quote}) > 0
        and start_seconds <= ${citation.start} and end_seconds >= ${citation.end}
        and ${citation.start} <= ${citation.end}
      order by index`);
    return rows.map((row) => row.index);
  };

  beforeAll(async () => {
    owner = await signUpUser(ctx().app, { name: 'Olga Owner' });
    for (const name of QMSUM_MEETINGS) {
      const json = qmsumFixture(name);
      const meeting = qmsumTranscript(json, name);
      if (!meeting) throw new Error(`${name} has no transcript`);
      const response = await ctx().app.inject({
        method: 'POST',
        url: '/videos',
        headers: owner.headers,
        payload: {
          organizationId: owner.organizationId,
          title: meeting.title,
          duration: meeting.duration,
          transcript: meeting.transcript,
        },
      });
      expect(response.statusCode, response.body).toBe(201);
      loaded.push({ name, videoId: response.json().id, questions: qmsumQuestions(json, meeting) });
    }
  });

  it('answers most QMSum questions with verbatim, timed quotes, often from the span QMSum marks', async () => {
    let questions = 0;
    let answered = 0;
    let citations = 0;
    let goldCitations = 0;
    let answersCitingGold = 0;
    const unanswered: string[] = [];
    for (const meeting of loaded) {
      for (const question of meeting.questions) {
        questions++;
        const sources = await sourcesFor(question.query, [meeting.videoId]);
        const result = await engine().answer({ question: question.query, sources });
        if (!result.answered) {
          unanswered.push(`${meeting.name}: ${question.query} (${result.confidence})`);
          expect(result).toStrictEqual({
            answer: NOT_FOUND_ANSWER,
            answered: false,
            confidence: result.confidence,
            citations: [],
          });
          continue;
        }
        answered++;
        expect(result.citations.length).toBeGreaterThan(0);
        expect(result.citations.length).toBeLessThanOrEqual(4);
        expect(result.confidence).toBeGreaterThan(0);
        expect(result.confidence).toBeLessThanOrEqual(1);
        // The answer is the quotes in the order they were said, each marked with its source.
        expect(result.answer).toBe(
          result.citations.map((citation) => `${citation.quote} [${citation.source}]`).join(' '),
        );
        const starts = result.citations.map((citation) => citation.start);
        expect(starts).toEqual([...starts].sort((a, b) => a - b));
        let citesGold = false;
        for (const citation of result.citations) {
          const source = sources.find((candidate) => candidate.number === citation.source) as Source;
          expect(citation).toMatchObject({ videoId: meeting.videoId, videoTitle: meeting.name });
          expect(source.videoId).toBe(meeting.videoId);
          const holding = await segmentsHolding(citation);
          expect(holding, citation.quote).not.toEqual([]);
          expect(
            holding.some((index) => index >= source.firstSegmentIndex && index <= source.lastSegmentIndex),
          ).toBe(true);
          citations++;
          const gold = holding.some((index) =>
            question.segmentRanges.some(([first, last]) => index >= first && index <= last),
          );
          if (gold) goldCitations++;
          citesGold ||= gold;
        }
        if (citesGold) answersCitingGold++;
      }
    }
    expect(questions).toBe(24);
    // When this was written: 14 of 24 answered (the misses are long questions whose framing
    // clauses no single stretch of talk repeats), 12 of those citing the marked span, 21 of 30
    // quotes from it. The bars leave room for ties to move, not for a change that stops answering.
    expect(answered, `unanswered:\n${unanswered.join('\n')}`).toBeGreaterThanOrEqual(12);
    expect(answersCitingGold).toBeGreaterThanOrEqual(10);
    expect(goldCitations / citations).toBeGreaterThanOrEqual(0.55);
  });

  it('quotes who said what and when, numbered by the source it comes from', async () => {
    const [product] = loaded;
    const question = 'What did the group think of drawing a panther?';
    const sources = await sourcesFor(question, [product?.videoId as string]);
    // Numbers are the caller's: citations and markers follow them, not the sources' positions.
    const renumbered = sources.map((source) => ({ ...source, number: source.number * 10 }));
    const result = await engine().answer({ question, sources: renumbered });
    const quote = "But don't you think it's very difficult to draw a panther?";
    expect(result).toStrictEqual({
      answer: `${quote} [10]`,
      answered: true,
      confidence: 1,
      citations: [
        {
          source: 10,
          videoId: product?.videoId,
          videoTitle: 'IS1004a',
          start: 233,
          end: 237,
          speaker: 'Industrial Designer',
          quote,
        },
      ],
    });
    expect(await segmentsHolding(result.citations[0] as Citation)).toHaveLength(1);
  });

  it('says it does not know when the sources never discuss the question', async () => {
    for (const question of [
      "What did they decide about the Mars colony's oxygen supply?",
      'Why did the Marketing Expert reject the solar-powered kettle?',
      'What did the professor say about the football team and its training schedule?',
    ]) {
      const sources = await sourcesFor(
        question,
        loaded.map((meeting) => meeting.videoId),
      );
      // Retrieval finds passages sharing a word or two with the question: the engine must not quote them.
      expect(sources.length, question).toBeGreaterThan(0);
      const result = await engine().answer({ question, sources });
      expect(result, question).toStrictEqual({
        answer: NOT_FOUND_ANSWER,
        answered: false,
        confidence: expect.any(Number),
        citations: [],
      });
      expect(result.confidence).toBeLessThan(0.5);
    }
  });

  it('says it does not know without sources, or for a question of stop words only', async () => {
    const notFound = { answer: NOT_FOUND_ANSWER, answered: false, confidence: 0, citations: [] };
    expect(
      await engine().answer({ question: 'What did the group think of drawing a panther?', sources: [] }),
    ).toStrictEqual(notFound);
    const [product] = loaded;
    const sources = await sourcesFor('drawing a panther', [product?.videoId as string]);
    expect(await engine().answer({ question: 'What was it that they did?', sources })).toStrictEqual(
      notFound,
    );
  });

  it('gives the same answer to the same question and sources', async () => {
    const [, research] = loaded;
    const question = 'What did the Professor think about Danish and German models?';
    const sources = await sourcesFor(question, [research?.videoId as string]);
    const first = await engine().answer({ question, sources });
    expect(first.answered).toBe(true);
    expect(await createLocalEngine(ctx().database.db).answer({ question, sources })).toStrictEqual(first);
    expect(await engine().answer({ question, sources: [...sources] })).toStrictEqual(first);
  });
});
