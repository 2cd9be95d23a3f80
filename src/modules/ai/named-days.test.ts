import { describe, expect, it } from 'vitest';
import { namedDays } from './named-days.ts';

describe('namedDays', () => {
  it('tells which sentences say the day a question names, by its month stemmed as the question was', () => {
    const days = namedDays('What happened on January 14th?', ['happen', 'januari', '14']);
    expect([...days.keys()]).toEqual(['januari']);
    const says = days.get('januari');
    expect(says?.('The outage on January 14 lasted an hour.')).toBe(true);
    expect(says?.('Deployed january 14th, at ten.')).toBe(true);
    expect(says?.('Daniel owns it, due January 23.')).toBe(false);
    expect(says?.('In January we ship.')).toBe(false);
  });

  it('holds every day named of a month, and nothing for a month named without a day', () => {
    const days = namedDays('Compare March 3 and March 10, and what changed in May', [
      'compar',
      'march',
      '3',
      '10',
      'chang',
      'may',
    ]);
    expect([...days.keys()]).toEqual(['march']);
    expect(days.get('march')?.('It moved to March 10.')).toBe(true);
    expect(days.get('march')?.('It moved to March 17.')).toBe(false);
  });
});
