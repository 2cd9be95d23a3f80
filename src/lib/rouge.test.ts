import { describe, expect, it } from 'vitest';
import { lcsLength, rouge, rougeTokens } from './rouge.ts';

const f1s = (candidate: string, reference: string) => {
  const scores = rouge(candidate, reference);
  return [scores.rouge1.f1, scores.rouge2.f1, scores.rougeL.f1];
};

describe('rougeTokens', () => {
  it('lower-cases and splits on anything but ASCII letters and digits, as rouge-score does', () => {
    expect(rougeTokens("Hello, World! It's the 2nd [1] time—really.")).toStrictEqual([
      'hello',
      'world',
      'it',
      's',
      'the',
      '2nd',
      '1',
      'time',
      'really',
    ]);
    expect(rougeTokens(' ,.; ')).toStrictEqual([]);
  });
});

describe('lcsLength', () => {
  it('is the longest common subsequence, not substring', () => {
    expect(lcsLength(['a', 'b', 'c', 'd'], ['a', 'x', 'c', 'd'])).toBe(3);
    expect(lcsLength(['a', 'b'], ['b', 'a'])).toBe(1);
    expect(lcsLength([], ['a'])).toBe(0);
  });
});

describe('rouge', () => {
  it('scores identical texts 1 and ignores case and punctuation', () => {
    expect(f1s('The cat sat on the mat.', 'the cat, sat on THE mat')).toStrictEqual([1, 1, 1]);
  });

  it('scores texts without a shared word 0', () => {
    expect(f1s('alpha beta gamma', 'delta epsilon')).toStrictEqual([0, 0, 0]);
    expect(f1s('', 'delta epsilon')).toStrictEqual([0, 0, 0]);
  });

  it('scores a partial overlap of equal lengths', () => {
    // 5 of 6 words shared; bigrams "the cat", "on the", "the mat" of 5; LCS "the cat on the mat".
    const scores = rouge('the cat sat on the mat', 'the cat is on the mat');
    expect(scores.rouge1.f1).toBeCloseTo(5 / 6, 10);
    expect(scores.rouge2.f1).toBeCloseTo(3 / 5, 10);
    expect(scores.rougeL.f1).toBeCloseTo(5 / 6, 10);
  });

  it('keeps precision and recall apart when the lengths differ', () => {
    // Lin (2004)'s example: every candidate word is in the reference, but in another order.
    const scores = rouge('police killed the gunman', 'the gunman was killed by police');
    expect(scores.rouge1.precision).toBe(1);
    expect(scores.rouge1.recall).toBeCloseTo(4 / 6, 10);
    expect(scores.rouge1.f1).toBeCloseTo(0.8, 10);
    // Only "the gunman" is a shared bigram: P 1/3, R 1/5.
    expect(scores.rouge2.f1).toBeCloseTo(0.25, 10);
    // LCS "the gunman": P 2/4, R 2/6.
    expect(scores.rougeL.precision).toBe(0.5);
    expect(scores.rougeL.recall).toBeCloseTo(1 / 3, 10);
    expect(scores.rougeL.f1).toBeCloseTo(0.4, 10);
  });

  it('counts a repeated word at most as often as the reference has it', () => {
    const scores = rouge('the the the the', 'the cat');
    expect(scores.rouge1.precision).toBe(0.25);
    expect(scores.rouge1.recall).toBe(0.5);
    expect(scores.rouge1.f1).toBeCloseTo(1 / 3, 10);
  });

  it('stems tokens longer than three characters with the stemmer it is given, as rouge-score does', () => {
    const stem = (token: string) => token.replace(/(ing|ed|s)$/, '');
    expect(rougeTokens('Deciding was decided; cats sat', { stem })).toEqual([
      'decid',
      'was',
      'decid',
      'cat',
      'sat',
    ]);
    expect(rouge('they decided', 'we are deciding').rouge1.f1).toBe(0);
    expect(rouge('they decided', 'we are deciding', { stem }).rouge1.f1).toBeCloseTo(0.4, 10);
  });
});
