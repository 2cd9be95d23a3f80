import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatTimestamp, toSrt, toVtt } from './format.ts';
import { detectFormat, parseTranscript } from './parse.ts';
import { TranscriptSyntaxError } from './segment.ts';

const fixture = (name: string) =>
  readFileSync(new URL(`../../../test/fixtures/transcripts/${name}`, import.meta.url), 'utf8');

const DESIGN_REVIEW = [
  {
    index: 0,
    start: 0,
    end: 4.2,
    speaker: 'Priya Natarajan',
    text: "Okay, let's start. The goal today is the onboarding checklist.",
  },
  {
    index: 1,
    start: 4.2,
    end: 9.75,
    speaker: 'Marcus Hale',
    text: 'I looked at the funnel numbers: 38% of new teams never invite a second person.\nThat step needs to be first, not fifth.',
  },
  {
    index: 2,
    start: 9.75,
    end: 13.1,
    speaker: 'Priya Natarajan',
    text: 'Agreed. Can we keep the "skip" link & still count it?',
  },
  {
    index: 3,
    start: 13.1,
    end: 17,
    speaker: 'Jun Park',
    text: 'Yes, skipping is tracked as its own event <onboarding.skipped>.',
  },
  { index: 4, start: 17, end: 19.5, speaker: null, text: 'Everyone nods; the decision is recorded.' },
];

const INCIDENT_RETRO = [
  {
    index: 0,
    start: 0,
    end: 5.5,
    speaker: 'Dana Whitfield',
    text: "Thanks for joining. This is the retro\nfor Tuesday's checkout outage.",
  },
  {
    index: 1,
    start: 5.5,
    end: 11.25,
    speaker: 'Leo Martins',
    text: 'The connection pool ran dry at 14:02\nafter the cache deploy doubled our queries.',
  },
  {
    index: 2,
    start: 11.25,
    end: 15,
    speaker: 'Dana Whitfield',
    text: 'So the alert fired, but nobody was paged?',
  },
  {
    index: 3,
    start: 15,
    end: 21.4,
    speaker: 'Leo Martins',
    text: 'Right. The pager rule still pointed at the old rotation.',
  },
  { index: 4, start: 21.4, end: 24, speaker: null, text: '[alarm sound in the background]' },
];

async function syntaxErrorOf(text: string, format?: 'vtt' | 'srt') {
  try {
    await parseTranscript(text, { format });
  } catch (error) {
    if (error instanceof TranscriptSyntaxError) return { line: error.line, message: error.message };
    throw error;
  }
  throw new Error('the transcript parsed');
}

describe('detectFormat', () => {
  it('tells the four formats apart', () => {
    expect(detectFormat(fixture('design-review.vtt'))).toBe('vtt');
    expect(detectFormat(`\uFEFF${fixture('design-review.vtt')}`)).toBe('vtt');
    expect(detectFormat(fixture('incident-retro.srt'))).toBe('srt');
    expect(detectFormat('\n\n00:00:01,000 --> 00:00:02,000\nNo index line\n')).toBe('srt');
    expect(detectFormat(fixture('product-sync.txt'))).toBe('labelled');
    expect(detectFormat(fixture('standup-untimed.txt'))).toBe('labelled');
    expect(detectFormat('Alice: just one line')).toBe('labelled');
    expect(detectFormat(fixture('planning-notes.txt'))).toBe('plain');
  });

  it('does not take a colon in prose for a speaker', () => {
    const prose = [
      'We reviewed three options today.',
      'The decision: ship the smaller version first.',
      'Nobody objected, and the owner is the platform team.',
      'Follow-up next week.',
    ].join('\n');
    expect(detectFormat(prose)).toBe('plain');
    expect(detectFormat('See https://example.com/docs for details.\nAnd http://x.test too.')).toBe('plain');
  });
});

