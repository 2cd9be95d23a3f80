import { describe, expect, it } from 'vitest';
import { parseQuery } from './query.ts';

const word = (text: string, prefix = false, required = false) => ({ kind: 'word', text, prefix, required });
const phrase = (text: string) => ({ kind: 'phrase', text, prefix: false, required: true });

describe('parseQuery', () => {
  it('reads words as clauses of their own, the last one a prefix, and +word as required', () => {
    expect(parseQuery('+launch roadm')).toEqual({
      clauses: [[word('launch', false, true)], [word('roadm', true)]],
      excluded: [],
    });
    expect(parseQuery('launch roadm')).toEqual({
      clauses: [[word('launch')], [word('roadm', true)]],
      excluded: [],
    });
  });

  it('reads phrases, exclusions and OR', () => {
    expect(parseQuery('"launch date" budget OR cost -draft -"old plan" q3')).toEqual({
      clauses: [[phrase('launch date')], [word('budget'), word('cost')], [word('q3', true)]],
      excluded: [word('draft'), phrase('old plan')],
    });
  });

  it('does not treat a word followed by a space, a phrase or an exclusion as a prefix', () => {
    expect(parseQuery('roadmap ').clauses).toEqual([[word('roadmap')]]);
    expect(parseQuery('roadmap.').clauses).toEqual([[word('roadmap.')]]);
    expect(parseQuery('"launch date"').clauses).toEqual([[phrase('launch date')]]);
    expect(parseQuery('roadmap -draft').clauses).toEqual([[word('roadmap')]]);
  });

  it('takes anything else literally: unbalanced quotes, lone operators, punctuation', () => {
    expect(parseQuery('OR "unfinished phrase').clauses).toEqual([[phrase('unfinished phrase')]]);
    expect(parseQuery('- -- "" !!! budget OR')).toEqual({ clauses: [[word('budget', true)]], excluded: [] });
    expect(parseQuery('or lower-case or')).toEqual({
      clauses: [[word('or')], [word('lower-case')], [word('or', true)]],
      excluded: [],
    });
  });
});
