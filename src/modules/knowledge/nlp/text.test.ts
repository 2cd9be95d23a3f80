import { describe, expect, it } from 'vitest';
import { subjectOf, tokenize } from './text.ts';

describe('subjectOf', () => {
  it('gives the stemmed content words, sorted and de-duplicated', () => {
    expect(subjectOf('We decided to drop the rubber case.')).toBe('case drop rubber');
    expect(subjectOf('The remote controls and the remote control.')).toBe('control remot');
  });

  it('gives the same subject to the same point said differently', () => {
    expect(subjectOf("Uh, we 'll use the rubber cases, yeah.")).toBe(subjectOf('We will use a rubber case.'));
    expect(subjectOf('We decided not to use rubber cases')).toBe(subjectOf('Let us use the rubber case?'));
  });

  it('leaves out fillers, framing words, numbers and contractions', () => {
    expect(subjectOf("Um, yeah, I'm gonna kind of, you know, make sure about the 25 things, okay?")).toBe('');
    expect(subjectOf('Action item: decide on the agenda.')).toBe('agenda');
  });
});

describe('tokenize', () => {
  it('tags, normalises and stems each word', () => {
    expect(
      tokenize("Maria doesn't like buttons").map(({ value, normal, stem, pos, content }) => [
        value,
        normal,
        stem,
        pos,
        content,
      ]),
    ).toEqual([
      ['Maria', 'maria', 'maria', 'PROPN', true],
      ['does', 'does', 'doe', 'AUX', false],
      ["n't", 'not', "n't", 'PART', false],
      ['like', 'like', 'like', 'VERB', false],
      ['buttons', 'buttons', 'button', 'NOUN', true],
    ]);
  });
});
