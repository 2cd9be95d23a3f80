import { describe, expect, it } from 'vitest';
import { clipped, counted, truncate } from './text.ts';

describe('truncate', () => {
  it('keeps text at or under the limit as it is', () => {
    expect(truncate('', 5)).toBe('');
    expect(truncate('hello', 5)).toBe('hello');
  });

  it('cuts longer text to the limit, the last character being the ellipsis', () => {
    expect(truncate('hello world', 5)).toBe('hell…');
    expect(Array.from(truncate('x'.repeat(300), 200))).toHaveLength(200);
  });

  it('counts an emoji as one character and never splits it', () => {
    expect(truncate('👍👍👍', 3)).toBe('👍👍👍');
    expect(truncate('👍👍👍👍', 3)).toBe('👍👍…');
  });
});

describe('clipped', () => {
  it('cuts long titles at a word', () => {
    expect(clipped('one two three four', 10)).toBe('one two…');
    expect(clipped('  short   title ', 20)).toBe('short title');
  });
});

describe('counted', () => {
  it('says one thing, or many', () => {
    expect(counted(1, 'meeting')).toBe('1 meeting');
    expect(counted(3, 'meeting')).toBe('3 meetings');
    expect(counted(2, 'person', 'people')).toBe('2 people');
  });
});