describe('WebVTT', () => {
  it('reads voice tags, multi-line cues, cue identifiers, settings, entities, NOTE and STYLE blocks', async () => {
    const { format, segments } = await parseTranscript(fixture('design-review.vtt'));
    expect(format).toBe('vtt');
    expect(segments).toEqual(DESIGN_REVIEW);
  });

  it('reads a file with a byte order mark and CRLF line endings the same', async () => {
    const windows = `\uFEFF${fixture('design-review.vtt').replace(/\n/g, '\r\n')}`;
    expect((await parseTranscript(windows)).segments).toEqual(DESIGN_REVIEW);
  });

  it('takes the speaker from a "Name:" prefix when a cue has no voice tag', async () => {
    const zoom = 'WEBVTT\n\n1\n00:00:01.000 --> 00:00:02.500\nAlex Kim: Can everyone hear me?\n';
    expect((await parseTranscript(zoom)).segments).toEqual([
      { index: 0, start: 1, end: 2.5, speaker: 'Alex Kim', text: 'Can everyone hear me?' },
    ]);
  });

  it('names the line of a broken timestamp', async () => {
    expect(await syntaxErrorOf(fixture('broken-timestamp.vtt'))).toEqual({
      line: 6,
      message: 'line 6: invalid cue end time "00:00:0x.500"',
    });
  });

  it('refuses a missing header, a cue without timing, reversed and out-of-order cues', async () => {
    expect(await syntaxErrorOf('00:00:01.000 --> 00:00:02.000\nHi\n', 'vtt')).toEqual({
      line: 1,
      message: 'line 1: missing the WEBVTT header',
    });
    expect(await syntaxErrorOf('WEBVTT\n\nid\nno timing here\n')).toEqual({
      line: 3,
      message: 'line 3: expected a cue timing line like 00:00:01.000 --> 00:00:04.000',
    });
    expect(await syntaxErrorOf('WEBVTT\n\n00:00:05.000 --> 00:00:04.000\nBackwards\n')).toEqual({
      line: 3,
      message: 'line 3: the cue ends before it starts',
    });
    expect(
      await syntaxErrorOf('WEBVTT\n\n00:00:05.000 --> 00:00:06.000\nA\n\n00:00:01.000 --> 00:00:02.000\nB\n'),
    ).toEqual({ line: 6, message: 'line 6: the cue starts before the previous cue' });
  });
});

describe('SRT', () => {
  it('reads cues with speaker prefixes, multi-line text and markup', async () => {
    const { format, segments } = await parseTranscript(fixture('incident-retro.srt'));
    expect(format).toBe('srt');
    expect(segments).toEqual(INCIDENT_RETRO);
  });

  it('reads a file with a byte order mark and CRLF line endings the same', async () => {
    const windows = `\uFEFF${fixture('incident-retro.srt').replace(/\n/g, '\r\n')}`;
    expect((await parseTranscript(windows)).segments).toEqual(INCIDENT_RETRO);
  });

  it('names the line of a block without timing and of a bad timestamp', async () => {
    expect(await syntaxErrorOf(fixture('broken-block.srt'))).toEqual({
      line: 5,
      message: 'line 5: expected a cue timing line like 00:00:01,000 --> 00:00:04,000',
    });
    expect(
      await syntaxErrorOf('1\n00:00:01,000 --> 00:00:02,000\nOk\n\n2\n00:00:03,00x --> 00:00:04,000\nNo\n'),
    ).toEqual({
      line: 6,
      message: 'line 6: invalid cue start time "00:00:03,00x"',
    });
    expect(await syntaxErrorOf('1\n00:00:01,000 -> 00:00:02,000\nArrow too short\n', 'srt')).toEqual({
      line: 1,
      message: 'line 1: expected a cue timing line like 00:00:01,000 --> 00:00:04,000',
    });
  });
});

