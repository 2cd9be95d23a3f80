import { describe, expect, it } from 'vitest';
import { snippetSource } from './moments.ts';

describe('the words a moment’s snippet is cut from', () => {
  const filler = (words: number) => Array.from({ length: words }, (_, at) => `word${at}`).join(' ');

  it('keeps a short turn whole', () => {
    const turn = 'Free school meals were extended over the summer.';
    expect(snippetSource(turn, ['free', 'school', 'meal'])).toBe(turn);
  });

  it('cuts a long turn to the eighty words that say the most of the question', () => {
    const saying = 'the free school meals grant reached more schools, and free meals were kept';
    const turn = `${filler(300)} said once school here. ${filler(200)} ${saying} ${filler(300)}`;
    const source = snippetSource(turn, ['free', 'school', 'meal']);
    expect(source.split(' ')).toHaveLength(80);
    expect(source).toContain(saying);
    expect(turn).toContain(source);
  });

  it('reads a stem as said, but for its last letter ("batteri" in "battery")', () => {
    const turn = `${filler(200)} the battery lasts a week ${filler(200)}`;
    expect(snippetSource(turn, ['batteri'])).toContain('the battery lasts a week');
  });

  it('keeps a long turn whole when it says none of the words as written', () => {
    const turn = filler(200);
    expect(snippetSource(turn, ['meal'])).toBe(turn);
  });
});
