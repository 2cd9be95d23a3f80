import type { TermTurn } from './stretches.ts';

/** Turns of one video, one a line, ten seconds each, with their (already stemmed) words. */
export const termTurnsOf = (lines: string[]): TermTurn[] =>
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