describe('speaker-labelled text', () => {
  it('uses the timestamps of the turns: a turn lasts until the next one starts', async () => {
    const { format, segments } = await parseTranscript(fixture('product-sync.txt'));
    expect(format).toBe('labelled');
    expect(segments.map(({ start, end, speaker }) => [start, end, speaker])).toEqual([
      [0, 12, 'Aiko Tanaka'],
      [12, 31, 'Ben Okafor'],
      [31, 35, 'Aiko Tanaka'],
      [35, 48, 'Ben Okafor'],
      [48, 65, 'Carla Reyes'],
      // The last turn: 7 words at 150 words a minute.
      [65, 67.8, 'Aiko Tanaka'],
    ]);
    expect(segments[4]?.text).toBe('Beta list is at 214 teams.\nWe invited the first 40 yesterday.');
  });

  it('accepts timestamps without brackets', async () => {
    const { segments } = await parseTranscript('00:00:05 Alice: Hello there.\n00:01:10 Bob: Hi.\n');
    expect(segments).toEqual([
      { index: 0, start: 5, end: 70, speaker: 'Alice', text: 'Hello there.' },
      { index: 1, start: 70, end: 70.4, speaker: 'Bob', text: 'Hi.' },
    ]);
  });

  it('synthesizes consecutive times at 150 words a minute without timestamps', async () => {
    const { segments } = await parseTranscript(fixture('standup-untimed.txt'));
    expect(segments.map(({ start, end, speaker }) => [start, end, speaker])).toEqual([
      // 10, 7, 9 and 7 words.
      [0, 4, 'Ben Okafor'],
      [4, 6.8, 'Carla Reyes'],
      [6.8, 10.4, 'Ben Okafor'],
      [10.4, 13.2, 'Aiko Tanaka'],
    ]);
  });

  it("scales synthesized times to the video's duration", async () => {
    const { segments } = await parseTranscript(fixture('standup-untimed.txt'), { durationSeconds: 132 });
    expect(segments.map(({ start, end }) => [start, end])).toEqual([
      [0, 40],
      [40, 68],
      [68, 104],
      [104, 132],
    ]);
  });

  it('refuses timestamps that go backwards, naming the line', async () => {
    expect(await syntaxErrorOf('[00:01:00] Alice: Later.\n[00:00:30] Bob: Earlier?\n')).toEqual({
      line: 2,
      message: 'line 2: the timestamp is not later than the previous turn',
    });
  });
});

describe('plain text', () => {
  it('cuts paragraphs into sentence runs of about 40 words with synthesized times', async () => {
    const { format, segments } = await parseTranscript(fixture('planning-notes.txt'));
    expect(format).toBe('plain');
    expect(segments.map((segment) => segment.text)).toEqual([
      'We opened with a review of last quarter. Revenue grew eleven percent, mostly from teams upgrading to the business plan. Churn stayed flat.',
      'The main risk for the next quarter is the search rewrite. It touches every page, and the team is small. We agreed to ship it behind a flag and to keep the old index running for two weeks.',
      'Action items were assigned at the end. Marketing will draft the launch post; engineering will publish a migration guide before the flag is turned on for everyone.',
    ]);
    expect(segments.map(({ start, end, speaker }) => [start, end, speaker])).toEqual([
      // 23, 38 and 27 words.
      [0, 9.2, null],
      [9.2, 24.4, null],
      [24.4, 35.2, null],
    ]);
  });
});

describe('subtitle output', () => {
  it('formats timestamps for both formats', () => {
    expect(formatTimestamp(3723.456, '.')).toBe('01:02:03.456');
    expect(formatTimestamp(0.5, ',')).toBe('00:00:00,500');
  });

  it('writes WebVTT that parses back to the same segments', async () => {
    const vtt = toVtt(DESIGN_REVIEW);
    expect(vtt.split('\n').slice(0, 5)).toEqual([
      'WEBVTT',
      '',
      '1',
      '00:00:00.000 --> 00:00:04.200',
      "<v Priya Natarajan>Okay, let's start. The goal today is the onboarding checklist.",
    ]);
    expect(vtt).toContain(
      '<v Jun Park>Yes, skipping is tracked as its own event &lt;onboarding.skipped&gt;.',
    );
    expect((await parseTranscript(vtt)).segments).toEqual(DESIGN_REVIEW);
  });

  it('writes SRT that parses back to the same segments', async () => {
    const srt = toSrt(INCIDENT_RETRO);
    expect(srt.split('\n').slice(0, 4)).toEqual([
      '1',
      '00:00:00,000 --> 00:00:05,500',
      'Dana Whitfield: Thanks for joining. This is the retro',
      "for Tuesday's checkout outage.",
    ]);
    expect((await parseTranscript(srt)).segments).toEqual(INCIDENT_RETRO);
  });
});
