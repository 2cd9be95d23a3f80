import { describe, expect, it } from 'vitest';
import type { Extraction, TranscriptTurn } from './extraction.ts';
import { productMeeting, SUBJECT_CHANGE_TURN } from './fixtures/product-meeting.ts';
import { createLocalExtractor, extractLocally, MAX_EXTRACTED_WORDS, subjectOf } from './local-extractor.ts';

const { title, turns, meetingDate } = productMeeting;
const extraction = extractLocally(title, turns, meetingDate);

/** The turn a quote comes from: its words are a slice of the turn's text, its times inside the turn's. */
function turnOf(quote: { text: string; start: number; end: number; speaker: string | null }): TranscriptTurn {
  const turn = turns.find(
    (candidate) =>
      candidate.speaker === quote.speaker &&
      candidate.text.includes(quote.text) &&
      quote.start >= candidate.start &&
      quote.end <= candidate.end,
  );
  if (!turn) throw new Error(`no turn holds ${JSON.stringify(quote)}`);
  return turn;
}

describe('local extractor on a hand-made meeting', () => {
  it('finds exactly the decisions, action items and questions, with owners, due dates and answers', () => {
    expect(
      extraction.items.map((item) => [
        item.kind,
        item.speaker,
        item.text,
        item.owner,
        item.dueDate,
        item.answered,
      ]),
    ).toEqual([
      [
        'question',
        'Maria',
        'Okay. What about the battery, how long does the rechargeable battery last on one charge?',
        null,
        null,
        true,
      ],
      [
        'decision',
        'Maria',
        'So we decided to use a rechargeable battery instead of the usual AA cells.',
        null,
        null,
        null,
      ],
      [
        'question',
        'Priya',
        'Could we add a voice control button for people who cannot see the small labels?',
        null,
        null,
        true,
      ],
      [
        'decision',
        'Maria',
        'We decided not to include a voice control button in the first version.',
        null,
        null,
        null,
      ],
      ['question', 'Maria', 'And the case, rubber or plastic?', null, null, true],
      ['decision', 'Maria', "Okay, let's go with the rubber case in dark grey.", null, null, null],
      [
        'action_item',
        'Tom',
        "I'll send the button layout and the rubber case drawings to the factory by Friday.",
        'Tom',
        '2024-03-08',
        null,
      ],
      [
        'action_item',
        'Maria',
        'Jonas will test the battery life of the rechargeable battery again next week.',
        'Jonas',
        '2024-03-13',
        null,
      ],
      [
        'action_item',
        'Maria',
        'Priya, can you book the booth at the trade fair by March 20?',
        'Priya',
        '2024-03-20',
        null,
      ],
      ['question', 'Jonas', 'How big is the booth going to be at the fair?', null, null, true],
      [
        'decision',
        'Priya',
        'We agreed with the agency to print five hundred flyers and two large posters for the trade fair.',
        null,
        null,
        null,
      ],
      [
        'action_item',
        'Maria',
        'Good. Action item: Maria to update the trade fair budget sheet by the end of the month.',
        'Maria',
        '2024-03-31',
        null,
      ],
      [
        'action_item',
        'Priya',
        'I will write the press release for the trade fair launch tomorrow.',
        'Priya',
        '2024-03-07',
        null,
      ],
      [
        'question',
        'Jonas',
        'Do we know whether the trade fair organisers provide electricity and internet at the booth?',
        null,
        null,
        false,
      ],
      [
        'question',
        'Maria',
        'Who is going to staff the booth during the three days of the trade fair?',
        null,
        null,
        true,
      ],
    ]);
  });

  it('quotes every item and answer verbatim, inside its turn, with its stemmed subject', () => {
    for (const item of extraction.items) {
      turnOf(item);
      expect(item.start).toBeLessThan(item.end);
      expect(item.subject).toBe(subjectOf(item.text));
      if (item.answer) {
        const asked = turnOf(item);
        const answering = turnOf(item.answer);
        expect(answering.index).toBeGreaterThan(asked.index);
        expect(answering.speaker).not.toBe(item.speaker);
      } else {
        expect(item.answered === true).toBe(false);
      }
    }
    const battery = extraction.items.find((item) => item.text.includes('how long does'));
    expect(battery?.answer).toEqual({
      text: 'The rechargeable battery lasts about three months on one charge with normal use, we measured it in the lab.',
      start: turns[9]?.start,
      end: turns[9]?.end,
      speaker: 'Jonas',
    });
    expect(extraction.items.find((item) => item.text.startsWith('We decided not'))?.subject).toBe(
      'button control includ version voic',
    );
  });

  it('cuts two chapters where the talk turns from the remote control to the trade fair', () => {
    const { chapters } = extraction;
    expect(chapters).toHaveLength(2);
    const [design, fair] = chapters;
    expect(design?.start).toBe(turns[0]?.start);
    expect(fair?.end).toBe(turns.at(-1)?.end);
    expect(design?.end).toBe(fair?.start);
    const changeAt = turns[SUBJECT_CHANGE_TURN]?.start as number;
    const nearby = [SUBJECT_CHANGE_TURN - 1, SUBJECT_CHANGE_TURN, SUBJECT_CHANGE_TURN + 1].map(
      (index) => turns[index]?.start,
    );
    expect(nearby).toContain(fair?.start);
    expect(Math.abs((fair?.start as number) - changeAt)).toBeLessThan(15);
    expect(design?.title).toMatch(/button|battery|remote/i);
    expect(fair?.title).toMatch(/booth|trade fair/i);
  });

  it('names the subjects as topics, with one key for singular and plural', () => {
    const keys = extraction.topics.map((topic) => topic.key);
    expect(keys).toContain('remot control');
    expect(keys).toContain('trade fair');
    expect(keys).toContain('booth');
    expect(new Set(keys).size).toBe(keys.length);
    const remote = extraction.topics.find((topic) => topic.key === 'remot control');
    // "remote control" twice and "remote controls" twice, one topic.
    expect(remote).toMatchObject({ name: 'remote control', mentions: 4, firstStart: turns[0]?.start });
    expect(extraction.topics[0]?.score).toBe(1);
    for (const topic of extraction.topics) {
      expect(topic.score).toBeGreaterThan(0);
      expect(topic.score).toBeLessThanOrEqual(1);
      expect(topic.keywords.length).toBeLessThanOrEqual(8);
      expect(topic.key.split(' ')).not.toContain('maria');
      expect(topic.name).not.toMatch(/^(yeah|okay|thing|stuff|gonna)$/);
    }
    expect(extraction.topics.map((topic) => topic.name)).toEqual(expect.arrayContaining(['rubber case']));
  });

  it('summarises in a few verbatim sentences in time order, covering both subjects', () => {
    const { summary } = extraction;
    expect(summary.length).toBeGreaterThanOrEqual(3);
    expect(summary.length).toBeLessThanOrEqual(6);
    const order = summary.map((quote) => turnOf(quote).index);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(order.some((index) => index < SUBJECT_CHANGE_TURN)).toBe(true);
    expect(order.some((index) => index > SUBJECT_CHANGE_TURN)).toBe(true);
    for (const quote of summary) expect(quote.text.split(/\s+/).length).toBeGreaterThanOrEqual(8);
  });

  it('runs as the `local` extractor and gives the same extraction', async () => {
    const extractor = createLocalExtractor();
    expect(extractor.name).toBe('local');
    expect(await extractor.extract({ title, turns, meetingDate })).toEqual(extraction);
  });
});

