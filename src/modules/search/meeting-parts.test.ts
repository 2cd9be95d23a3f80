import { describe, expect, it } from 'vitest';
import { meetingPart, meetingPartWords, partStretches, partTurns } from './meeting-parts.ts';
import { rankStretches } from './stretches.ts';
import { termTurnsOf } from './turns-test-support.ts';

/** A meeting of `count` turns, ten seconds each, saying `said` at the indexes given. */
const meeting = (count: number, said: Record<number, string> = {}) =>
  termTurnsOf(Array.from({ length: count }, (_, index) => said[index] ?? `turn ${index}`));

describe('questions about a part of a meeting', () => {
  it('read the end or the start a question asks about, and the words that name it', () => {
    expect(meetingPart('Summarize the wrap up of the meeting.')).toBe('end');
    expect(meetingPart("What were the professor's concluding comments?")).toBe('end');
    expect(meetingPart('What did the group discuss at the end of the meeting?')).toBe('end');
    expect(meetingPart('How did the meeting start?')).toBe('start');
    expect(meetingPart('Summarize the recap of the last meeting.')).toBe('start');
    expect(meetingPart('What did Project Manager mention at the very beginning of the meeting?')).toBe(
      'start',
    );
    // A matter, not a part: "the meeting room", "the end of the year", "how long".
    expect(meetingPart('What did they decide about the meeting room?')).toBeUndefined();
    expect(meetingPart('What is planned for the end of the year?')).toBeUndefined();
    expect(meetingPart('How long did the meeting last?')).toBeUndefined();
    expect(meetingPartWords("What were the professor's concluding comments?")).toBe('concluding comments');
    expect(meetingPartWords('What did they decide?')).toBe('');
  });

  it("keep a meeting's last or first fifth", () => {
    const turns = meeting(51);
    expect(partTurns(turns, 'end').map((turn) => turn.index)).toEqual([
      40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50,
    ]);
    expect(partTurns(turns, 'start').map((turn) => turn.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('tell the part in the order said: the stretches that say the question’s words, and others spread over the rest', () => {
    const part = partTurns(meeting(101, { 97: 'we ship on monday' }), 'end');
    const weights = { weights: new Map([['ship', 1]]), cues: new Set<string>() };
    const found = rankStretches(part, weights, 5);
    expect(found.map((stretch) => stretch.bestIndex)).toEqual([97]);
    const told = partStretches(part, found, 5);
    expect(told).toHaveLength(5);
    // In order, each from its first turn, none overlapping the stretch that says "ship".
    expect(told.map((stretch) => stretch.firstIndex)).toEqual(
      [...told.map((s) => s.firstIndex)].sort((a, b) => a - b),
    );
    for (const stretch of told) expect(stretch.bestIndex).toBe(stretch.firstIndex);
    expect(told.at(-1)).toMatchObject({ firstIndex: 95, lastIndex: 99 });
    expect(told.slice(0, -1).every((stretch) => stretch.lastIndex < 95)).toBe(true);
    expect(told[0]?.firstIndex).toBe(80);
  });
});
