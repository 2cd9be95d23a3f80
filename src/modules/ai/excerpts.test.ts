import { describe, expect, it } from 'vitest';
import type { Source } from './engine.ts';
import { excerpt, type Sentence, usefulOf } from './excerpts.ts';

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

describe('excerpt', () => {
  const take = (said: Sentence[], question: string[]) =>
    excerpt(said, (one) => [...one.lexemes].filter((lexeme) => question.includes(lexeme)).length, {
      budget: 40,
      room: 40,
      replyLeads: () => false,
    }).map((taken) => taken.said);

  it('does not end on a question that hands the floor on and says nothing asked about', () => {
    const decision = sentence(
      'Decision: search v2 ships on January 30.',
      'decis search v2 ship januari 30'.split(' '),
    );
    expect(
      take([decision, sentence('Daniel, is that realistic?', ['daniel', 'realist'])], ['search', 'ship']),
    ).toStrictEqual(['Decision: search v2 ships on January 30.']);
    expect(
      take([decision, sentence('Who would like to go first?', ['like', 'go', 'first'])], ['search', 'ship']),
    ).toStrictEqual(['Decision: search v2 ships on January 30.']);
  });

  it('keeps a question that says what was asked about, or asks at length what the meeting weighed', () => {
    const plan = sentence(
      'We keep the old ranking for large workspaces.',
      'keep old rank larg workspac'.split(' '),
    );
    const asking = sentence('Does the ranking change for them?', ['rank', 'chang']);
    expect(take([plan, asking], ['rank'])).toStrictEqual([plan.said, asking.said]);
    const weighing = sentence(
      'Was that a cause for concern, or do you think that was entirely appropriate?',
      'caus concern think entir appropri'.split(' '),
    );
    expect(take([plan, weighing], ['rank'])).toStrictEqual([plan.said, weighing.said]);
  });
});