describe('local extractor on little or no speech', () => {
  const turn = (index: number, speaker: string, text: string): TranscriptTurn => ({
    index,
    start: index * 5,
    end: index * 5 + 4,
    speaker,
    text,
  });

  it('gives nothing for an empty transcript', () => {
    expect(extractLocally('Empty', [], meetingDate)).toEqual<Extraction>({
      summary: [],
      chapters: [],
      items: [],
      topics: [],
    });
  });

  it('reads the first MAX_EXTRACTED_WORDS words of a transcript too long to read whole', () => {
    const filler = Array.from({ length: 1_000 }, (_, at) => `the budget line ${at} looks fine to me`).join(
      ' ',
    );
    const long = Array.from({ length: Math.ceil(MAX_EXTRACTED_WORDS / 7_000) + 1 }, (_, at) =>
      turn(at, 'A', filler),
    );
    const late = turn(long.length, 'B', 'Maria will send the final contract by Friday.');
    const extraction = extractLocally('Marathon', [...long, late], meetingDate);
    expect(extraction.chapters.at(-1)?.end).toBeLessThan(late.start);
    expect(extraction.items.map((item) => item.text)).not.toContain(late.text);
    // Said early enough, the same words are read.
    expect(
      extractLocally('Short', [long[0] as TranscriptTurn, { ...late, index: 1 }], meetingDate).items,
    ).toEqual([expect.objectContaining({ kind: 'action_item', owner: 'Maria' })]);
  });

  it('gives one chapter titled after the meeting when nothing is said at length', () => {
    const turns = [turn(0, 'A', 'Okay.'), turn(1, 'B', 'Yeah, sure.'), turn(2, 'A', '   ')];
    expect(extractLocally('Stand-up', turns, meetingDate)).toEqual<Extraction>({
      summary: [],
      chapters: [{ title: 'Stand-up', start: 0, end: 9 }],
      items: [],
      topics: [],
    });
  });

  it('keeps a short exchange to one chapter and one summary sentence', () => {
    const result = extractLocally(
      'Release',
      [
        turn(
          0,
          'Ana',
          'We decided to ship the new dashboard on Monday. Can you send the release notes by Friday?',
        ),
        turn(1, 'Ben', 'Sure, I will send them.'),
      ],
      meetingDate,
    );
    expect(result.chapters).toEqual([{ title: expect.any(String), start: 0, end: 9 }]);
    expect(result.summary).toEqual([
      {
        text: 'We decided to ship the new dashboard on Monday.',
        start: 0,
        end: expect.any(Number),
        speaker: 'Ana',
      },
    ]);
    // Ben's "Sure, I will send them." takes the task on: it makes him the owner, not a second item.
    expect(result.items.map((item) => [item.kind, item.owner, item.dueDate])).toEqual([
      ['decision', null, null],
      ['action_item', 'Ben', '2024-03-08'],
    ]);
  });
});
