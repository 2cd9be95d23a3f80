import { describe, expect, it } from 'vitest';
import { RRF_K, reciprocalRankFusion } from './fusion.ts';

describe('reciprocalRankFusion', () => {
  it('scores each id by the sum of 1/(60 + rank) over the rankings that hold it', () => {
    const fused = reciprocalRankFusion([
      ['a', 'b', 'c'],
      ['c', 'a'],
    ]);
    expect(RRF_K).toBe(60);
    expect(fused).toEqual([
      { id: 'a', score: 1 / 61 + 1 / 62 },
      { id: 'c', score: 1 / 63 + 1 / 61 },
      { id: 'b', score: 1 / 62 },
    ]);
  });

  it('lets an id found by one ranking only enter the fused result', () => {
    const fused = reciprocalRankFusion([['lexical-1', 'lexical-2'], ['vector-only']]);
    expect(fused.map((entry) => entry.id)).toEqual(['lexical-1', 'vector-only', 'lexical-2']);
    expect(fused[1]?.score).toBe(1 / 61);
  });

  it('puts agreement first: second in both beats first in one', () => {
    const fused = reciprocalRankFusion([
      ['x', 'both'],
      ['y', 'both'],
    ]);
    expect(fused[0]).toEqual({ id: 'both', score: 2 / 62 });
  });

  it('breaks ties by first appearance: the first ranking, then the next', () => {
    expect(reciprocalRankFusion([['a'], ['b'], ['c']]).map((entry) => entry.id)).toEqual(['a', 'b', 'c']);
    expect(reciprocalRankFusion([['c'], ['b'], ['a']]).map((entry) => entry.id)).toEqual(['c', 'b', 'a']);
  });

  it('counts an id listed twice in one ranking once, at its best place', () => {
    expect(reciprocalRankFusion([['a', 'b', 'a']])).toEqual([
      { id: 'a', score: 1 / 61 },
      { id: 'b', score: 1 / 62 },
    ]);
  });

  it('takes another k, and gives nothing for no rankings or empty ones', () => {
    expect(reciprocalRankFusion([['a', 'b']], 1)).toEqual([
      { id: 'a', score: 1 / 2 },
      { id: 'b', score: 1 / 3 },
    ]);
    expect(reciprocalRankFusion([])).toEqual([]);
    expect(reciprocalRankFusion([[], []])).toEqual([]);
  });
});
