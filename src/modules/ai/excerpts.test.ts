import { describe, expect, it } from 'vitest';
import type { Source } from './engine.ts';
import { type Sentence, usefulOf } from './excerpts.ts';

const source = {} as Source;
const sentence = (said: string, lexemes: string[]): Sentence => ({
  source,
  turn: 0,
  speaker: 'Maya',
  start: 0,
  end: 1,
  text: said,
  said,
  words: said.split(' ').length,
  lexemes: new Set(lexemes),
});

describe('usefulOf', () => {
  it('leaves out filler, thanks and acknowledgements standing alone, and keeps what says something', () => {
    const said = [
      sentence('Yeah, okay, so.', ['okay']),
      sentence('Good point.', ['good', 'point']),
      sentence('Thanks for making time, Sam.', ['thank', 'make', 'time', 'sam']),
      sentence('Good question. Thanks everyone, see you next week.', ['good', 'question', 'thank', 'week']),
      sentence('Good point about the pool: the indexer gets its own.', ['good', 'point', 'pool', 'index']),
      sentence('The batch starts January 27.', ['batch', 'start', 'januari', '27']),
    ];
    expect(usefulOf(said).map((kept) => kept.said)).toStrictEqual([
      'Good point about the pool: the indexer gets its own.',
      'The batch starts January 27.',
    ]);
  });
});
