import { describe, expect, it } from 'vitest';
import { qmsumTranscript } from '../../../scripts/seed/qmsum.ts';
import { QMSUM_MEETINGS, qmsumFixture } from '../../../test/helpers/qmsum.ts';
import { parseTranscript } from '../transcripts/parse.ts';
import type { Extraction, TranscriptTurn } from './extraction.ts';
import { extractLocally } from './local-extractor.ts';

const meetingDate = new Date('2018-10-04T09:00:00Z');

/** A QMSum meeting as the transcript upload would store it: labelled turns at 150 words a minute. */
async function load(name: string): Promise<TranscriptTurn[]> {
  const meeting = qmsumTranscript(qmsumFixture(name), name);
  if (!meeting) throw new Error(`${name} has no transcript`);
  const { segments } = await parseTranscript(meeting.transcript, { format: 'labelled' });
  return segments;
}

const extractions = new Map<string, { turns: TranscriptTurn[]; extraction: Extraction }>();
async function extracted(name: (typeof QMSUM_MEETINGS)[number]) {
  let entry = extractions.get(name);
  if (!entry) {
    const turns = await load(name);
    entry = { turns, extraction: extractLocally(name, turns, meetingDate) };
    extractions.set(name, entry);
  }
  return entry;
}

const inTurn = (
  turns: TranscriptTurn[],
  quote: { text: string; start: number; end: number; speaker: string | null },
) =>
  turns.some(
    (turn) =>
      turn.speaker === quote.speaker &&
      turn.text.includes(quote.text) &&
      quote.start >= turn.start &&
      quote.end <= turn.end &&
      quote.start <= quote.end,
  );

describe('local extractor on QMSum meetings', () => {
  it.each(QMSUM_MEETINGS)(
    '%s: every item, answer and summary sentence is a verbatim slice of its turn',
    async (name) => {
      const { turns, extraction } = await extracted(name);
      expect(extraction.items.length).toBeGreaterThan(0);
      for (const item of extraction.items) {
        expect(inTurn(turns, item), JSON.stringify(item)).toBe(true);
        expect(item.text.split(/\s+/).length).toBeLessThanOrEqual(40);
        if (item.answer) expect(inTurn(turns, item.answer), JSON.stringify(item.answer)).toBe(true);
      }
      expect(extraction.summary.length).toBeGreaterThanOrEqual(3);
      expect(extraction.summary.length).toBeLessThanOrEqual(6);
      for (const quote of extraction.summary) expect(inTurn(turns, quote), JSON.stringify(quote)).toBe(true);
      const starts = extraction.summary.map((quote) => quote.start);
      expect(starts).toEqual([...starts].sort((a, b) => a - b));
    },
  );

  it.each(QMSUM_MEETINGS)('%s: chapters cover the meeting contiguously, in order, titled', async (name) => {
    const { turns, extraction } = await extracted(name);
    const { chapters } = extraction;
    expect(chapters.length).toBeGreaterThanOrEqual(2);
    expect(chapters[0]?.start).toBe(turns[0]?.start);
    expect(chapters.at(-1)?.end).toBe(turns.at(-1)?.end);
    chapters.forEach((chapter, index) => {
      expect(chapter.end).toBeGreaterThan(chapter.start);
      expect(chapter.title).toMatch(/\p{L}{3}/u);
      if (index > 0) expect(chapter.start).toBe(chapters[index - 1]?.end);
      // Chapters of a few minutes to a quarter of an hour.
      expect(chapter.end - chapter.start).toBeLessThanOrEqual(20 * 60);
      expect(chapter.end - chapter.start).toBeGreaterThanOrEqual(60);
    });
  });

  it.each(QMSUM_MEETINGS)('%s: questions are real questions, answered by someone else', async (name) => {
    const { extraction } = await extracted(name);
    const questions = extraction.items.filter((item) => item.kind === 'question');
    expect(questions.length).toBeGreaterThan(0);
    for (const question of questions) {
      expect(question.text.trimEnd().endsWith('?')).toBe(true);
      expect(question.text.split(/\s+/).length).toBeGreaterThanOrEqual(5);
      expect(question.text).not.toMatch(/,\s*(right|you know|okay|alright)\s*\?$/i);
      expect(question.answered).toBe(question.answer !== null);
      if (question.answer) expect(question.answer.speaker).not.toBe(question.speaker);
    }
    for (const item of extraction.items.filter((other) => other.kind !== 'question')) {
      expect(item.answered).toBeNull();
      expect(item.answer).toBeNull();
    }
  });

  it('finds decisions and action items across the meetings', async () => {
    const all = (await Promise.all(QMSUM_MEETINGS.map(extracted))).flatMap(
      ({ extraction }) => extraction.items,
    );
    expect(all.filter((item) => item.kind === 'decision').map((item) => item.text)).toEqual(
      expect.arrayContaining([
        expect.stringContaining("we 'll skip next week"),
        expect.stringContaining('we have reached an agreement in principle'),
      ]),
    );
    expect(all.filter((item) => item.kind === 'action_item').map((item) => item.text)).toEqual(
      expect.arrayContaining([expect.stringContaining('you have to work on the on the working design')]),
    );
  });

  it('names the remote control meeting by its remote control', async () => {
    const { extraction } = await extracted('IS1004a');
    expect(extraction.topics.some((topic) => /remote|button/.test(topic.name))).toBe(true);
    expect(extraction.topics.find((topic) => topic.key === 'remot control')?.name).toBe('remote control');
    for (const topic of extraction.topics) {
      expect(topic.name).not.toMatch(/\d|^(?:yeah|um|uh|okay|gonna|thing|stuff)$/i);
    }
  });

  it('names the committee session by its subjects', async () => {
    const { extraction } = await extracted('education_19');
    const names = extraction.topics.map((topic) => topic.name);
    expect(names).toEqual(expect.arrayContaining(['higher education', 'students', 'funding']));
    // Speakers' names are never topics.
    for (const name of names) expect(name).not.toMatch(/Kirsty|Eluned|Llyr|Lynne|Suzy/);
  });
});
