import { describe, expect, it } from 'vitest';
import { conversationStats, questionsIn, type StatSegment } from './conversation.ts';

/**
 * The worked example of docs/analytics.md (fixtures/two-speakers.vtt), computed by hand:
 *
 *   0–10  Alice  "We should decide the launch date for the mobile app today?"
 *  12–20  Bob    "I think the launch date should be March first."
 *  19–25  Alice  "Agreed. What do you think about the marketing budget for the launch?"
 *  25–30  Alice  "We have ten thousand dollars."
 *  33–40  Bob    "That is enough."
 */
const meeting: StatSegment[] = [
  {
    start: 0,
    end: 10,
    speakerId: 'alice',
    text: 'We should decide the launch date for the mobile app today?',
  },
  { start: 12, end: 20, speakerId: 'bob', text: 'I think the launch date should be March first.' },
  {
    start: 19,
    end: 25,
    speakerId: 'alice',
    text: 'Agreed. What do you think about the marketing budget for the launch?',
  },
  { start: 25, end: 30, speakerId: 'alice', text: 'We have ten thousand dollars.' },
  { start: 33, end: 40, speakerId: 'bob', text: 'That is enough.' },
];

describe('conversation metrics of one meeting', () => {
  const stats = conversationStats(meeting);
  const alice = stats.get('alice');
  const bob = stats.get('bob');

  it('talk time: the sum of the speaker’s segments, silence excluded (10 + 6 + 5; 8 + 7)', () => {
    expect(alice?.talkSeconds).toBe(21);
    expect(bob?.talkSeconds).toBe(15);
  });

  it('words: tokens with a letter or digit (11 + 12 + 5; 9 + 3)', () => {
    expect(alice?.wordCount).toBe(28);
    expect(bob?.wordCount).toBe(12);
  });

  it('turns and monologues: runs of consecutive segments, from first start to last end', () => {
    expect(alice).toMatchObject({ turns: 2, longestMonologueSeconds: 11, monologueSeconds: 21 });
    expect(bob).toMatchObject({ turns: 2, longestMonologueSeconds: 8, monologueSeconds: 15 });
  });

  it('interruptions: a turn that starts before the previous speaker’s segment ended (Alice at 19 < 20)', () => {
    expect(alice?.interruptions).toBe(1);
    expect(bob?.interruptions).toBe(0);
  });

  it('patience: the pauses before answering another, when not interrupting (Bob: 12 − 10, 33 − 30)', () => {
    expect(bob).toMatchObject({ patienceSeconds: 5, patienceCount: 2 });
    expect(alice).toMatchObject({ patienceSeconds: 0, patienceCount: 0 });
  });

  it('questions: by the question detector’s rules', () => {
    expect(alice?.questionCount).toBe(2);
    expect(bob?.questionCount).toBe(0);
    expect(questionsIn('Ready?')).toBe(0); // too short
    expect(questionsIn('We ship the release on Friday, right?')).toBe(0); // a tag on a statement
    expect(questionsIn('Shall we move on to the next item then?')).toBe(0); // runs the meeting
    expect(questionsIn('Fine. Who owns the billing migration next quarter? Thanks.')).toBe(1);
  });

  it('segments without a speaker count for nobody but end a turn', () => {
    const split = conversationStats([
      { start: 0, end: 5, speakerId: 'alice', text: 'one two' },
      { start: 5, end: 6, speakerId: null, text: '[music]' },
      { start: 7, end: 9, speakerId: 'alice', text: 'three' },
    ]);
    expect(split.get('alice')).toMatchObject({
      talkSeconds: 7,
      turns: 2,
      patienceSeconds: 1,
      patienceCount: 1,
    });
    expect([...split.keys()]).toEqual(['alice']);
  });
});
