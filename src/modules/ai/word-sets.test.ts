import { describe, expect, it } from 'vitest';
import { byWord, byWordLatestFirst, covering, heldLater, subjectWords } from './word-sets.ts';

describe('word sets through an index by word', () => {
  const entries = [
    { name: 'pricing tiers', date: new Date('2026-01-01'), words: subjectWords('price tier') },
    { name: 'launch', date: new Date('2026-01-02'), words: subjectWords('launch') },
    {
      name: 'pricing tiers for launch',
      date: new Date('2026-01-03'),
      words: subjectWords('launch price tier'),
    },
    { name: 'price only', date: new Date('2026-01-04'), words: subjectWords('price') },
  ];
  const index = byWord(entries);

  it('lists the entries holding every word, in their order, and none for no words', () => {
    const names = (words: string) => covering(index, subjectWords(words)).map((entry) => entry.name);
    expect(names('tier price')).toStrictEqual(['pricing tiers', 'pricing tiers for launch']);
    expect(names('price')).toStrictEqual(['pricing tiers', 'pricing tiers for launch', 'price only']);
    expect(names('launch price')).toStrictEqual(['pricing tiers for launch']);
    expect(names('budget price')).toStrictEqual([]);
    expect(names('')).toStrictEqual([]);
  });

  it('finds a later entry holding a share of the words, each word read latest first', () => {
    const latestFirst = byWordLatestFirst(entries);
    expect(latestFirst.get('price')?.map((entry) => entry.name)).toStrictEqual([
      'price only',
      'pricing tiers for launch',
      'pricing tiers',
    ]);
    const words = subjectWords('launch price budget');
    expect(heldLater(latestFirst, words, new Date('2026-01-02'), 0.6)).toBe(true);
    expect(heldLater(latestFirst, words, new Date('2026-01-03'), 0.6)).toBe(false);
    expect(heldLater(latestFirst, words, new Date('2026-01-03'), 0.3)).toBe(true);
  });
});
