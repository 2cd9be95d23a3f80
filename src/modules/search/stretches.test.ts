import { describe, expect, it } from 'vitest';
import { asksQuestion } from './question-terms.ts';
import { rankStretches, STRETCH_DEFAULTS, type TermTurn } from './stretches.ts';

/** Turns of one video, one a line, with their (already stemmed) words. */
const turnsOf = (lines: string[]): TermTurn[] =>
  lines.map((line, index) => {
    const words = line.split(' ').filter(Boolean);
    const terms = new Map<string, number>();
    for (const word of words) terms.set(word, (terms.get(word) ?? 0) + 1);
    return {
      videoId: 'v',
      index,
      start: index * 10,
      end: index * 10 + 10,
      speaker: null,
      text: line,
      terms,
      length: words.length,
    };
  });

const question = { weights: new Map([['budget', 2]]) };

describe('rankStretches', () => {
  it('centres on the turn that follows the one raising the words, when both say them alike', () => {
    const turns = turnsOf(['hello all', 'now the budget', 'the budget was cut', 'anything else', 'no']);
    const [best] = rankStretches(turns, question, 1);
    expect(best).toMatchObject({ bestIndex: 2, firstIndex: 0, lastIndex: 4 });
    // With the neighbours on either side weighing the same, the tie goes to the earlier turn.
    const even = { ...STRETCH_DEFAULTS, neighbourWeights: { before: [0.5, 0.25], after: [0.5, 0.25] } };
    expect(rankStretches(turns, question, 1, even)[0]?.bestIndex).toBe(1);
  });

  it('centres stretches only on turns that say a word of the question, apart from each other', () => {
    const turns = turnsOf(['budget', 'a', 'b', 'c', 'd', 'e', 'budget budget', 'f', 'g']);
    const stretches = rankStretches(turns, question, 5);
    expect(stretches.map((stretch) => stretch.bestIndex)).toEqual([6, 0]);
    expect(stretches.every((stretch) => stretch.coverage === 1)).toBe(true);
    expect(rankStretches(turns, { weights: new Map([['pricing', 1]]) }, 5)).toEqual([]);
  });
});

describe('asksQuestion', () => {
  it('tells a question typed into search from words to find', () => {
    for (const question of [
      'Why did search go down on January 14?',
      'what did the professor think about hiring Fey',
      'Summarize the discussion on the remote',
      'Describe the prototype',
      'the launch date?',
    ])
      expect(asksQuestion(question), question).toBe(true);
    for (const words of ['feature flag', '"launch date" -draft', 'whatever', 'howl OR bark'])
      expect(asksQuestion(words), words).toBe(false);
  });
});
